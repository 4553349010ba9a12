#!/usr/bin/env python3
"""Where the Python GPU path's time goes (gpu-check.sh --profile): a profile of PinshardDataset(device="cuda",
jitter) feeding ResNet-18, to explain the data-wait the step log reports.

Prints, on one GPU:
1. the colour jitter's conversion of one batch (uint8 NHWC on the GPU -> float32 NCHW normalised) by the fused kernel
   (_jitter_cuda) and by torch operations (_jitter): GPU ms (CUDA events), host ms to launch it, and how far apart the
   two results are (max |difference|, share of values bit-equal);
2. ResNet-18 alone on a batch already on the GPU: images/s, and the host ms to launch one step with an idle GPU (the
   training loop is GPU-bound when that is well under the step's GPU time);
3. the whole loop (PinshardDataset + ResNet-18) for each conversion (fused jitter, torch-operation jitter, no jitter):
   images/s against the model alone, data-wait (the step log's, and split: waiting for the ring's next batch, waiting
   on the previous copy's event, launching the conversion, the rest of PinshardDataset's step);
4. torch.profiler's top host operations over ten steps of the fused loop.
Usage: gpu_python_profile.py --dataset DIR [--batch 128] [--steps 120] [--out DIR]
"""
import argparse
import json
import os
import tempfile
import time
from typing import Any, Callable, Dict, List

import torch

from pinshard import _batch, _jitter, _jitter_cuda
from pinshard._pixels import normalisation, to_training
from pinshard.torch import PinshardDataset

from gpu_python_check import JITTER, MEAN, STD, fused_matches_torch_operations, train_step


