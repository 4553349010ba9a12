#!/usr/bin/python3
"""A tiny contrastive image-text model (CLIP-style) on Fashion-MNIST with a caption per image, through pinshard.

1. Writes WebDataset tars with Python's tarfile from the PNG trees of scripts/fetch-fashion-mnist.sh: per image
   NNNNNN.png, NNNNNN.txt (a caption from varied templates: "a black and white photo of a sneaker", ...),
   NNNNNN.cls (the class) and NNNNNN.json (source metadata).
2. Converts them with `pinshard convert TAR -o DIR --fields txt:caption,json:meta`, every field kept in the shards.
3. Trains an image CNN and a bag-of-words text encoder with the symmetric InfoNCE loss on (image, caption) pairs that
   come through the loader (pinshard.torch.PinshardDataset with fields=["caption"]: random-resized crops, flips, and
   the caption of each sample's record).
4. Zero-shot: classifies the 10,000 test images by cosine similarity to the prompts "a photo of a {class name}" and
   prints top-1 beside a supervised classifier's accuracy (the same CNN with a linear head, trained on the same
   images and steps) for scale.

Usage: /usr/bin/python3 scripts/train_clip_fashion_mnist.py [--epochs 4] [--data DIR] [--work DIR]
       [--source pinshard|arrays]   (arrays: the same pairs from PNGs in memory, no pinshard: a check of the model)
"""
import argparse
import io
import json
import os
import random
import re
import subprocess
import sys
import tarfile
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from train_fashion_mnist_torch import Net  # noqa: E402  the same CNN as the classifier example
CLASSES = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"]
TEMPLATES = [
    "a photo of a {}", "a black and white photo of a {}", "a small picture of a {}", "a product shot of a {}",
    "a grey image showing a {}", "a {} on a plain background", "a catalogue photo of the {}", "this is a {}",
    "a low resolution photo of a {}", "a centred {} seen from the front", "an item of clothing: {}",
    "a shop picture of one {}",
]
MEAN, STD = 0.2860, 0.3530


def caption(label, rng):
    return rng.choice(TEMPLATES).format(CLASSES[label].lower())


def tokens(text):
    return re.findall(r"[a-z0-9]+", text.lower())


def png_items(tree):
    """(path, label) for every PNG of an ImageFolder tree named <k>-<class>/<n>.png, in a fixed order."""
    items = []
    for folder in sorted(os.listdir(tree)):
        label = int(folder.split("-", 1)[0])
        for name in sorted(os.listdir(os.path.join(tree, folder))):
            items.append((os.path.join(tree, folder, name), label))
    return items


def write_tar(items, path, seed):
    """A WebDataset tar: NNNNNN.png, .txt, .cls, .json per sample, samples in a shuffled order."""
    rng = random.Random(seed)
    order = list(range(len(items)))
    rng.shuffle(order)
    tmp = path + ".tmp"
    with tarfile.open(tmp, "w") as tar:
        for key, i in enumerate(order):
            png, label = items[i]
            members = {
                "png": open(png, "rb").read(),
                "txt": caption(label, rng).encode("utf-8"),
                "cls": str(label).encode("ascii"),
                "json": json.dumps({"source": "fashion-mnist", "file": os.path.relpath(png, os.path.dirname(
                    os.path.dirname(png))), "licence": "MIT"}).encode("utf-8"),
            }
            for ext, data in members.items():
                info = tarfile.TarInfo("%06d.%s" % (key, ext))
                info.size = len(data)
                info.mtime = 0
                tar.addfile(info, io.BytesIO(data))
    os.replace(tmp, path)


