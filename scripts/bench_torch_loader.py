#!/usr/bin/python3
"""PyTorch DataLoader baseline for `pinshard bench`: the same images as JPEG files in an ImageFolder tree,
torchvision RandomResizedCrop + RandomHorizontalFlip + PILToTensor, uint8 batches, loader-only (the
"trainer" only takes each batch). Prints one JSON object like `pinshard bench --json`.

Usage: /usr/bin/python3 scripts/bench_torch_loader.py DIR [--batch 256] [--crop 224] [--workers 2] [--seconds 10]
"""
import argparse
import json
import time

import torch
import torchvision
from torchvision import transforms


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("dir")
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--crop", type=int, default=224)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--warmup", type=float, default=2)
    args = parser.parse_args()
    torch.set_num_threads(1)
    transform = transforms.Compose([
        transforms.RandomResizedCrop(args.crop),
        transforms.RandomHorizontalFlip(),
        transforms.PILToTensor(),
    ])
    dataset = torchvision.datasets.ImageFolder(args.dir, transform=transform)
    # persistent_workers: no process start-up per epoch (the most favourable setting for the baseline).
    loader = torch.utils.data.DataLoader(dataset, batch_size=args.batch, shuffle=True, num_workers=args.workers,
                                         persistent_workers=args.workers > 0, prefetch_factor=2 if args.workers else None)
    def run(until):
        images = batches = 0
        while time.perf_counter() < until:
            for images_batch, labels in loader:
                images += images_batch.shape[0]
                batches += 1
        return images, batches

    run(time.perf_counter() + args.warmup)
    start = time.perf_counter()
    images, batches = run(start + args.seconds)
    elapsed = time.perf_counter() - start
    print(json.dumps({"loader": "pytorch", "torch": torch.__version__, "torchvision": torchvision.__version__,
                      "images_per_s": images / elapsed, "mb_per_s": images * args.crop * args.crop * 3 / 1e6 / elapsed,
                      "workers": args.workers, "batch": args.batch, "crop": args.crop, "images": images,
                      "batches": batches, "seconds": elapsed, "records": len(dataset)}))


if __name__ == "__main__":
    main()
