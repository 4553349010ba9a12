#!/usr/bin/python3
"""The PyTorch baseline of the pinshard Fashion-MNIST training example (io.pinshard.examples.torch.TrainFashionMnist).

Same model, augmentation, optimizer, batch size, epochs and per-step log format. With --loader torch (the default)
the images come from the PNG ImageFolder trees of scripts/fetch-fashion-mnist.sh through torchvision's ImageFolder +
DataLoader; with --loader pinshard they come from the pinshard datasets of the same script through `pinshard serve`
and the Python client (python/pinshard), with the Java example's crops (train: random-resized-crop, same scale and
ratio, flip 0.5, drop last; test: eval mode, eval crop fraction 1.0, i.e. the stored images): that separates the
loader from the trainer when the two examples disagree. --loader dataset is the same through
`pinshard.torch.PinshardDataset` (the package's IterableDataset: its server, its float32 NCHW normalised batches),
the way a PyTorch user would write it.
Usage: /usr/bin/python3 scripts/train_fashion_mnist_torch.py [--loader torch|pinshard|dataset] [--data DIR] [--epochs 5]
       [--log FILE] ...
"""
import argparse
import contextlib
import math
import os
import random
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Subset
from torchvision import datasets, transforms

# Fashion-MNIST's pixel mean and standard deviation (0..1 scale), the same constants as the Java example.
MEAN, STD = 0.2860, 0.3530
RATIO = (3 / 4, 4 / 3)


class Net(nn.Module):
    """conv3x3(3->32)-BN-ReLU-pool, conv3x3(32->64)-BN-ReLU-pool, conv3x3(64->128)-BN-ReLU-pool, fc 1152->256->10."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 32, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(32)
        self.conv2 = nn.Conv2d(32, 64, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(64)
        self.conv3 = nn.Conv2d(64, 128, 3, padding=1, bias=False)
        self.bn3 = nn.BatchNorm2d(128)
        self.fc1 = nn.Linear(128 * 3 * 3, 256)
        self.fc2 = nn.Linear(256, 10)

    def features(self, x):
        """The 256 features before the classifier (the contrastive example's image embedding starts here)."""
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)  # 28 -> 14
        x = F.max_pool2d(F.relu(self.bn2(self.conv2(x))), 2)  # 14 -> 7
        x = F.max_pool2d(F.relu(self.bn3(self.conv3(x))), 2)  # 7 -> 3
        return F.relu(self.fc1(torch.flatten(x, 1)))

    def forward(self, x):
        return self.fc2(self.features(x))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default=os.path.expanduser("~/.cache/pinshard/fashion-mnist"))
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--batch", type=int, default=128)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--scale", type=float, nargs=2, default=[0.6, 1.0])
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--train-limit", type=int, default=0, help="use the first N training images (0: all)")
    p.add_argument("--steps-per-epoch", type=int, default=0, help="stop each epoch after N batches (0: all)")
    p.add_argument("--print-every", type=int, default=100)
    p.add_argument("--log", default="")
    p.add_argument("--loader", choices=("torch", "pinshard", "dataset"), default="torch",
                   help="torchvision ImageFolder + DataLoader, pinshard serve through python/pinshard's Ring, or "
                        "python/pinshard's PinshardDataset")
    a = p.parse_args()
    torch.manual_seed(a.seed)
    random.seed(a.seed)
    np.random.seed(a.seed)
    torch.set_num_threads(a.threads)
    torch.use_deterministic_algorithms(True)

    with contextlib.ExitStack() as stack:
        if a.loader == "torch":
            train, test, n_train, n_test = torch_loaders(a)
        elif a.loader == "dataset":
            train, test, n_train, n_test = dataset_loaders(a, stack)
        else:
            train, test, n_train, n_test = pinshard_loaders(a, stack)
        train_and_score(a, train, test, n_train, n_test)


def torch_loaders(a):
    """torchvision's ImageFolder over the PNG trees, DataLoader with 2 worker processes."""
    train_tf = transforms.Compose([
        transforms.RandomResizedCrop(28, scale=tuple(a.scale), ratio=RATIO),
        transforms.RandomHorizontalFlip(),
        transforms.ToTensor(),
        transforms.Normalize((MEAN,) * 3, (STD,) * 3)])
    eval_tf = transforms.Compose([transforms.ToTensor(), transforms.Normalize((MEAN,) * 3, (STD,) * 3)])
    train_set = datasets.ImageFolder(os.path.join(a.data, "png", "train"), train_tf)
    test_set = datasets.ImageFolder(os.path.join(a.data, "png", "test"), eval_tf)
    if train_set.classes != test_set.classes:
        sys.exit("train and test class lists differ")
    if a.train_limit:
        train_set = Subset(train_set, range(a.train_limit))
    g = torch.Generator()
    g.manual_seed(a.seed)
    train = DataLoader(train_set, batch_size=a.batch, shuffle=True, drop_last=True, num_workers=a.workers,
                       persistent_workers=a.workers > 0, generator=g)
    test = DataLoader(test_set, batch_size=500, shuffle=False, num_workers=a.workers)
    return (lambda epoch: iter(train)), (lambda: iter(test)), len(train_set), len(test_set)


