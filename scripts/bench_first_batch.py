"""A fresh `PinshardDataset`'s first batch, two variants alternated in one run: each round starts a server per variant,
takes three batches (float32 NCHW normalised, the peer race's format) and prints the server's own steps (JVM, dataset
open, loader open, ring ready, first batch), the loop's first batch and, of it, the first batch's copy out of the
ring; then the medians.

--compare warmup   the crop kernel's warm-up (the default: the scalar twin until the vector kernel is compiled)
                   against none (`-Dpinshard.vector.warmup=false` in PINSHARD_JAVA_OPTS)
--compare archive  the server's class-data-sharing archive (~/.cache/pinshard/cds) against none (PINSHARD_CDS=0);
                   unmeasured starts first make the archive (a class list, then its dump, waited for)
--compare prefault the first batch's tensor made and touched while the server starts (the default) against made
                   at the copy (pinshard.torch.PREFAULT_FIRST_BATCH = False)
--compare none     one variant, as the environment says (to alternate two checkouts, run each with --rounds 1 in
                   turns: the script imports the pinshard package beside it)
--start launcher   the server through PINSHARD_COMMAND (./pinshard: a bash launcher, then the JVM)
--start wheel      the installed pinshard package (a wheel's: its jar and Java runtime), not this checkout's
--start java       as an installed wheel starts it: `java FLAGS -jar JAR` from pinshard._java (no launcher), JAR the
                   checkout's cli/target/pinshard.jar, java JAVA_HOME's (point it at the wheel's jlink runtime to
                   measure that) else the PATH's

Usage: /usr/bin/python3 scripts/bench_first_batch.py DATASET [--rounds R] [--workers W] [--batch B]
                                                     [--compare warmup|archive|prefault|none] [--start launcher|java|wheel]
"""

import argparse
import glob
import os
import statistics
import sys
import time
from typing import Dict, List

REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
WHEEL = any(a == "--start=wheel" or (a == "wheel" and p == "--start") for p, a in zip(sys.argv, sys.argv[1:]))
if not WHEEL:
    sys.path.insert(0, os.path.join(REPO, "python"))

from pinshard import _java  # noqa: E402
from pinshard import torch as pinshard_torch  # noqa: E402
from pinshard.torch import PinshardDataset  # noqa: E402

MEAN, STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)
PREFAULT = "(pinshard.torch.PREFAULT_FIRST_BATCH)"  # not an environment variable: the module's switch
# variant name -> environment it runs with (added to the caller's)
COMPARISONS = {
    "warmup": (("warm-up", {}), ("no warm-up", {"PINSHARD_JAVA_OPTS": "-Dpinshard.vector.warmup=false"})),
    "archive": (("archive", {"PINSHARD_CDS": "1"}), ("no archive", {"PINSHARD_CDS": "0"})),
    "prefault": (("touched", {PREFAULT: "1"}), ("fresh", {PREFAULT: "0"})),
    "none": (("as is", {}),),
}
STEPS = ("start_ms", "jvm_ms", "dataset_open_ms", "loader_open_ms", "ring_ready_ms", "first_batch_ms", "first_copy_ms")


def jvm_arguments(pid: int) -> List[str]:
    """The running server's command line (the JVM's: ./pinshard execs it)."""
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            return [a.decode("utf-8", "replace") for a in f.read().split(b"\0")]
    except OSError:
        return []


