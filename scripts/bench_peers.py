#!/usr/bin/python3
"""The Python side of scripts/bench-peers.sh: pinshard's PinshardDataset against WebDataset, MosaicML Streaming,
LitData and PyTorch's DataLoader over files, on the same JPEGs, side by side in one run.

  bench_peers.py convert --data DATA --work WORK           makes every peer's format once (timed, cached in WORK)
  bench_peers.py race --data DATA --work WORK --peers DIR  alternated rounds of every loader: one table
  bench_peers.py run LOADER --data DATA --work WORK ...    one loader in this process (race starts these)
  bench_peers.py stats                                     self-check of the statistics (quick, no data)

Every loader yields float32 NCHW batches of 256, RandomResizedCrop 224 + horizontal flip, normalised with
ImageNet's mean/std, from 2 CPU workers (pinshard: 2 server worker threads; the peers: DataLoader(num_workers=2)),
except the diagnostic pinshard-raw-uint8 row (the ring's own uint8 NHWC views: the cost of the float conversion);
pinshard-raw-views is pinshard-raw's float32 batches as the ring's own views (copy=False: no copy out of the ring,
valid until the next batch), where every other row hands out a fresh tensor per batch.
Each `run` is a fresh process; the parent (this `race`) samples the whole process tree (the loader process, its
DataLoader workers or its JVM server) every 0.2 s: CPU seconds over the measured window (utime + stime from
/proc), peak RSS summed over the tree and peak PSS (RSS with shared pages divided between their sharers: the ring
and mapped shards are shared between processes, RSS counts them in each).

The peers' sources come from --peers DIR (bench-peers.sh extracts them from git mirrors; pip-installed packages
are used where DIR lacks one); MosaicML Streaming imports `transformers` for three names only (isinstance checks in
its DataLoader subclass and a tokenizer in its text datasets): a stub package in DIR/stubs provides them. LitData
needs torch.uint16 (torch >= 2.3): a placeholder is set before its import (see import_peer).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time

MEAN, STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)
LOADERS = ["pinshard-raw", "pinshard-jpeg", "pinshard-yuv420", "pinshard-raw-views", "pinshard-raw-uint8", "webdataset", "streaming-jpeg", "streaming-raw", "litdata-jpeg",
           "litdata-raw", "pytorch-files"]
PEERS = {"webdataset": ["webdataset/src"], "streaming": ["streaming", "stubs"],
         "litdata": ["litdata/src", "lightning-utilities/src"]}
TRANSFORMERS_STUB = {
    "__init__.py": '"""Stub for MosaicML Streaming (bench_peers.py): only the names streaming imports."""\n',
    "feature_extraction_utils.py": "class BatchFeature(dict):\n    pass\n",
    "tokenization_utils_base.py": "class BatchEncoding(dict):\n    pass\n",
    "models/__init__.py": "", "models/auto/__init__.py": "",
    "models/auto/tokenization_auto.py":
        "class AutoTokenizer:\n    @classmethod\n    def from_pretrained(cls, *args, **kwargs):\n"
        "        raise ImportError('transformers is a stub here (bench_peers.py)')\n"}
SHARD_IMAGES = 100  # tar / chunk granularity for the peers: 11 shards, so both DataLoader workers get some


# ---- statistics (tested by `stats`) ----

def median(values):
    return statistics.median(values) if values else float("nan")


def tree_cpu_delta(base, latest):
    """CPU seconds the tree used between two snapshots {pid: cpu seconds}: a pid born after `base` counts from 0;
    a pid gone before `latest` counts to its last sample (the sampler keeps it in `latest`)."""
    return sum(cpu - base.get(pid, 0.0) for pid, cpu in latest.items())


def ratio(a, b):
    return a / b if b else float("nan")


def self_check():
    assert median([3, 1, 2]) == 2 and median([4, 1, 3, 2]) == 2.5
    assert abs(tree_cpu_delta({1: 2.0, 2: 1.0}, {1: 5.0, 2: 1.5, 3: 0.25}) - 3.75) < 1e-12
    assert ratio(6, 2) == 3 and ratio(1, 0) != ratio(1, 0)  # nan
    rows = [{"loader": "a", "images_per_s": v} for v in (10, 30, 20)]
    assert summarise(rows)["a"]["images_per_s"] == 20
    print("statistics self-check: ok")


def summarise(rows):
    """Median of every numeric field per loader over its rounds."""
    by_loader = {}
    for row in rows:
        by_loader.setdefault(row["loader"], []).append(row)
    out = {}
    for loader, runs in by_loader.items():
        keys = [k for k, v in runs[0].items() if isinstance(v, (int, float)) and not isinstance(v, bool)]
        out[loader] = {k: median([r[k] for r in runs if k in r]) for k in keys}
        out[loader]["rounds"] = len(runs)
        out[loader]["per_round"] = [r["images_per_s"] for r in sorted(runs, key=lambda r: r.get("round", 0))]
    return out


# ---- the peers' imports ----

def peer_path(peers, name):
    """sys.path entries for peer `name` from the extracted sources, else nothing (pip-installed)."""
    paths = [os.path.join(peers, p) for p in PEERS[name]] if peers else []
    return [p for p in paths if os.path.isdir(p)]


def import_peer(name, peers):
    sys.path[:0] = peer_path(peers, name)
    if name == "litdata":
        import torch
        if not hasattr(torch, "uint16"):  # litdata's dtype table names torch.uint16 (torch >= 2.3); 1.13 lacks it
            torch.uint16 = object()
        import litdata
        return litdata
    if name == "streaming":
        import streaming
        return streaming
    import webdataset
    return webdataset


def write_stub(peers):
    for relative, text in TRANSFORMERS_STUB.items():
        path = os.path.join(peers, "stubs", "transformers", relative)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)


# ---- the images ----

def image_files(data):
    """(path, label) of the ImageFolder tree DATA/jpeg-files, classes sorted by name (as ImageFolder and convert)."""
    root = os.path.join(data, "jpeg-files")
    classes = sorted(d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d)))
    return [(os.path.join(root, c, f), label) for label, c in enumerate(classes)
            for f in sorted(os.listdir(os.path.join(root, c)))]


def _litdata_jpeg(item):
    from PIL import Image
    return {"image": Image.open(item[0]), "label": item[1]}  # a JpegImageFile: litdata stores the file's bytes


def _litdata_raw(item):
    import numpy as np
    from PIL import Image
    return {"image": np.asarray(Image.open(item[0]).convert("RGB")), "label": item[1]}


def convert(args):
    """Each peer's format from the same JPEG files, timed; skipped when WORK/FORMAT/.seconds exists."""
    import numpy as np
    from PIL import Image
    files = image_files(args.data)
    times = {}

    def timed(name, make):
        out = os.path.join(args.work, name)
        done = out + ".seconds"
        if os.path.exists(done):
            times[name] = float(open(done).read())
            return
        subprocess.run(["rm", "-rf", out], check=True)
        print("converting %d images to %s ..." % (len(files), name), file=sys.stderr, flush=True)
        start = time.perf_counter()
        make(out)
        times[name] = time.perf_counter() - start
        written = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(out) for f in fs)
        if written < sum(os.path.getsize(path) for path, _ in files) // 2:  # a converter that failed quietly
            raise SystemExit("%s: only %d bytes written in %s" % (name, written, out))
        with open(done, "w") as f:
            f.write("%.3f" % times[name])

    def pinshard(codec):
        def make(out):
            subprocess.run(args.pinshard + ["convert", os.path.join(args.data, "jpeg-files"), "-o", out,
                                            "--codec", codec, "--workers", "2", "--progress", "none"],
                           check=True, stdout=subprocess.DEVNULL)
        return make

    def webdataset_tars(out):
        wds = import_peer("webdataset", args.peers)
        os.makedirs(out)
        with wds.ShardWriter(os.path.join(out, "shard-%05d.tar"), maxcount=SHARD_IMAGES, verbose=0) as sink:
            for i, (path, label) in enumerate(files):
                with open(path, "rb") as f:
                    sink.write({"__key__": "%06d" % i, "jpg": f.read(), "cls": label})

    def streaming_mds(column):
        def make(out):
            streaming = import_peer("streaming", args.peers)
            limit = SHARD_IMAGES * (40_000 if column == "jpeg" else 600_000)
            with streaming.MDSWriter(out=out, columns={"image": column, "label": "int"}, size_limit=limit) as sink:
                for path, label in files:
                    image = Image.open(path)  # jpeg: MDS reads the JpegImageFile's own file, no re-encode
                    sink.write({"image": image if column == "jpeg" else np.asarray(image.convert("RGB")),
                                "label": label})
        return make

    def litdata_chunks(fn, chunk_bytes):
        def make(out):
            litdata = import_peer("litdata", args.peers)
            litdata.optimize(fn=fn, inputs=files, output_dir=out, chunk_bytes=chunk_bytes, num_workers=2, start_method="fork",
                             verbose=False)
        return make

    timed("pinshard-raw", pinshard("raw"))
    timed("pinshard-jpeg", pinshard("jpeg"))
    timed("pinshard-yuv420", pinshard("yuv420"))
    timed("webdataset", webdataset_tars)
    timed("streaming-jpeg", streaming_mds("jpeg"))
    timed("streaming-raw", streaming_mds("ndarray:uint8"))
    timed("litdata-jpeg", litdata_chunks(_litdata_jpeg, "4MB"))
    timed("litdata-raw", litdata_chunks(_litdata_raw, "64MB"))
    times["pytorch-files"] = 0.0
    times["pinshard-raw-uint8"] = times["pinshard-raw-views"] = times["pinshard-raw"]
    print(json.dumps({"conversion_s": times, "images": len(files)}), flush=True)
    return times


