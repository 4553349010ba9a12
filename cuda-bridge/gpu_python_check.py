#!/usr/bin/env python3
"""The Python path of the GPU check (gpu-check.sh step 4/4): PinshardDataset(device="cuda", jitter=...) feeding a
few ResNet-18 steps (torchvision's; a small CNN when torchvision is missing) with the step log, then one table row:
images/s, data-wait % and mean GPU utilisation of the steps after the guard's warm-up window.

Needs torch with CUDA and the pinshard package with a way to start `pinshard serve` (the wheel, or PINSHARD_COMMAND);
gpu-check.sh runs it only then. Usage: gpu_python_check.py [--device cuda] [--steps 40] [--batch 64] [--crop 224]
[--workers N] [--dataset DIR] [--out DIR] (--device cpu runs the same on a machine without a GPU). Without --dataset it
writes random images with pinshard.write (convert needs OpenCV's natives there); gpu-check.sh passes the bundle's
photographs, raw and jpeg."""
import argparse
import json
import os
import tempfile
import time
from typing import Dict

import numpy as np
import torch

import pinshard
from pinshard import _jitter, _jitter_cuda
from pinshard._pixels import normalisation
from pinshard.torch import PinshardDataset

JITTER = {"brightness": 0.4, "contrast": 0.4, "saturation": 0.4, "hue": 0.1}
MEAN, STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)


def model_for(classes: int, device: str) -> torch.nn.Module:
    try:
        import torchvision
        return torchvision.models.resnet18(num_classes=classes).to(device)
    except ImportError:
        return torch.nn.Sequential(torch.nn.Conv2d(3, 32, 3, stride=2), torch.nn.ReLU(), torch.nn.AdaptiveAvgPool2d(1),
                                   torch.nn.Flatten(), torch.nn.Linear(32, classes)).to(device)


def train_step(model: torch.nn.Module, optimizer: torch.optim.Optimizer, images: torch.Tensor,
               labels: torch.Tensor) -> None:
    loss = torch.nn.functional.cross_entropy(model(images), labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()


def fused_matches_torch_operations(batch: int, crop: int) -> bool:
    """The fused CUDA jitter kernel (_jitter_cuda, what device="cuda" uses) against the torch operations it replaces
    (_jitter.to_training): the same float32 values, bit for bit, for every subset of the four jitters with and without
    grayscale in both layouts (8 images of 32 px), then every jitter on a full batch."""
    def differing(jitter: Dict[str, float], grey: float, layout: str, n: int, size: int) -> int:
        images = torch.randint(0, 256, (n, size, size, 3), dtype=torch.uint8,
                               generator=torch.Generator().manual_seed(n + size)).cuda()
        parsed = _jitter.parse(jitter, grey)
        if parsed is None:
            return 0
        f = _jitter.factors(parsed, 0, 0, np.arange(n))
        scale, shift = normalisation(MEAN, STD, layout, "cuda")
        fused = _jitter_cuda.to_training(images, torch.float32, layout, _jitter_cuda.host_normalisation(MEAN, STD, layout),
                                         f)
        if fused is None:
            raise RuntimeError("the fused jitter kernel is not available here: %s" % _jitter_cuda._FAILED.get("reason"))
        return int((fused != _jitter.to_training(images, torch.float32, layout, scale, shift, f, n)).sum().item())

    failures = []
    for mask in range(16):
        subset = {name: value for k, (name, value) in enumerate(JITTER.items()) if mask >> k & 1}
        for grey in (0.0, 0.5):
            for layout in ("NCHW", "NHWC"):
                differ = differing(subset, grey, layout, 8, 32)
                if differ:
                    failures.append("%s grayscale %s %s: %d values differ" % (sorted(subset), grey, layout, differ))
    differ = differing(JITTER, 0.5, "NCHW", batch, crop)
    print("fused jitter kernel vs torch operations: 64 combinations of jitters, grayscale and layout, %d differ; a %d x"
          " %d x %d batch with every jitter: %d values differ" % (len(failures), batch, crop, crop, differ))
    for failure in failures:
        print("  " + failure)
    return not failures and differ == 0


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--crop", type=int, default=224)
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--dataset", default=None, help="an existing dataset (default: random images written here)")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    out = args.out or tempfile.mkdtemp(prefix="pinshard-gpu-python-")
    os.makedirs(out, exist_ok=True)
    dataset, log = args.dataset or os.path.join(out, "data"), os.path.join(out, "steps.jsonl")
    if os.path.exists(log):
        os.remove(log)  # one run's steps: the figures below read this log whole
    records = args.batch * 8
    if args.dataset is None and not os.path.exists(os.path.join(dataset, "manifest.json")):
        rng = np.random.default_rng(0)
        pinshard.write(dataset, ((rng.integers(0, 256, (256, 320, 3), dtype=np.uint8), i % 10) for i in
                                 range(records)), codec="raw", progress="none")
    if args.device.startswith("cuda") and not fused_matches_torch_operations(args.batch, args.crop):
        return 1
    window = max(1, args.steps // 4)
    ds = PinshardDataset(dataset, batch_size=args.batch, crop=args.crop, workers=args.workers, device=args.device,
                         mean=MEAN, std=STD, step_log=log, job="gpu-check", data_wait_window=window, drop_last=True,
                         jitter=JITTER, grayscale=0.1)
    model = model_for(1000, args.device)  # ImageNet's head: any dataset's labels fit
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    steps, epoch, start = 0, 0, time.perf_counter()
    while steps < args.steps:
        ds.set_epoch(epoch)
        for images, labels in ds:
            train_step(model, optimizer, images, labels)
            steps += 1
            if steps >= args.steps:
                break
        epoch += 1
    if args.device.startswith("cuda"):
        torch.cuda.synchronize()
    elapsed = time.perf_counter() - start
    ds.close()
    with open(log, encoding="utf-8") as f:
        lines = [json.loads(line) for line in f]
    judged = [line for line in lines if not line["warmup"]] or lines
    step_s = sum(line["step_s"] for line in judged)
    wait_s = sum(line["data_wait_s"] for line in judged)
    utils = [line["gpu_util"] for line in judged if line["gpu_util"] is not None]
    print("%-44s %12s %12s %12s" % ("python path (PinshardDataset, jitter)", "images/s", "data-wait", "GPU util"))
    print("%-44s %12.1f %11.1f%% %12s" % (
        "%s %s, batch %d, crop %d, %d steps" % (args.device, os.path.basename(os.path.normpath(dataset)), args.batch,
                                                args.crop, steps),
        sum(line["images"] for line in judged) / step_s if step_s > 0 else 0.0,
        100 * wait_s / step_s if step_s > 0 else 0.0,
        "%.0f %%" % (sum(utils) / len(utils)) if utils else "null"))
    print("gpu-python-check: %d steps in %.1f s; step log %s" % (steps, elapsed, log))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
