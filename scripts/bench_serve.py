#!/usr/bin/python3
"""The PyTorch side of scripts/bench-serve.sh: a training loop fed by torch's DataLoader or by pinshard's Python
client over `pinshard serve`, or the client alone (loader-only, like `pinshard bench`). Prints one JSON object.

  bench_serve.py loader DATASET --seconds 10                       client loop that only takes and releases
  bench_serve.py train pinshard DATASET --steps 40                 tiny CNN fed by pinshard serve
  bench_serve.py train pytorch JPEG_FOLDER --steps 40              the same CNN fed by DataLoader(2 workers)

Data-wait % is the time the loop waited for its next batch over the loop's total time, as the seed's
DataWaitMonitor counts it (10 % is its warning line).
"""
import argparse
import json
import os
import resource
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import pinshard  # noqa: E402


def tiny_cnn():
    """Small enough that two cores' step does not hide the loader; big enough to be a real step."""
    return torch.nn.Sequential(
        torch.nn.AvgPool2d(4),  # 224 -> 56 first: the step stays tens of ms on one core
        torch.nn.Conv2d(3, 8, kernel_size=3, stride=2, padding=1), torch.nn.ReLU(),
        torch.nn.Conv2d(8, 16, kernel_size=3, stride=2, padding=1), torch.nn.ReLU(),
        torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(16, 10))


def serve_options(args):
    return dict(batch=args.batch, crop=args.crop, workers=args.workers, seed=args.seed)


def pinshard_batches(ring):
    epoch = 0
    while True:
        for images, labels in ring.epoch(epoch):
            # NHWC uint8 view of the ring -> NCHW (a view too) for the model
            yield images.permute(0, 3, 1, 2), labels
        epoch += 1


def pytorch_batches(directory, args):
    import torchvision
    from torchvision import transforms
    transform = transforms.Compose([transforms.RandomResizedCrop(args.crop), transforms.RandomHorizontalFlip(),
                                    transforms.PILToTensor()])
    dataset = torchvision.datasets.ImageFolder(directory, transform=transform)
    loader = torch.utils.data.DataLoader(dataset, batch_size=args.batch, shuffle=True, num_workers=args.workers,
                                         persistent_workers=True, prefetch_factor=2)
    while True:
        for images, labels in loader:
            yield images, labels


def train(batches, args, source):
    torch.manual_seed(args.seed)
    model = tiny_cnn()
    optimiser = torch.optim.SGD(model.parameters(), lr=0.01)
    mean = torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1) * 255
    std = torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1) * 255
    for _ in range(args.warmup_steps):
        next(batches)
    waited = 0.0
    images_seen = 0
    start = time.perf_counter()
    for step in range(args.steps):
        asked = time.perf_counter()
        images, labels = next(batches)
        waited += time.perf_counter() - asked
        if not args.noop:
            x = (images.float() - mean) / std
            loss = torch.nn.functional.cross_entropy(model(x), labels.long() % 10)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
        images_seen += images.shape[0]
    elapsed = time.perf_counter() - start
    return {"loader": source, "mode": "noop step" if args.noop else "tiny CNN step", "steps": args.steps,
            "images_per_s": images_seen / elapsed, "data_wait_pct": 100 * waited / elapsed,
            "step_ms": 1000 * (elapsed - waited) / args.steps, "workers": args.workers, "batch": args.batch,
            "crop": args.crop, "seconds": elapsed}


def thread_cpu_seconds(pid):
    """CPU seconds per thread name of process `pid` (names as /proc shows them: 15 characters)."""
    ticks = os.sysconf("SC_CLK_TCK")
    totals = {}
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/stat" % (pid, tid)) as f:
                stat = f.read()
        except OSError:
            continue
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        totals[name] = totals.get(name, 0.0) + (int(fields[11]) + int(fields[12])) / ticks
    return totals


def process_cpu_seconds(pid):
    """CPU seconds of process `pid`, threads that ended included."""
    with open("/proc/%d/stat" % pid) as f:
        stat = f.read()
    fields = stat[stat.rindex(")") + 2:].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def bridge_cpu(server_pid, before, client_before):
    """The bridge's CPU (the client process + the server's control thread) against the rest of the server (its
    loader workers, which end with each epoch, plus the JVM's own threads)."""
    after = thread_cpu_seconds(server_pid)
    publisher = after.get("serve-publisher", 0.0) - before.get("serve-publisher", 0.0)
    control = after.get("serve-control", 0.0) - before.get("serve-control", 0.0)
    workers = process_cpu_seconds(server_pid) - before["__process__"] - publisher - control
    usage = resource.getrusage(resource.RUSAGE_SELF)
    client = usage.ru_utime + usage.ru_stime - client_before
    # The publisher is the loader's consumer, as `pinshard bench`'s main thread is: the bridge adds the rest.
    return {"worker_cpu_s": workers, "publisher_cpu_s": publisher, "control_cpu_s": control, "client_cpu_s": client,
            "bridge_cpu_pct_of_workers": 100 * (control + client) / workers if workers else 0.0}


def loader_only(args):
    """Takes and releases batches for `seconds` after `warmup`, whole epochs, like `pinshard bench`."""
    with pinshard.serve(args.dataset, **serve_options(args)) as ring:
        epoch = 0
        images = 0
        warm_end = time.perf_counter() + args.warmup
        while time.perf_counter() < warm_end:
            for _ in ring.epoch(epoch):
                pass
            epoch += 1
        server_pid = ring.server_pid
        cpu_before = thread_cpu_seconds(server_pid)
        cpu_before["__process__"] = process_cpu_seconds(server_pid)
        usage = resource.getrusage(resource.RUSAGE_SELF)
        client_before = usage.ru_utime + usage.ru_stime
        start = time.perf_counter()
        end = start + args.seconds
        start_ptr, end_ptr = ring.address_range()
        inside = True
        while time.perf_counter() < end:
            for images_batch, labels in ring.epoch(epoch):
                images += images_batch.shape[0]
                inside = inside and start_ptr <= images_batch.data_ptr() < end_ptr
            epoch += 1
        elapsed = time.perf_counter() - start
        cpu = bridge_cpu(server_pid, cpu_before, client_before)
    return {"loader": "python client over pinshard serve", "images_per_s": images / elapsed,
            "zero_copy": inside, **cpu, "workers": args.workers, "batch": args.batch, "crop": args.crop,
            "seconds": elapsed, "epochs": epoch}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("what", choices=["loader", "train"])
    parser.add_argument("source", nargs="?", choices=["pinshard", "pytorch"], default="pinshard")
    parser.add_argument("dataset")
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--crop", type=int, default=224)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--warmup", type=float, default=2)
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--warmup-steps", type=int, default=3)
    parser.add_argument("--noop", action="store_true", help="no model: measure the loader alone")
    args = parser.parse_args()
    torch.set_num_threads(1)
    if args.what == "loader":
        result = loader_only(args)
    elif args.source == "pytorch":
        result = train(pytorch_batches(args.dataset, args), args, "pytorch DataLoader")
    else:
        with pinshard.serve(args.dataset, **serve_options(args)) as ring:
            result = train(pinshard_batches(ring), args, "pinshard serve + python client")
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