# ---- one loader ----

def peer_transform():
    """torchvision's training transform as the peers' docs show it (PIL image in)."""
    from torchvision import transforms as T
    return T.Compose([T.RandomResizedCrop(224), T.RandomHorizontalFlip(), T.ToTensor(), T.Normalize(MEAN, STD)])


def tensor_transform():
    """The same for a uint8 CHW tensor (LitData decodes JPEGs with torchvision.io.decode_jpeg)."""
    import torch
    from torchvision import transforms as T
    return T.Compose([T.RandomResizedCrop(224, antialias=True), T.RandomHorizontalFlip(),
                      T.ConvertImageDtype(torch.float32), T.Normalize(MEAN, STD)])


class ToPil:
    """An HWC uint8 array as a PIL image (the raw columns)."""

    def __call__(self, array):
        from PIL import Image
        return Image.fromarray(array)


def make_loader(name, args):
    """A function epoch -> iterable of (images, labels) for loader `name`."""
    import torch
    fmt = os.path.join(args.work, name)
    batch, workers = args.batch, args.workers
    if name.startswith("pinshard"):
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
        from pinshard.torch import PinshardDataset
        if name.endswith("-uint8"):  # a diagnostic row, not the race's output: the ring's own uint8 NHWC views
            ds = PinshardDataset(fmt[:-len("-uint8")], batch_size=batch, crop=224, workers=workers, seed=0,
                                 dtype=torch.uint8, layout="NHWC", copy=False)
        elif name.endswith("-views"):  # the race's output (float32 NCHW normalised) as the ring's views: no copy
            ds = PinshardDataset(fmt[:-len("-views")], batch_size=batch, crop=224, workers=workers, seed=0,
                                 mean=MEAN, std=STD, copy=False)
        else:
            ds = PinshardDataset(fmt, batch_size=batch, crop=224, workers=workers, seed=0, mean=MEAN, std=STD)

        def epoch(e):
            ds.set_epoch(e)
            return ds
        return epoch
    common = dict(batch_size=batch, num_workers=workers, persistent_workers=True, prefetch_factor=2)
    if name == "pytorch-files":
        from torchvision.datasets import ImageFolder
        loader = torch.utils.data.DataLoader(ImageFolder(os.path.join(args.data, "jpeg-files"), peer_transform()),
                                             shuffle=True, **common)
        return lambda e: loader
    if name == "webdataset":
        wds = import_peer("webdataset", args.peers)
        urls = sorted(os.path.join(fmt, f) for f in os.listdir(fmt) if f.endswith(".tar"))
        dataset = (wds.WebDataset(urls, shardshuffle=len(urls)).shuffle(1000).decode("pil")
                   .to_tuple("jpg", "cls").map_tuple(peer_transform(), lambda y: y))
        loader = torch.utils.data.DataLoader(dataset, **common)
        return lambda e: loader
    if name.startswith("streaming"):
        streaming = import_peer("streaming", args.peers)
        from streaming.base.util import clean_stale_shared_memory
        clean_stale_shared_memory()
        transform = peer_transform()
        to_pil = ToPil() if name.endswith("raw") else None

        class Photos(streaming.StreamingDataset):  # the docs' way: a subclass whose __getitem__ transforms
            def __getitem__(self, index):
                sample = super().__getitem__(index)
                image = sample["image"] if to_pil is None else to_pil(sample["image"])
                return transform(image), sample["label"]

        dataset = Photos(local=fmt, shuffle=True, batch_size=batch)
        loader = torch.utils.data.DataLoader(dataset, **common)
        return lambda e: loader
    if name.startswith("litdata"):
        litdata = import_peer("litdata", args.peers)
        if name.endswith("raw"):
            pil, transform = ToPil(), peer_transform()
        else:
            pil, transform = None, tensor_transform()

        def sample(item):
            image = item["image"] if pil is None else pil(item["image"])
            return transform(image), item["label"]

        dataset = litdata.StreamingDataset(fmt, shuffle=True, transform=sample)
        loader = litdata.StreamingDataLoader(dataset, **common)

        def epoch(e):
            dataset.set_epoch(e + 1)  # litdata's epochs count from 1
            return loader
        return epoch
    raise SystemExit("unknown loader %r (known: %s)" % (name, ", ".join(LOADERS)))


