#!/usr/bin/python3
"""Does pinshard's loader give the Fashion-MNIST example the same pictures as torchvision? No training, three checks:

1. eval: the test split through `pinshard serve --eval --eval-crop-fraction 1.0` (the Java example's test loader)
   against torchvision's ImageFolder + ToTensor of the same PNGs, image by image (also the labels);
2. train: two whole epochs of `pinshard serve`'s train batches (scale 0.6-1, ratio 3/4-4/3, flip 0.5, drop last):
   every epoch visits distinct records, in a new order; the first --batches batches of each are redone with
   torchvision's own functional resized_crop + hflip of the PNG (PIL bilinear), from the box and flip pinshard drew:
   the box is recomputed here from the loader's seed stream (SplitMix64, as io.pinshard.loader.augment.CropBox
   does), so a pixel match also proves the box and flip;
3. box statistics: the same draw (SplitMix64) against torchvision's RandomResizedCrop.get_params, 100,000 boxes
   each: mean and quantiles of the box's area fraction, aspect ratio, and position, and the flip rate.

Usage: /usr/bin/python3 scripts/compare_fashion_mnist_crops.py [--data DIR] [--seed 42] [--batches 3]
"""
import argparse
import math
import os
import sys

import numpy as np
import torch
from PIL import Image
from torchvision import datasets, transforms
from torchvision.transforms import InterpolationMode
from torchvision.transforms import functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import pinshard  # noqa: E402

M64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
SCALE = (0.6, 1.0)
RATIO = (3 / 4, 4 / 3)


def mix(z):
    z &= M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def mix2(a, b):
    return mix(mix(a + GOLDEN) + b * GOLDEN)


def mix3(a, b, c):
    return mix2(mix2(a, b), c)


class SplitMix:
    """io.pinshard.loader.sample.SplitMix."""

    def __init__(self, seed):
        self.state = seed & M64

    def next_long(self):
        self.state = (self.state + GOLDEN) & M64
        return mix(self.state)

    def next_double(self):
        return (self.next_long() >> 11) * 2.0 ** -53

    def uniform(self, lo, hi):
        return lo + (hi - lo) * self.next_double()

    def next_int(self, bound):
        return ((self.next_long() >> 32) * bound) >> 32


def pinshard_box(height, width, seed, epoch, record):
    """CropBox.randomResized for sample `record` of `epoch`: (top, left, h, w, flip)."""
    r = SplitMix(mix3(seed, epoch, record))
    area = height * width
    for _ in range(10):
        target = area * r.uniform(*SCALE)
        aspect = math.exp(r.uniform(math.log(RATIO[0]), math.log(RATIO[1])))
        w = int(math.floor(math.sqrt(target * aspect) + 0.5))  # Java's Math.round
        h = int(math.floor(math.sqrt(target / aspect) + 0.5))
        if 0 < w <= width and 0 < h <= height:
            top = r.next_int(height - h + 1)
            left = r.next_int(width - w + 1)
            break
    else:
        top, left, h, w = 0, 0, height, width  # a square image is inside the ratio range
    return top, left, h, w, r.next_double() < 0.5


def check_eval(data, workers):
    tf = transforms.PILToTensor()
    folder = datasets.ImageFolder(os.path.join(data, "png", "test"), tf)
    worst = 0
    n = mismatched = 0
    with pinshard.serve(os.path.join(data, "test"), batch=500, crop=28, workers=workers, order="sequential",
                        eval=True, eval_crop_fraction=1.0) as ring:
        for batch in ring.epoch(0):
            for i in range(batch.images.shape[0]):
                record = int(batch.ids[i])
                expected, label = folder[record]
                got = batch.images[i].permute(2, 0, 1).to(torch.int16)
                diff = (got - expected.to(torch.int16)).abs().max().item()
                worst = max(worst, diff)
                mismatched += int(diff != 0 or int(batch.labels[i]) != label)
                n += 1
    print(f"eval: {n} test images, pinshard eval (fraction 1.0) vs ImageFolder + PILToTensor: {mismatched} differ "
          f"(largest pixel difference {worst}, labels included)")
    return folder


