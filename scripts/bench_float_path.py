"""PinshardDataset's CPU paths side by side, alternated (issue 41): float32 NCHW normalised written by the server
("server"), the same made in the training process from uint8 ring batches by to_training, as before issue 41
("trainer"), the server's values as views of the ring with copy=False ("views"), and uint8 NHWC ("uint8"). Each round iterates every path for SECONDS (a path's server stays up across
rounds); reports the median images/s, the training process's CPU seconds per 1,000 images, and each ratio to uint8.
Usage: /usr/bin/python3 scripts/bench_float_path.py DATASET [--rounds R] [--seconds S] [--workers W] [--batch B]
"""

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

import torch  # noqa: E402

from pinshard.torch import PinshardDataset  # noqa: E402

MEAN, STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)


class TrainerConverts(PinshardDataset):
    """The path before issue 41: a uint8 ring, converted in this process (the switch colour jitter uses)."""

    def _needs_uint8_pixels(self) -> bool:
        return True


def run(dataset, seconds, state):
    """Iterates for `seconds` (continuing epochs); returns (images, wall s, CPU s of this process)."""
    images, started, cpu = 0, time.monotonic(), time.process_time()
    while time.monotonic() - started < seconds:
        if state.get("iterator") is None:
            state["iterator"] = iter(dataset)
        try:
            batch, _ = next(state["iterator"])
        except StopIteration:
            state["iterator"] = None
            continue
        images += batch.shape[0]
    return images, time.monotonic() - started, time.process_time() - cpu


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("dataset")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=8)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--batch", type=int, default=256)
    args = parser.parse_args()
    common = dict(batch_size=args.batch, crop=224, workers=args.workers, seed=1)
    paths = {"server": PinshardDataset(args.dataset, dtype=torch.float32, layout="NCHW", mean=MEAN, std=STD, **common),
             "trainer": TrainerConverts(args.dataset, dtype=torch.float32, layout="NCHW", mean=MEAN, std=STD,
                                        **common),
             "views": PinshardDataset(args.dataset, dtype=torch.float32, layout="NCHW", mean=MEAN, std=STD, copy=False,
                                      **common),
             "uint8": PinshardDataset(args.dataset, dtype=torch.uint8, layout="NHWC", **common)}
    results = {name: [] for name in paths}
    states = {name: {} for name in paths}
    try:
        for name, dataset in paths.items():
            run(dataset, 1.0, states[name])  # servers up, caches warm
            print("%s: start-up %s" % (name, {k: round(v) for k, v in dataset.timings.items()}), flush=True)
        order = list(paths)
        for r in range(args.rounds):
            for name in order[r % len(order):] + order[:r % len(order)]:
                images, wall, cpu = run(paths[name], args.seconds, states[name])
                results[name].append((images / wall, cpu / images * 1000))
                print("round %d %-7s %8.0f images/s %6.3f CPU s / 1000 images" % (r, name, images / wall,
                                                                                  cpu / images * 1000), flush=True)
    finally:
        for state in states.values():
            if state.get("iterator") is not None:
                state["iterator"].close()
        for dataset in paths.values():
            dataset.close()
    rate = {n: statistics.median(v[0] for v in results[n]) for n in results}
    cpu = {n: statistics.median(v[1] for v in results[n]) for n in results}
    print("\nmedians of %d alternated rounds of %.0f s, batch %d, %d server workers, %s:" % (
        args.rounds, args.seconds, args.batch, args.workers, args.dataset))
    print("%-8s %12s %10s %26s" % ("path", "images/s", "x uint8", "train-process CPU s/1000"))
    for n in results:
        print("%-8s %12.0f %10.2f %26.3f" % (n, rate[n], rate[n] / rate["uint8"], cpu[n]))


if __name__ == "__main__":
    main()
