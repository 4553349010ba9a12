"""Seconds per batch of pinshard.torch.to_training on this CPU: uint8 NHWC ring batch -> normalised NCHW tensor.
Usage: /usr/bin/python3 scripts/bench_torch_convert.py [--batch 256] [--crop 224] [--threads N] [--rounds 10]"""

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

import torch  # noqa: E402

from pinshard.torch import normalisation, to_training  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("--batch", type=int, default=256)
parser.add_argument("--crop", type=int, default=224)
parser.add_argument("--threads", type=int, default=torch.get_num_threads())
parser.add_argument("--rounds", type=int, default=10)
args = parser.parse_args()
torch.set_num_threads(args.threads)
images = torch.randint(0, 256, (args.batch, args.crop, args.crop, 3), dtype=torch.uint8)
print("batch %d x %d x %d x 3, %d torch threads" % (args.batch, args.crop, args.crop, args.threads))
for dtype, layout in ((torch.float32, "NCHW"), (torch.bfloat16, "NCHW"), (torch.float16, "NCHW"),
                      (torch.float32, "NHWC"), (torch.uint8, "NCHW")):
    scale, shift = normalisation((0.485, 0.456, 0.406), (0.229, 0.224, 0.225), layout)
    to_training(images, dtype, layout, scale, shift)  # warm-up
    times = []
    for _ in range(args.rounds):
        started = time.perf_counter()
        to_training(images, dtype, layout, scale, shift)
        times.append(time.perf_counter() - started)
    best = min(times)
    print("%-15s %s: median %.1f ms, best %.1f ms per batch = %.0f images/s"
          % (str(dtype), layout, sorted(times)[len(times) // 2] * 1000, best * 1000, args.batch / best))
