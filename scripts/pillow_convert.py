#!/usr/bin/python3
"""Baseline for scripts/bench-convert.sh: the pinshard convert job done by Pillow in one process.

For every image under ROOT (sorted): Image.draft (reduced JPEG decode, same reducing gap as pinshard),
RGB, LANCZOS resize to shorter side N, JPEG save (quality Q) appended to one output file.
Prints "images=<n> bytes_in=<b> bytes_out=<b> seconds=<s>".
Usage: /usr/bin/python3 pillow_convert.py ROOT OUT_FILE [--shorter-side 320] [--quality 90] [--reducing-gap 2]
"""
import argparse
import io
import math
import os
import sys
import time

from PIL import Image

EXTENSIONS = {".jpg", ".jpeg", ".png", ".webp", ".bmp", ".tif", ".tiff"}


def inputs(root):
    found = []
    for directory, dirs, files in os.walk(root, followlinks=True):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            if not name.startswith(".") and os.path.splitext(name)[1].lower() in EXTENSIONS:
                found.append(os.path.join(directory, name))
    return found


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("root")
    parser.add_argument("out")
    parser.add_argument("--shorter-side", type=int, default=320)
    parser.add_argument("--quality", type=int, default=90)
    parser.add_argument("--reducing-gap", type=float, default=2.0)
    args = parser.parse_args()
    target = args.shorter_side
    files = inputs(args.root)
    start = time.perf_counter()
    bytes_in = bytes_out = converted = 0
    with open(args.out, "wb") as out:
        for path in files:
            bytes_in += os.path.getsize(path)
            try:
                with Image.open(path) as im:
                    w, h = im.size
                    shorter = min(w, h)
                    if args.reducing_gap > 0 and shorter > target:
                        scale = target * args.reducing_gap / shorter
                        im.draft("RGB", (math.ceil(w * scale), math.ceil(h * scale)))
                    im = im.convert("RGB")
                    if shorter > target:
                        size = (round(w * target / shorter), round(h * target / shorter))
                        im = im.resize(size, Image.LANCZOS)
                    buffer = io.BytesIO()
                    im.save(buffer, "JPEG", quality=args.quality)
                    out.write(buffer.getbuffer())
                    bytes_out += buffer.tell()
                    converted += 1
            except Exception as error:  # the baseline skips what it cannot read, like a quick script would
                print(f"skipped {path}: {error}", file=sys.stderr)
    seconds = time.perf_counter() - start
    print(f"images={converted} bytes_in={bytes_in} bytes_out={bytes_out} seconds={seconds:.3f}")


if __name__ == "__main__":
    main()