def say(event, **fields):
    print(json.dumps(dict(event=event, **fields)), flush=True)


def run_one(args):
    """Makes the loader, takes batches: first batch, `warmup` more, then `seconds` measured; reports to the parent
    on stdout (it snapshots the process tree at "warm" and "done") and waits for its line on stdin to exit."""
    import torch
    started = time.perf_counter()
    epochs = make_loader(args.loader, args)
    epoch, first, images, taken = 0, None, 0, 0
    measuring, window_start, checked = False, None, False
    while True:
        for batch_images, labels in epochs(epoch):
            now = time.perf_counter()
            if not checked:  # every loader must hand out the same kind of tensor
                expected = ((torch.uint8, (224, 224, 3)) if args.loader.endswith("-uint8")
                            else (torch.float32, (3, 224, 224)))
                if ((batch_images.dtype, tuple(batch_images.shape[1:])) != expected
                        or not batch_images.is_contiguous()):
                    raise SystemExit("%s: expected %s [N, %s] contiguous, got %s %s"
                                     % (args.loader, expected[0], expected[1], batch_images.dtype,
                                        tuple(batch_images.shape)))
                first, checked = now - started, True
                say("first", seconds=first)
            taken += 1
            if measuring:
                images += batch_images.shape[0]
                if now - window_start >= args.seconds:
                    elapsed = now - window_start
                    say("done", images=images, seconds=elapsed, epochs=epoch)
                    sys.stdin.readline()
                    os._exit(0)  # the peers' worker processes are the parent's to account for, not to tear down
            elif taken > args.warmup:
                measuring, window_start = True, time.perf_counter()
                say("warm")
        epoch += 1