def cpu_seconds(pid: int) -> float:
    """The CPU time (user + system) process `pid` has used so far, or -1."""
    try:
        with open("/proc/%d/stat" % pid, "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return -1.0


def first_batch(dataset: str, args: argparse.Namespace) -> Dict[str, float]:
    own_cpu = time.process_time()
    started = time.monotonic()
    ds = PinshardDataset(dataset, batch_size=args.batch, crop=224, workers=args.workers, seed=0, mean=MEAN, std=STD)
    batches = iter(ds)
    next(batches)
    first = time.monotonic() - started
    trainer_cpu = time.process_time() - own_cpu
    server = ds._server
    server_cpu = cpu_seconds(server.process.pid) if server is not None else -1.0
    mapped = server is not None and any(a.startswith("-XX:SharedArchiveFile=")
                                        for a in jvm_arguments(server.process.pid))
    next(batches)
    timings = dict(ds.timings)
    ds.close()
    timings["loop_s"] = first
    timings["server_cpu_s"], timings["trainer_cpu_s"] = server_cpu, trainer_cpu
    timings["archive"] = 1.0 if mapped else 0.0
    return timings


def wait_for_dumps(deadline_s: float = 300.0) -> None:
    """Until no class-data archive is being dumped (a `*.jsa.PID.tmp` in the cds cache)."""
    folder = os.path.join(_java.cache_root(), "cds")
    end = time.monotonic() + deadline_s
    while glob.glob(os.path.join(folder, "*.jsa.*.tmp")) and time.monotonic() < end:
        time.sleep(0.5)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("dataset")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--compare", choices=sorted(COMPARISONS), default="warmup")
    parser.add_argument("--start", choices=("launcher", "java", "wheel"), default="launcher")
    args = parser.parse_args()
    if args.start == "java":
        os.environ.pop("PINSHARD_COMMAND", None)
        _java.PACKAGED_JAR = os.path.join(REPO, "cli", "target", "pinshard.jar")
        defaults = _java.java_command.__defaults__  # a package whose java_command bound the wheel's jar at import
        if defaults and isinstance(defaults[-1], str):
            _java.java_command.__defaults__ = defaults[:-1] + (_java.PACKAGED_JAR,)
        print("start: %s FLAGS -jar %s serve ..." % (_java.find_java().path, _java.PACKAGED_JAR))
    elif args.start == "wheel":
        os.environ.pop("PINSHARD_COMMAND", None)
        print("start: the package at %s (jar %s, java %s)" % (os.path.dirname(_java.__file__), _java.PACKAGED_JAR,
                                                               _java.find_java().path))
    elif not os.environ.get("PINSHARD_COMMAND"):
        raise SystemExit("--start launcher needs PINSHARD_COMMAND (e.g. PINSHARD_COMMAND=$PWD/pinshard)")
    own = dict(os.environ)
    variants = COMPARISONS[args.compare]

    def environment(extra: Dict[str, str]) -> None:
        os.environ.clear()
        os.environ.update(own)
        pinshard_torch.PREFAULT_FIRST_BATCH = extra.get(PREFAULT, "1") == "1"
        for key, value in extra.items():
            if key == PREFAULT:
                continue
            os.environ[key] = (own.get(key, "") + " " + value).strip() if key == "PINSHARD_JAVA_OPTS" else value

    if args.compare == "archive":
        environment(variants[0][1])
        for attempt in range(3):  # record the class list, dump the archive, then see it mapped
            mapped = first_batch(args.dataset, args)["archive"]
            wait_for_dumps()
            if mapped:
                break
        print("archive made and mapped: %s" % ("yes" if mapped else "NO"), flush=True)
    figures: Dict[str, Dict[str, List[float]]] = {name: {} for name, _ in variants}
    for _ in range(args.rounds):
        for name, extra in variants:
            environment(extra)
            timings = first_batch(args.dataset, args)
            for key, value in timings.items():
                figures[name].setdefault(key, []).append(value)
            print("%-11s loop first batch %.2f s (archive mapped: %s; CPU to it: server %.2f s, this process %.2f s); "
                  "server: %s; copy out of the ring %d ms"
                  % (name, timings["loop_s"], "yes" if timings["archive"] else "no", timings["server_cpu_s"],
                     timings["trainer_cpu_s"],
                     ", ".join("%s %d" % (step[:-3].replace("_", " "), timings.get(step, -1))
                               for step in STEPS[:-1]), timings.get("first_copy_ms", -1)), flush=True)
    environment({})
    for name, _ in variants:
        medians = {key: statistics.median(values) for key, values in figures[name].items()}
        steps = ", ".join("%s %d" % (step[:-3].replace("_", " "), medians.get(step, -1)) for step in STEPS[:-1])
        print("median %-11s loop first batch %.2f s (CPU to it: server %.2f s, this process %.2f s); server: %s; "
              "copy %d ms" % (name, medians["loop_s"], medians["server_cpu_s"], medians["trainer_cpu_s"], steps,
                              medians.get("first_copy_ms", -1)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