def prepare(a):
    """The tars and their pinshard datasets under a.work, each made once."""
    os.makedirs(a.work, exist_ok=True)
    out = {}
    for split in ("train", "test"):
        tar = os.path.join(a.work, split + ".tar")
        if not os.path.exists(tar):
            t = time.time()
            write_tar(png_items(os.path.join(a.data, "png", split)), tar, seed=1 if split == "train" else 2)
            print("wrote %s (%.0f MB) in %.1f s" % (tar, os.path.getsize(tar) / 1e6, time.time() - t), flush=True)
        dataset = os.path.join(a.work, split)
        if not os.path.exists(os.path.join(dataset, "manifest.json")):
            subprocess.run([os.path.join(ROOT, "pinshard"), "convert", tar, "-o", dataset, "--codec", "raw",
                            "--fields", "txt:caption,json:meta", "--progress", "none"], check=True,
                           stdout=sys.stderr)
        out[split] = dataset
    return out


class ImageEncoder(Net):
    """The Fashion-MNIST example's CNN (scripts/train_fashion_mnist_torch.py), its 256 features mapped to `dim`."""

    def __init__(self, dim):
        super().__init__()
        self.out = nn.Linear(256, dim)

    def forward(self, x):
        return self.out(self.features(x))


class TextEncoder(nn.Module):
    """Bag of words: the mean of word embeddings, then a linear map."""

    def __init__(self, vocabulary, dim):
        super().__init__()
        self.vocabulary = vocabulary
        self.embed = nn.EmbeddingBag(len(vocabulary) + 1, 128, mode="mean")
        self.out = nn.Linear(128, dim)

    def encode(self, texts):
        ids, offsets = [], []
        for text in texts:
            offsets.append(len(ids))
            ids.extend(self.vocabulary.get(w, len(self.vocabulary)) for w in tokens(text) or ["<empty>"])
        return self.out(self.embed(torch.tensor(ids), torch.tensor(offsets)))


def to_input(images):
    """uint8 NHWC (the loader's slots) -> normalised float32 NCHW."""
    return (images.permute(0, 3, 1, 2).float().div_(255.0) - MEAN) / STD


def clip_loss(image_embeddings, text_embeddings, logit_scale):
    image_embeddings = F.normalize(image_embeddings, dim=1)
    text_embeddings = F.normalize(text_embeddings, dim=1)
    logits = logit_scale.exp().clamp(max=100) * image_embeddings @ text_embeddings.t()
    target = torch.arange(len(logits))
    return (F.cross_entropy(logits, target) + F.cross_entropy(logits.t(), target)) / 2


def pinshard_batches(path, a, train, epoch):
    sys.path.insert(0, os.path.join(ROOT, "python"))
    from pinshard.torch import PinshardDataset
    dataset = PinshardDataset(path, batch_size=a.batch, crop=28, dtype=torch.uint8, layout="NHWC", workers=2,
                              seed=a.seed, eval=not train, drop_last=train, scale=tuple(a.scale),
                              fields=["caption"], server_options=dict(eval_crop_fraction=1.0))
    dataset.set_epoch(epoch)
    try:
        for images, labels, fields in dataset:
            yield images, labels, fields["caption"]
    finally:
        dataset.close()


