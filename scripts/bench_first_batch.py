"""A fresh `PinshardDataset`'s first batch, with the crop kernel's warm-up (the default: the scalar twin until the vector
kernel is compiled) and without it (`-Dpinshard.vector.warmup=false` in PINSHARD_JAVA_OPTS), alternated in one run:
each round starts a server per variant, takes three batches (float32 NCHW normalised, the peer race's format) and
prints the server's own steps (JVM, dataset open, loader open, first batch) and the loop's first batch, then the
medians. Needs PINSHARD_COMMAND (or the wheel) as every PinshardDataset does.
Usage: /usr/bin/python3 scripts/bench_first_batch.py DATASET [--rounds R] [--workers W] [--batch B]
"""

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

from pinshard.torch import PinshardDataset  # noqa: E402

MEAN, STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)
VARIANTS = (("warm-up", ""), ("no warm-up", "-Dpinshard.vector.warmup=false"))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("dataset")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--batch", type=int, default=256)
    args = parser.parse_args()
    own = os.environ.get("PINSHARD_JAVA_OPTS", "")
    figures = {name: {"server first batch ms": [], "loop first batch s": []} for name, _ in VARIANTS}
    for _ in range(args.rounds):
        for name, option in VARIANTS:
            os.environ["PINSHARD_JAVA_OPTS"] = (own + " " + option).strip()
            started = time.monotonic()
            ds = PinshardDataset(args.dataset, batch_size=args.batch, crop=224, workers=args.workers, seed=0,
                                 mean=MEAN, std=STD)
            batches = iter(ds)
            next(batches)
            first = time.monotonic() - started
            next(batches)
            timings = ds.timings
            ds.close()
            figures[name]["server first batch ms"].append(timings["first_batch_ms"])
            figures[name]["loop first batch s"].append(first)
            print("%-11s loop first batch %.2f s; server: jvm %d, dataset open %d, loader open %d, first batch %d ms"
                  % (name, first, timings["jvm_ms"], timings["dataset_open_ms"], timings["loader_open_ms"],
                     timings["first_batch_ms"]), flush=True)
    os.environ["PINSHARD_JAVA_OPTS"] = own
    for name, _ in VARIANTS:
        print("median %-11s loop first batch %.2f s, server first batch %d ms" % (
            name, statistics.median(figures[name]["loop first batch s"]),
            statistics.median(figures[name]["server first batch ms"])))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