# ---- the race ----

def tree(pid):
    """pid and its descendants (from /proc/*/stat's ppid)."""
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open("/proc/%s/stat" % entry) as f:
                    stat = f.read()
                parents.setdefault(int(stat[stat.rindex(")") + 2:].split()[1]), []).append(int(entry))
            except (OSError, ValueError, IndexError):
                continue
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(parents.get(p, []))
    return out


def memory_kib(pid):
    """(RSS, PSS) in KiB from /proc/PID/smaps_rollup."""
    rss = pss = 0
    with open("/proc/%d/smaps_rollup" % pid) as f:
        for line in f:
            if line.startswith("Rss:"):
                rss = int(line.split()[1])
            elif line.startswith("Pss:"):
                pss = int(line.split()[1])
    return rss, pss


def process_cpu_seconds(pid):
    from bench_serve import process_cpu_seconds as cpu  # this script's folder is sys.path[0]
    return cpu(pid)


class Sampler(threading.Thread):
    """Samples the tree under `pid` every `interval` s: per-pid CPU (latest) and the peak of summed RSS/PSS."""

    def __init__(self, pid, interval=0.2):
        super().__init__(daemon=True)
        self.pid, self.interval = pid, interval
        self.latest, self.peak_rss, self.peak_pss = {}, 0, 0
        self.lock, self.stopped = threading.Lock(), threading.Event()

    def sample(self):
        rss = pss = 0
        cpu = {}
        for p in tree(self.pid):
            try:
                cpu[p] = process_cpu_seconds(p)
                r, s = memory_kib(p)
                rss, pss = rss + r, pss + s
            except (OSError, ValueError):
                continue
        with self.lock:
            self.latest.update(cpu)
            self.peak_rss, self.peak_pss = max(self.peak_rss, rss), max(self.peak_pss, pss)
            return dict(self.latest)

    def reset(self):
        """A fresh CPU window: returns the base snapshot, forgets processes that are gone."""
        with self.lock:
            self.latest = {}
        return self.sample()

    def run(self):
        while not self.stopped.wait(self.interval):
            self.sample()


