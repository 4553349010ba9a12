#!/usr/bin/python3
"""Writes Fashion-MNIST's gzip IDX files as an ImageFolder tree of 8-bit grey PNGs (stdlib only: gzip, zlib).

Usage: fashion_mnist_png.py IMAGES.gz LABELS.gz DEST

DEST/<k>-<name>/<nnnnn>.png, one folder per class. The folder names start with Fashion-MNIST's label digit
(0-T-shirt_top ... 9-Ankle_boot) so that sorting them by name, as `pinshard convert` and torchvision's
ImageFolder both do, gives back the original label numbers in both splits ('/' of "T-shirt/top" becomes '_').
"""
import gzip
import os
import struct
import sys
import zlib

CLASSES = ["T-shirt_top", "Trouser", "Pullover", "Dress", "Coat",
           "Sandal", "Shirt", "Sneaker", "Bag", "Ankle_boot"]


def idx(path, magic, dims):
    with gzip.open(path, "rb") as f:
        data = f.read()
    header = struct.unpack(">" + "I" * (1 + dims), data[:4 * (1 + dims)])
    if header[0] != magic:
        sys.exit(f"{path}: IDX magic {header[0]:#x}, expected {magic:#x}")
    shape = header[1:]
    body = data[4 * (1 + dims):]
    expected = 1
    for d in shape:
        expected *= d
    if len(body) != expected:
        sys.exit(f"{path}: {len(body)} bytes of data for shape {shape}")
    return shape, body


def chunk(kind, payload):
    return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload))


def png_grey(width, height, pixels):
    rows = b"".join(b"\0" + pixels[y * width:(y + 1) * width] for y in range(height))  # filter 0 per row
    return (b"\x89PNG\r\n\x1a\n"
            + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows, 6))
            + chunk(b"IEND", b""))


def main():
    images_path, labels_path, dest = sys.argv[1:4]
    (count, height, width), images = idx(images_path, 0x803, 3)
    (label_count,), labels = idx(labels_path, 0x801, 1)
    if label_count != count:
        sys.exit(f"{count} images but {label_count} labels")
    folders = [os.path.join(dest, f"{k}-{name}") for k, name in enumerate(CLASSES)]
    for folder in folders:
        os.makedirs(folder, exist_ok=True)
    size = width * height
    for i in range(count):
        label = labels[i]
        if label >= len(CLASSES):
            sys.exit(f"image {i}: label {label} out of range")
        with open(os.path.join(folders[label], f"{i:05d}.png"), "wb") as out:
            out.write(png_grey(width, height, images[i * size:(i + 1) * size]))
    print(f"{dest}: {count} images {width}x{height}")


if __name__ == "__main__":
    main()