def gpu_ms(run: Callable[[], Any], repeats: int = 20) -> Dict[str, float]:
    """GPU ms per call (events around `repeats` calls) and host ms to launch one call with an idle GPU."""
    for _ in range(3):
        run()
    torch.cuda.synchronize()
    launch = []
    for _ in range(5):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        run()
        launch.append((time.perf_counter() - t0) * 1000)
    torch.cuda.synchronize()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(repeats):
        run()
    stop.record()
    stop.synchronize()
    return {"gpu_ms": start.elapsed_time(stop) / repeats, "launch_ms": sorted(launch)[len(launch) // 2]}


def conversion(batch: int, crop: int) -> None:
    print("== 1. the jitter's conversion of one batch (%d x %d x %d x 3 uint8 -> float32 NCHW)" % (batch, crop, crop))
    fused_matches_torch_operations(batch, crop)
    g = torch.Generator().manual_seed(0)
    images = torch.randint(0, 256, (batch, crop, crop, 3), dtype=torch.uint8, generator=g).cuda()
    parsed = _jitter.parse(JITTER, 0.1)
    f = _jitter.factors(parsed, 0, 0, torch.arange(batch).numpy())
    scale, shift = normalisation(MEAN, STD, "NCHW", "cuda")
    values = _jitter_cuda.host_normalisation(MEAN, STD, "NCHW")
    fused = _jitter_cuda.to_training(images, torch.float32, "NCHW", values, f)
    if fused is None:
        print("fused kernel: not available (%s)" % _jitter_cuda._FAILED.get("reason"))
    rows = [("torch operations (_jitter.to_training)",
             lambda: _jitter.to_training(images, torch.float32, "NCHW", scale, shift, f, batch)),
            ("normalisation only (_pixels.to_training)",
             lambda: to_training(images, torch.float32, "NCHW", scale, shift))]
    if fused is not None:
        rows.insert(0, ("fused kernel (_jitter_cuda.to_training)",
                        lambda: _jitter_cuda.to_training(images, torch.float32, "NCHW", values, f)))
    for name, run in rows:
        figures = gpu_ms(run)
        print("%-44s GPU %7.3f ms   host launch %7.3f ms" % (name, figures["gpu_ms"], figures["launch_ms"]))


def model(classes: int = 1000) -> torch.nn.Module:
    import torchvision
    return torchvision.models.resnet18(num_classes=classes).cuda()


def model_alone(batch: int, crop: int, steps: int) -> float:
    print("== 2. ResNet-18 alone, batch %d, data on the GPU" % batch)
    net = model()
    optimizer = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    images = torch.randn(batch, 3, crop, crop, device="cuda")
    labels = torch.randint(0, 1000, (batch,), device="cuda")

    figures = gpu_ms(lambda: train_step(net, optimizer, images, labels), repeats=steps)
    rate = batch * 1000.0 / figures["gpu_ms"]
    print("images/s %.1f; step %.2f ms on the GPU, %.2f ms to launch from the host with an idle GPU"
          % (rate, figures["gpu_ms"], figures["launch_ms"]))
    return rate


class Timers:
    """Host seconds spent in the wrapped calls during the loop."""

    def __init__(self) -> None:
        self.seconds: Dict[str, float] = {}
        self._undo: List[Callable[[], None]] = []

    def wrap(self, owner: Any, name: str, label: str) -> None:
        original = getattr(owner, name)

        def timed(*args: Any, **kwargs: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                self.seconds[label] = self.seconds.get(label, 0.0) + time.perf_counter() - t0

        setattr(owner, name, timed)
        self._undo.append(lambda: setattr(owner, name, original))

    def undo(self) -> None:
        for undo in reversed(self._undo):
            undo()


def loop(dataset: str, batch: int, crop: int, steps: int, out: str, variant: str, alone: float,
         profile: bool = False) -> None:
    log = os.path.join(out, "steps-%s.jsonl" % variant)
    if os.path.exists(log):
        os.remove(log)
    jitter = None if variant == "no jitter" else JITTER
    if variant == "torch-operation jitter":
        _jitter_cuda._FAILED["reason"] = "switched off for the comparison"
    ds = PinshardDataset(dataset, batch_size=batch, crop=crop, device="cuda", mean=MEAN, std=STD, step_log=log,
                         job="profile", data_wait_window=max(1, steps // 4), drop_last=True, jitter=jitter,
                         grayscale=None if jitter is None else 0.1)
    net = model()
    optimizer = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    timers = Timers()
    done, epoch = 0, 0
    t_start = 0.0
    warm = max(10, steps // 4)
    prof = None
    try:
        while done < steps + warm:
            ds.set_epoch(epoch)
            for images, labels in ds:
                train_step(net, optimizer, images, labels)
                done += 1
                if done == warm:
                    torch.cuda.synchronize()
                    t_start = time.perf_counter()
                    timers.wrap(_batch.Epoch, "__next__", "ring: next batch")
                    timers.wrap(torch.cuda.Event, "synchronize", "previous copy's event")
                    timers.wrap(ds, "_convert", "conversion launch")
                    if profile:
                        prof = torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU,
                                                                  torch.profiler.ProfilerActivity.CUDA])
                        prof.__enter__()
                if prof is not None and done == warm + 10:
                    prof.__exit__(None, None, None)
                    torch.cuda.synchronize()
                    t_start = time.perf_counter()  # the profiler's steps are not counted
                    timers.seconds.clear()
                if done >= steps + warm:
                    break
            epoch += 1
        torch.cuda.synchronize()
        elapsed = time.perf_counter() - t_start
    finally:
        timers.undo()
        _jitter_cuda._FAILED.clear()
        ds.close()
    counted = steps - (10 if prof is not None else 0)
    rate = counted * batch / elapsed
    with open(log, encoding="utf-8") as f:
        lines = [json.loads(line) for line in f]
    judged = [line for line in lines if not line["warmup"]][-counted:] or lines
    step_s = sum(line["step_s"] for line in judged)
    wait_s = sum(line["data_wait_s"] for line in judged)
    print("%-24s images/s %8.1f = %.3fx the model alone; data-wait (step log) %.1f %%; per step: %s" % (
        variant, rate, rate / alone, 100 * wait_s / step_s if step_s else 0.0,
        ", ".join("%s %.2f ms" % (k, 1000 * v / counted) for k, v in sorted(timers.seconds.items()))))
    if prof is not None:
        print("torch.profiler, 10 steps of '%s', top host time:" % variant)
        print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=18, max_name_column_width=48))
        print("top GPU time:")
        print(prof.key_averages().table(sort_by="self_cuda_time_total", row_limit=12, max_name_column_width=48))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dataset", required=True)
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--crop", type=int, default=224)
    parser.add_argument("--steps", type=int, default=120)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    out = args.out or tempfile.mkdtemp(prefix="pinshard-gpu-profile-")
    os.makedirs(out, exist_ok=True)
    print("torch %s on %s; jiterator %s" % (torch.__version__, torch.cuda.get_device_name(0),
                                           "present" if _jitter_cuda._has_jiterator() else "absent"))
    torch.backends.cudnn.benchmark = True
    conversion(args.batch, args.crop)
    alone = model_alone(args.batch, args.crop, 40)
    print("== 3. PinshardDataset(device='cuda') + ResNet-18, %s, batch %d, %d steps after warm-up"
          % (os.path.basename(os.path.normpath(args.dataset)), args.batch, args.steps))
    for variant in ("fused jitter", "torch-operation jitter", "no jitter"):
        loop(args.dataset, args.batch, args.crop, args.steps, out, variant, alone)
    print("== 4. profile")
    loop(args.dataset, args.batch, args.crop, 30, out, "fused jitter", alone, profile=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