def pinshard_loaders(a, stack):
    """`pinshard serve` on the pinshard datasets, with the Java example's loader options; batches are normalised
    here as ToTensor + Normalize would (contiguous NCHW float32, int64 labels)."""
    if a.train_limit:
        sys.exit("--train-limit works with --loader torch only")
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
    import pinshard
    train_ring = stack.enter_context(pinshard.serve(
        os.path.join(a.data, "train"), batch=a.batch, crop=28, workers=a.workers, seed=a.seed, order="random",
        scale=tuple(a.scale), ratio=RATIO, flip=0.5, extra_args=["--drop-last"]))
    test_ring = stack.enter_context(pinshard.serve(
        os.path.join(a.data, "test"), batch=500, crop=28, workers=a.workers, order="sequential", eval=True,
        eval_crop_fraction=1.0))

    def batches(ring, epoch):
        stream = ring.epoch(epoch)
        try:
            for images, labels in stream:  # views of the ring: the float conversion copies them out
                x = images.permute(0, 3, 1, 2).float().div_(255).sub_(MEAN).div_(STD).contiguous()
                yield x, labels.long()
        finally:
            stream.close()  # releases the last batch, also when --steps-per-epoch stops the epoch early

    return ((lambda epoch: batches(train_ring, epoch)), (lambda: batches(test_ring, 0)),
            train_ring.samples_per_epoch, test_ring.samples_per_epoch)


def dataset_loaders(a, stack):
    """`pinshard.torch.PinshardDataset` on the same datasets with the same options as `pinshard_loaders`: it
    normalises itself (float32 NCHW, (x / 255 - mean) / std per channel) and yields int64 labels."""
    if a.train_limit:
        sys.exit("--train-limit works with --loader torch only")
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
    from pinshard.torch import PinshardDataset
    common = dict(crop=28, workers=a.workers, mean=(MEAN,) * 3, std=(STD,) * 3)
    train_ds = stack.enter_context(PinshardDataset(
        os.path.join(a.data, "train"), batch_size=a.batch, seed=a.seed, order="random", scale=tuple(a.scale),
        ratio=RATIO, flip=0.5, drop_last=True, **common))
    test_ds = stack.enter_context(PinshardDataset(
        os.path.join(a.data, "test"), batch_size=500, order="sequential", eval=True,
        server_options={"eval_crop_fraction": 1.0}, **common))

    def train(epoch):
        train_ds.set_epoch(epoch)
        return iter(train_ds)

    return (train, (lambda: iter(test_ds)), len(train_ds) * a.batch,
            test_ds._ring().samples_per_epoch)  # drop last: len() batches of a.batch


def train_and_score(a, train, test, n_train, n_test):
    model = Net()
    opt = torch.optim.Adam(model.parameters(), lr=a.lr)
    per_epoch = n_train // a.batch  # drop_last
    total_steps = a.epochs * (min(a.steps_per_epoch, per_epoch) if a.steps_per_epoch else per_epoch)
    log = open(a.log, "w") if a.log else None
    source = {"torch": "DataLoader", "pinshard": "pinshard serve loader", "dataset": "PinshardDataset"}[a.loader]
    print(f"pytorch {torch.__version__}: {n_train} train / {n_test} test images, batch {a.batch}, "
          f"{a.epochs} epochs, {a.workers} {source} workers, {a.threads} torch threads, "
          f"RandomResizedCrop scale {a.scale[0]}-{a.scale[1]} + flip, Adam lr {a.lr} (cosine to 0), seed {a.seed}")
    started = time.perf_counter()
    step = 0
    total_wait = total_step = 0.0
    for epoch in range(a.epochs):
        model.train()
        it = train(epoch)
        last_wait_end = None
        for _ in range(a.steps_per_epoch or sys.maxsize):
            w0 = time.perf_counter()
            try:
                images, labels = next(it)
            except StopIteration:
                break
            w1 = time.perf_counter()
            wait = w1 - w0
            # step time as the loader's DataWaitMonitor counts it: from the end of one wait to the end of the next
            step_s = wait if last_wait_end is None else w1 - last_wait_end
            if last_wait_end is not None:
                total_wait += wait
                total_step += step_s
            last_wait_end = w1
            # the Java example's FashionMnistTraining.cosineLearningRate, step for step
            for group in opt.param_groups:
                group["lr"] = a.lr * 0.5 * (1 + math.cos(math.pi * step / total_steps))
            opt.zero_grad()
            loss = F.cross_entropy(model(images), labels)
            loss.backward()
            opt.step()
            line = (f"step {step} epoch {epoch} loss {loss.item():.5f} step_ms {step_s * 1e3:.2f} "
                    f"wait_ms {wait * 1e3:.2f} wait_pct {100 * wait / step_s:.1f}")
            if log:
                log.write(line + "\n")
            if a.print_every and step % a.print_every == 0:
                print(line, flush=True)
            step += 1
        if a.steps_per_epoch and hasattr(it, "close"):
            it.close()
        acc = evaluate(model, test)
        print(f"epoch {epoch}: test top-1 {100 * acc:.2f} % ({time.perf_counter() - started:.1f} s)", flush=True)
    wall = time.perf_counter() - started
    print(f"final: test top-1 {100 * acc:.2f} % after {a.epochs} epochs, wall {wall:.1f} s, "
          f"data-wait {100 * total_wait / max(total_step, 1e-9):.1f} % of step time")
    if log:
        log.close()


def evaluate(model, test):
    model.eval()
    correct = n = 0
    with torch.no_grad():
        for images, labels in test():
            correct += (model(images).argmax(1) == labels).sum().item()
            n += labels.numel()
    return correct / n


if __name__ == "__main__":
    main()