def check_train(data, seed, batches, workers, epochs=2):
    folder = datasets.ImageFolder(os.path.join(data, "png", "train"))
    targets = torch.tensor(folder.targets)
    diffs = []
    orders = []
    boxes_full = flips = 0
    with pinshard.serve(os.path.join(data, "train"), batch=128, crop=28, workers=workers, seed=seed, order="random",
                        scale=SCALE, ratio=RATIO, flip=0.5, extra_args=["--drop-last"]) as ring:
        for epoch in range(epochs):
            ids = []
            for b, batch in enumerate(ring.epoch(epoch)):
                ids.append(batch.ids.clone())
                for i in range(batch.images.shape[0] if b < batches else 0):
                    record = int(batch.ids[i])
                    image, label = folder[record]
                    assert int(batch.labels[i]) == label, f"record {record}: label {int(batch.labels[i])} vs {label}"
                    top, left, h, w, flip = pinshard_box(28, 28, seed, epoch, record)
                    boxes_full += int(h == 28 and w == 28)
                    flips += int(flip)
                    expected = F.resized_crop(image.convert("RGB"), top, left, h, w, [28, 28],
                                              InterpolationMode.BILINEAR)
                    if flip:
                        expected = F.hflip(expected)
                    expected = torch.from_numpy(np.asarray(expected, dtype=np.int16))
                    diffs.append((batch.images[i].to(torch.int16) - expected).abs().flatten())
            ids = torch.cat(ids)
            orders.append(ids)
            print(f"train epoch {epoch}: {ids.numel()} samples, {ids.unique().numel()} distinct records, class counts "
                  f"{targets[ids].bincount(minlength=10).tolist()}, first ids {ids[:5].tolist()}")
    same = [100 * (orders[e] == orders[e - 1]).float().mean().item() for e in range(1, epochs)]
    print("train: positions holding the same record as the epoch before: " + ", ".join(f"{v:.3f} %" for v in same))
    d = torch.cat(diffs).float()
    print(f"train: {len(diffs)} crops of epochs 0-{epochs - 1} (seed {seed}), pinshard vs torchvision resized_crop "
          f"(+ hflip) of the same box: mean |difference| {d.mean():.3f} grey levels, "
          f"{100 * (d > 0).float().mean():.1f} % of values differ, {100 * (d > 1).float().mean():.2f} % by more than "
          f"1, largest {int(d.max())}; {flips} flipped, {boxes_full} whole-image boxes")


def box_stats(seed, n=100_000):
    ours = np.array([pinshard_box(28, 28, seed, 0, r)[:5] for r in range(n)], dtype=np.float64)
    torch.manual_seed(seed)
    theirs = []
    dummy = torch.zeros(1, 28, 28)
    for _ in range(n):
        top, left, h, w = transforms.RandomResizedCrop.get_params(dummy, SCALE, RATIO)
        theirs.append((top, left, h, w, float(torch.rand(1) < 0.5)))
    theirs = np.array(theirs, dtype=np.float64)
    print(f"boxes: {n} draws each, pinshard (SplitMix64) | torchvision get_params (torch RNG):")
    for name, f in (("area fraction", lambda b: b[:, 2] * b[:, 3] / 784), ("aspect w/h", lambda b: b[:, 3] / b[:, 2]),
                    ("box centre x", lambda b: b[:, 1] + b[:, 3] / 2), ("box centre y", lambda b: b[:, 0] + b[:, 2] / 2),
                    ("flip", lambda b: b[:, 4])):
        a, t = f(ours), f(theirs)
        qa = " ".join(f"{v:.3f}" for v in np.quantile(a, [0.1, 0.5, 0.9]))
        qt = " ".join(f"{v:.3f}" for v in np.quantile(t, [0.1, 0.5, 0.9]))
        print(f"  {name:14s} mean {a.mean():.4f} | {t.mean():.4f}   q10/50/90 {qa} | {qt}")
    full_a = np.mean((ours[:, 2] == 28) & (ours[:, 3] == 28))
    full_t = np.mean((theirs[:, 2] == 28) & (theirs[:, 3] == 28))
    print(f"  whole image    {100 * full_a:.2f} % | {100 * full_t:.2f} %")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default=os.path.expanduser("~/.cache/pinshard/fashion-mnist"))
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--batches", type=int, default=3)
    p.add_argument("--workers", type=int, default=2)
    a = p.parse_args()
    check_eval(a.data, a.workers)
    check_train(a.data, a.seed, a.batches, a.workers)
    box_stats(a.seed)


if __name__ == "__main__":
    main()