def race_one(loader, args):
    command = [sys.executable, os.path.abspath(__file__), "run", loader, "--data", args.data, "--work", args.work,
               "--seconds", str(args.seconds), "--warmup", str(args.warmup), "--batch", str(args.batch),
               "--workers", str(args.workers)] + (["--peers", args.peers] if args.peers else [])
    child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    sampler = Sampler(child.pid)
    sampler.start()
    result, base = {"loader": loader}, None
    try:
        for line in child.stdout:
            event = json.loads(line)
            if event["event"] == "first":
                result["first_batch_s"] = event["seconds"]
            elif event["event"] == "warm":
                base = sampler.reset()
            elif event["event"] == "done":
                latest = sampler.sample()
                cpu = tree_cpu_delta(base, latest)
                own = latest.get(child.pid, 0.0) - base.get(child.pid, 0.0)  # the training process itself
                result.update(images=event["images"], seconds=event["seconds"],
                              images_per_s=event["images"] / event["seconds"],
                              cpu_s_per_1000=1000 * cpu / event["images"],
                              trainer_cpu_s_per_1000=1000 * own / event["images"],
                              cpu_cores=cpu / event["seconds"], processes=len(latest))
                child.stdin.write("bye\n")
                child.stdin.flush()
                break
    finally:
        sampler.stopped.set()
        sampler.join()
        for p in reversed(tree(child.pid)):  # workers a killed loader left behind, then the loader
            if p != child.pid:
                try:
                    os.kill(p, 15)
                except OSError:
                    pass
        try:
            child.wait(30)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
    result["peak_rss_mib"] = sampler.peak_rss / 1024
    result["peak_pss_mib"] = sampler.peak_pss / 1024
    if "images_per_s" not in result:
        result["error"] = "exited with status %s before it measured" % child.returncode
    return result


def race(args):
    process_cpu_seconds(os.getpid())  # imports bench_serve (and torch) now, not in the sampler's first sample
    conversion = convert(args)
    loaders = args.loaders.split(",") if args.loaders else LOADERS
    rows = []
    for r in range(args.rounds):
        order = loaders[r % len(loaders):] + loaders[:r % len(loaders)]  # each round starts with the next loader
        for loader in order:
            print("round %d/%d: %s ..." % (r + 1, args.rounds, loader), file=sys.stderr, flush=True)
            row = race_one(loader, args)
            row["round"] = r + 1
            print(json.dumps(row), file=sys.stderr, flush=True)
            if "error" not in row:
                rows.append(row)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rows": rows, "conversion_s": conversion}, f, indent=1)
    table(summarise(rows), conversion, loaders)