class Arrays:
    """The same pairs without pinshard (a check of the model): PNGs decoded once, random crops done here."""

    def __init__(self, a):
        self.a = a
        self.splits = {}
        for split in ("train", "test"):
            from PIL import Image
            items = png_items(os.path.join(a.data, "png", split))
            rng = random.Random(1 if split == "train" else 2)
            images = np.stack([np.asarray(Image.open(p).convert("RGB")) for p, _ in items])
            labels = np.array([label for _, label in items])
            captions = [caption(label, rng) for label in labels]
            self.splits[split] = (torch.from_numpy(images), torch.from_numpy(labels), captions)

    def batches(self, split, train, epoch):
        images, labels, captions = self.splits[split]
        order = torch.randperm(len(images), generator=torch.Generator().manual_seed(epoch)) if train \
            else torch.arange(len(images))
        for start in range(0, len(order) - (self.a.batch - 1 if train else 0), self.a.batch):
            idx = order[start:start + self.a.batch]
            batch = images[idx]
            if train:
                flip = torch.rand(len(batch)) < 0.5
                batch[flip] = batch[flip].flip(2)
            yield batch, labels[idx], [captions[i] for i in idx.tolist()]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default=os.path.expanduser("~/.cache/pinshard/fashion-mnist"))
    p.add_argument("--work", default=os.path.expanduser("~/.cache/pinshard/fashion-mnist-captions"))
    p.add_argument("--source", choices=("pinshard", "arrays"), default="pinshard")
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument("--dim", type=int, default=64)
    p.add_argument("--scale", type=float, nargs=2, default=[0.6, 1.0])
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--steps-per-epoch", type=int, default=0, help="stop each epoch after N batches (0: all)")
    a = p.parse_args()
    torch.manual_seed(a.seed)
    torch.set_num_threads(a.threads)
    if a.source == "pinshard":
        datasets = prepare(a)
        batches = lambda split, train, epoch: pinshard_batches(datasets[split], a, train, epoch)
    else:
        arrays = Arrays(a)
        batches = arrays.batches

    words = sorted({w for t in TEMPLATES for w in tokens(t)} | {w for c in CLASSES for w in tokens(c)})
    vocabulary = {w: i for i, w in enumerate(words)}
    image_encoder = ImageEncoder(a.dim)
    text_encoder = TextEncoder(vocabulary, a.dim)
    logit_scale = nn.Parameter(torch.tensor(np.log(1 / 0.07), dtype=torch.float32))
    classifier = nn.Linear(256, 10)
    supervised = ImageEncoder(a.dim)
    clip_params = list(image_encoder.parameters()) + list(text_encoder.parameters()) + [logit_scale]
    clip_opt = torch.optim.Adam(clip_params, lr=a.lr)
    sup_opt = torch.optim.Adam(list(supervised.parameters()) + list(classifier.parameters()), lr=a.lr)
    start = time.time()
    for epoch in range(a.epochs):
        image_encoder.train(), text_encoder.train(), supervised.train()
        steps, total, wait, t = 0, 0.0, 0.0, time.time()
        for images, labels, captions in batches("train", True, epoch):
            wait += time.time() - t
            x = to_input(images)
            loss = clip_loss(image_encoder(x), text_encoder.encode(captions), logit_scale)
            clip_opt.zero_grad()
            loss.backward()
            clip_opt.step()
            sup_loss = F.cross_entropy(classifier(supervised.features(x)), labels.long())
            sup_opt.zero_grad()
            sup_loss.backward()
            sup_opt.step()
            total += loss.item()
            steps += 1
            if a.steps_per_epoch and steps >= a.steps_per_epoch:
                break
            t = time.time()
        print("epoch %d: %d steps, mean InfoNCE loss %.3f, temperature %.3f, data-wait %.1f s, %.0f s so far"
              % (epoch + 1, steps, total / max(steps, 1), 1 / logit_scale.exp().item(), wait, time.time() - start),
              flush=True)

    image_encoder.eval(), text_encoder.eval(), supervised.eval()
    with torch.no_grad():
        prompts = F.normalize(text_encoder.encode(["a photo of a %s" % c.lower() for c in CLASSES]), dim=1)
        zero_shot = supervised_right = count = 0
        for images, labels, captions in batches("test", False, 0):
            x = to_input(images)
            similarity = F.normalize(image_encoder(x), dim=1) @ prompts.t()
            zero_shot += (similarity.argmax(1) == labels.long()).sum().item()
            supervised_right += (classifier(supervised.features(x)).argmax(1) == labels.long()).sum().item()
            count += len(labels)
    print("zero-shot top-1 on %d test images, prompts 'a photo of a {class name}': %.2f %%"
          % (count, 100.0 * zero_shot / count))
    print("supervised classifier (same CNN + linear head, same images and steps): %.2f %%"
          % (100.0 * supervised_right / count))
    print("captions came through: %s" % a.source)


if __name__ == "__main__":
    main()
