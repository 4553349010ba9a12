#!/usr/bin/python3
"""Benchmark of PinshardDataset's colour jitter and data-wait guard (issue 38), CPU only:

1. the loop's images/s with jitter on against off, the same photos (goal >= 0.7);
2. against torchvision's ColorJitter + RandomGrayscale per sample in DataLoader workers (RandomResizedCrop, flip,
   ToTensor, Normalize: the usual recipe), the same JPEG files (goal >= 3x);
   1 and 2 in alternating rounds (off, on, torchvision, each after --settle seconds of quiet and with the batches
   its producer made ahead drained first: steady-state rates; see loop_rates);
3. the CPU jitter pass alone: ms per batch and us per image over the plain conversion;
4. the guard's cost per step (StepLog.arrived with a step log file, and without), goal < 20 us.

Prepares (once) DATA/jpeg-files (the cached photos, shorter side 320, COPIES copies, an ImageFolder tree) and
DATA/jpeg (the same files converted by `pinshard convert --codec jpeg`). Prints one JSON object per measurement.

Usage: /usr/bin/python3 scripts/bench_jitter.py [--data /tmp/pinshard-bench-jitter] [--copies 8] [--batch 256]
           [--crop 224] [--workers 2] [--batches 6] [--rounds 2] [--threads 2] [--settle 2] [--no-torchvision]
Run it from outside python/ (or with PYTHONPATH=python from the checkout root).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))

import numpy as np  # noqa: E402
import torch  # noqa: E402

from pinshard import _jitter, _steplog  # noqa: E402
from pinshard.torch import PinshardDataset, normalisation, to_training  # noqa: E402

MEAN, STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)
JITTER = {"brightness": 0.4, "contrast": 0.4, "saturation": 0.4, "hue": 0.1}
GRAYSCALE = 0.1


def prepare(data, copies):
    if os.path.exists(os.path.join(data, ".complete")):
        return
    from PIL import Image
    photos = subprocess.run([os.path.join(ROOT, "scripts", "fetch-photos.sh")], check=True, stdout=subprocess.PIPE,
                            text=True).stdout.strip()
    files = os.path.join(data, "jpeg-files")
    sources = sorted(os.path.join(d, f) for d, _, fs in os.walk(photos) for f in fs
                     if f.lower().endswith((".jpg", ".jpeg", ".png")))
    for i, source in enumerate(sources):
        with Image.open(source) as image:
            image = image.convert("RGB")
            scale = 320 / min(image.size)
            image = image.resize((max(1, round(image.width * scale)), max(1, round(image.height * scale))),
                                 Image.BILINEAR)
            folder = os.path.join(files, "class%d" % (i % 4))
            os.makedirs(folder, exist_ok=True)
            for copy in range(copies):
                image.save(os.path.join(folder, "p%03d-%02d.jpg" % (i, copy)), quality=90)
    subprocess.run([os.path.join(ROOT, "pinshard"), "convert", files, "-o", os.path.join(data, "jpeg"), "--codec",
                    "jpeg", "--progress", "none"], check=True, stdout=subprocess.DEVNULL)
    open(os.path.join(data, ".complete"), "w").close()


def _epochs(ds):
    """A PinshardDataset's (or DataLoader's) batches, epoch after epoch."""
    while True:
        for batch in ds:
            yield batch


def timed_batches(iterator, batches, drain):
    """images/s over `batches` batches after `drain` untimed ones: the batches its producer made ahead while it
    waited (ring slots, DataLoader prefetch) come out at the consumer's speed, not the producer's, so they are
    drained first and the timed batches are the steady state of producer and consumer."""
    for _ in range(drain):
        next(iterator)
    start, images = time.perf_counter(), 0
    for _ in range(batches):
        images += next(iterator)[0].shape[0]
    return images / (time.perf_counter() - start)


def torchvision_loader(args, folder):
    import torchvision
    from torchvision import transforms
    transform = transforms.Compose([
        transforms.RandomResizedCrop(args.crop), transforms.RandomHorizontalFlip(),
        transforms.ColorJitter(**JITTER), transforms.RandomGrayscale(GRAYSCALE),
        transforms.ToTensor(), transforms.Normalize(MEAN, STD)])
    dataset = torchvision.datasets.ImageFolder(folder, transform=transform)
    # one long epoch of random draws, as on a real data set: with these few photos an epoch is one batch, and each
    # batch is one worker's, so epoch by epoch only one worker would ever work
    sampler = torch.utils.data.RandomSampler(dataset, num_samples=len(dataset) * 100_000)
    return torch.utils.data.DataLoader(dataset, batch_size=args.batch, sampler=sampler, num_workers=args.workers,
                                       persistent_workers=True, drop_last=True)


def loop_rates(args, dataset, folder):
    """Each round times jitter off, jitter on and (unless --no-torchvision) torchvision's DataLoader in turn, so all
    three see the same machine load. Before each, --settle seconds of quiet: the stream timed just before refills
    its ring (or prefetch) after its last batch, work that would otherwise land on the next one's time. An untimed
    round first (JIT, worker start-up)."""
    common = dict(batch_size=args.batch, crop=args.crop, workers=args.workers, mean=MEAN, std=STD, seed=1)
    plain = PinshardDataset(dataset, **common)
    jittered = PinshardDataset(dataset, jitter=JITTER, grayscale=GRAYSCALE, **common)
    streams = {"off": _epochs(plain), "on": _epochs(jittered)}
    if not args.no_torchvision:
        streams["torchvision"] = _epochs(torchvision_loader(args, folder))
    drain = max(2, 2 * args.workers) + 1  # pinshard's default prefetch, and DataLoader's 2 per worker, plus one
    rates = {name: [] for name in streams}
    try:
        for round_ in range(-1, args.rounds):
            for name, stream in streams.items():
                time.sleep(args.settle)
                rate = timed_batches(stream, args.batches, drain)
                if round_ < 0:
                    continue
                rates[name].append(rate)
                what = ({"what": "torchvision DataLoader"} if name == "torchvision" else
                        {"what": "pinshard loop", "jitter": name})
                print(json.dumps(dict(what, round=round_, images_per_s=round(rate, 1))), flush=True)
    finally:
        plain.close()
        jittered.close()
    return rates


def jitter_pass(args):
    images = torch.randint(0, 256, (args.batch, args.crop, args.crop, 3), dtype=torch.uint8)
    scale, shift = normalisation(MEAN, STD, "NCHW")
    factors = _jitter.factors(_jitter.parse(JITTER, GRAYSCALE), 1, 0, np.arange(args.batch))
    results = {}
    for name, convert in (("plain", lambda: to_training(images, torch.float32, "NCHW", scale, shift)),
                          ("jitter", lambda: _jitter.to_training(images, torch.float32, "NCHW", scale, shift, factors,
                                                                 4))):
        convert()
        best = min(_seconds(convert) for _ in range(3))
        results[name] = best
    extra = results["jitter"] - results["plain"]
    out = {"what": "CPU conversion pass", "batch": args.batch, "crop": args.crop, "threads": torch.get_num_threads(),
           "plain_ms": round(1e3 * results["plain"], 1), "jitter_ms": round(1e3 * results["jitter"], 1),
           "jitter_extra_us_per_image": round(1e6 * extra / args.batch, 1)}
    print(json.dumps(out), flush=True)
    return out


def _seconds(work):
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


def guard_cost():
    results = {}
    with tempfile.TemporaryDirectory() as folder:
        for name, path in (("with step log", os.path.join(folder, "steps.jsonl")), ("no step log", None)):
            guard = _steplog.StepLog("bench", torch.device("cpu"), "/data/x", window=50)
            os.environ.pop(_steplog.ENVIRONMENT, None)
            guard.open(path, 0)
            steps, now = 200_000, 0.0
            start = time.perf_counter()
            for _ in range(steps):
                now += 0.05
                guard.arrived(0.001, now, 0, 256)
            elapsed = time.perf_counter() - start
            guard.close()
            results[name] = 1e6 * elapsed / steps
            print(json.dumps({"what": "guard per step", "case": name, "us_per_step": round(results[name], 2)}),
                  flush=True)
    # the loop's own share: two perf_counter() calls around each step
    start = time.perf_counter()
    for _ in range(200_000):
        time.perf_counter()
        time.perf_counter()
    results["clock"] = 1e6 * (time.perf_counter() - start) / 200_000
    return results


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default="/tmp/pinshard-bench-jitter")
    parser.add_argument("--copies", type=int, default=8)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--crop", type=int, default=224)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--batches", type=int, default=6)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--settle", type=float, default=2.0)
    parser.add_argument("--no-torchvision", action="store_true")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    prepare(args.data, args.copies)
    guard = guard_cost()
    conversion = jitter_pass(args)
    rates = loop_rates(args, os.path.join(args.data, "jpeg"), os.path.join(args.data, "jpeg-files"))
    summary = {"what": "summary", "batch": args.batch, "crop": args.crop, "workers": args.workers,
               "jitter_on_over_off": round(np.median(rates["on"]) / np.median(rates["off"]), 3),
               "pinshard_jitter_images_per_s": round(float(np.median(rates["on"])), 1),
               "guard_us_per_step": round(guard["with step log"] + 2 * guard["clock"], 2),
               "cpu_jitter_us_per_image": conversion["jitter_extra_us_per_image"]}
    if "torchvision" in rates:
        summary["torchvision_images_per_s"] = round(float(np.median(rates["torchvision"])), 1)
        summary["pinshard_over_torchvision"] = round(float(np.median(rates["on"]) / np.median(rates["torchvision"])),
                                                     2)
    print(json.dumps(summary), flush=True)


if __name__ == "__main__":
    main()
