#!/usr/bin/python3
"""Writes N random 16x16 RGB PNGs into OUT/a and OUT/b (alternating, img0000000.png ...), seed 27: the inputs of the
many-shards benchmarks (scripts/bench-many-shards.sh, scripts/bench-merge-parts.sh). Usage: tiny_pngs.py OUT N
(run from outside the checkout: its torch/ folder would shadow the torch package for a python that imports it)."""
import os
import random
import sys

from PIL import Image

out, n = sys.argv[1], int(sys.argv[2])
rng = random.Random(27)
for c in ("a", "b"):
    os.makedirs(os.path.join(out, c), exist_ok=True)
for i in range(n):
    img = Image.frombytes("RGB", (16, 16), bytes(rng.getrandbits(8) for _ in range(16 * 16 * 3)))
    img.save(os.path.join(out, "ab"[i % 2], "img%07d.png" % i))