def table(summary, conversion, loaders):
    peers = [l for l in loaders if not l.startswith("pinshard") and l in summary]  # pinshard's views rows: no peer
    fastest = max(peers, key=lambda l: summary[l]["images_per_s"]) if peers else None
    quickest = min(peers, key=lambda l: summary[l]["first_batch_s"]) if peers else None
    print("| loader | images/s | CPU s / 1,000 images | of which the training process | peak RSS, all processes (MiB) "
          "| peak PSS (MiB) | first batch (s) | conversion (s) | images/s per round |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for loader in loaders:
        if loader not in summary:
            print("| %s | failed | | | | | | %s | |" % (loader, conversion.get(loader, "")))
            continue
        s = summary[loader]
        print("| %s | %.0f | %.2f | %.2f | %.0f | %.0f | %.2f | %.1f | %s |"
              % (loader, s["images_per_s"], s["cpu_s_per_1000"], s.get("trainer_cpu_s_per_1000", float("nan")),
                 s["peak_rss_mib"], s["peak_pss_mib"],
                 s["first_batch_s"], conversion.get(loader, float("nan")),
                 " / ".join("%.0f" % v for v in s["per_round"])))
    print()
    for ours, base, what, goal in (("pinshard-yuv420", "pinshard-raw", "raw's", "1.0x, hot page cache"),
                                   ("pinshard-raw", "pinshard-raw-uint8", "its uint8 views'", "0.8x"),
                                   ("pinshard-raw-views", "pinshard-raw-uint8", "its uint8 views'", "0.8x")):
        if ours in summary and base in summary:  # pinshard against itself: no peer needed
            print("%s: %.2fx %s images/s (goal >= %s)"
                  % (ours, ratio(summary[ours]["images_per_s"], summary[base]["images_per_s"]), what, goal))
    if fastest is None:
        return
    f = summary[fastest]
    print("fastest peer: %s (%.0f images/s, %.2f CPU s / 1,000 images); quickest first batch: %s (%.2f s)"
          % (fastest, f["images_per_s"], f["cpu_s_per_1000"], quickest, summary[quickest]["first_batch_s"]))
    for ours, goal in (("pinshard-jpeg", 3), ("pinshard-raw", 6)):  # issue 41's goals
        if ours in summary:
            s = summary[ours]
            print("%s: %.2fx its images/s (goal >= %dx), %.2fx its CPU per image (goal <= 0.5x), %.2fx the quickest "
                  "first batch (goal <= 1.0x)" % (ours, ratio(s["images_per_s"], f["images_per_s"]), goal,
                                                  ratio(s["cpu_s_per_1000"], f["cpu_s_per_1000"]),
                                                  ratio(s["first_batch_s"], summary[quickest]["first_batch_s"])))



def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("what", choices=["convert", "race", "run", "stats"])
    parser.add_argument("loader", nargs="?")
    parser.add_argument("--data", help="prepare-bench-data.sh's folder (its jpeg-files/ is every format's source)")
    parser.add_argument("--work", help="where the converted formats go")
    parser.add_argument("--peers", help="the peers' extracted sources (bench-peers.sh); none: pip-installed")
    parser.add_argument("--pinshard", default=None, help="the pinshard command as a JSON list (default ./pinshard)")
    parser.add_argument("--loaders", help="comma-separated subset of: " + ", ".join(LOADERS))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--warmup", type=int, default=2, help="batches after the first before measuring")
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--json", help="also write every round's row here")
    args = parser.parse_args()
    if args.what == "stats":
        return self_check()
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    args.pinshard = json.loads(args.pinshard) if args.pinshard else [os.path.normpath(os.path.join(root, "pinshard"))]
    if args.peers:
        write_stub(args.peers)
    if args.what == "run":
        import torch
        torch.set_num_threads(args.workers)  # the loader process's own torch ops (pinshard's float conversion)
        return run_one(args)
    os.makedirs(args.work, exist_ok=True)
    if args.what == "convert":
        return convert(args)
    return race(args)


if __name__ == "__main__":
    main()
