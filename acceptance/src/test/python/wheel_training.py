"""What a user of the wheel runs (PythonWheelTest starts it with the venv's python, outside the checkout):
PinshardDataset through DataLoader(batch_size=None), checked against the ring's uint8 batches, its len(), a
state_dict round trip mid-epoch, and a few epochs of a training loop. Usage: wheel_training.py DATASET CLASSES"""

import json
import os
import sys

import torch

import pinshard
from pinshard.torch import PinshardDataset

dataset, classes = sys.argv[1], int(sys.argv[2])
package = os.path.dirname(pinshard.__file__)
assert os.path.isfile(os.path.join(package, "_jar", "pinshard.jar")), "the wheel carries the jar: %s" % package
command = pinshard.server_command()
assert command[-2:] == ["-jar", os.path.join(package, "_jar", "pinshard.jar")], command
if "JAVA_HOME" not in os.environ:
    assert command[0] == os.path.join(package, "_runtime", "bin", "java"), "the wheel's own Java: %s" % command
print("package %s %s, server %s" % (pinshard.__version__, package, command[0]))

MEAN, STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)
common = dict(batch_size=8, crop=32, workers=2, seed=11)

with PinshardDataset(dataset, mean=MEAN, std=STD, **common) as floats, \
        PinshardDataset(dataset, dtype=torch.uint8, layout="NHWC", **common) as pixels:
    assert len(floats) == len(pixels) == 3, (len(floats), len(pixels))  # 24 images in batches of 8
    mean = torch.tensor(MEAN).view(1, 3, 1, 1)
    std = torch.tensor(STD).view(1, 3, 1, 1)
    pairs = list(zip(torch.utils.data.DataLoader(floats, batch_size=None), pixels))
    assert len(pairs) == 3, len(pairs)
    for (images, labels), (raw, raw_labels) in pairs:
        assert images.dtype == torch.float32 and tuple(images.shape) == (8, 3, 32, 32), (images.dtype, images.shape)
        assert raw.dtype == torch.uint8 and tuple(raw.shape) == (8, 32, 32, 3), (raw.dtype, raw.shape)
        assert labels.dtype == torch.int64 and torch.equal(labels, raw_labels), (labels, raw_labels)
        expected = (raw.permute(0, 3, 1, 2).float() / 255 - mean) / std
        error = (images - expected).abs().max().item()
        assert error < 1e-5, "normalised batch differs from the uint8 one by %g" % error
        assert len(set(raw[..., 0].flatten().tolist())) > 4, "the images vary: a layout mix-up would show"
    print("dtype float32, shape NCHW, normalisation within %.1e of the uint8 batch, len %d" % (error, len(floats)))
    assert floats.state_dict()["epoch"] == 1 and floats.state_dict()["batchesConsumed"] == 0, floats.state_dict()

# state_dict mid-epoch: a fresh dataset that loads it delivers exactly the batches that were left
with PinshardDataset(dataset, mean=MEAN, std=STD, **common) as first:
    first.set_epoch(2)
    batches = iter(first)
    next(batches)
    state = first.state_dict()
    assert state == {"epoch": 2, "batchesConsumed": 1, "seed": 11, "worldSize": 1, "rank": 0}, state
    rest = [(images.clone(), labels.clone()) for images, labels in batches]
with PinshardDataset(dataset, mean=MEAN, std=STD, **common) as resumed:
    resumed.load_state_dict(state)
    again = list(resumed)
assert len(again) == len(rest) == 2, (len(again), len(rest))
for (a, la), (b, lb) in zip(rest, again):
    assert torch.equal(a, b) and torch.equal(la, lb), "resumed batches differ"
print("state_dict %s resumed to the identical %d remaining batches" % (state, len(again)))

# zero-copy views (copy=False): a loop left with `break` holds a slot, which the next iteration gives back
with PinshardDataset(dataset, dtype=torch.uint8, layout="NHWC", copy=False, **common) as views:
    for images, labels in views:
        ring_start, ring_end = views._server.ring.address_range()
        assert ring_start <= images.data_ptr() < ring_end, "copy=False yields views of the ring"
        break
    assert len(list(views)) == 2, "the next iteration continues after the last batch yielded"
print("copy=False views lie in the ring; after a break the next iteration continues with the rest")

# the training loop of the README: per-sample colour jitter, the step log
torch.manual_seed(0)
step_log = os.path.join(os.path.dirname(os.path.abspath(dataset)), "steps.jsonl")
ds = PinshardDataset(dataset, mean=MEAN, std=STD, jitter={"brightness": 0.4, "contrast": 0.4, "saturation": 0.4,
                                                          "hue": 0.1}, grayscale=0.1, step_log=step_log, **common)
model = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.ReLU(), torch.nn.AdaptiveAvgPool2d(1),
                            torch.nn.Flatten(), torch.nn.Linear(8, classes))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
losses = []
for epoch in range(3):
    ds.set_epoch(epoch)
    for images, labels in torch.utils.data.DataLoader(ds, batch_size=None):
        loss = torch.nn.functional.cross_entropy(model(images), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
ds.close()
assert len(losses) == 9 and all(l == l and l < 100 for l in losses), losses
print("trained 3 epochs, 9 steps, loss %.3f -> %.3f" % (losses[0], losses[-1]))
with open(step_log, encoding="utf-8") as f:
    steps = [json.loads(line) for line in f]
assert [s["step"] for s in steps] == list(range(1, 9)), steps  # the first batch has no step before it
assert all(s["data_wait_s"] <= s["step_s"] and s["images"] == 8 and s["gpu_util"] is None for s in steps), steps
print("step log: %d lines, last %s" % (len(steps), steps[-1]))

# pinshard.write: samples from memory (arrays, labels) into a dataset through the wheel's jar, then loaded back
import tempfile  # noqa: E402

import numpy as np  # noqa: E402

with tempfile.TemporaryDirectory() as temp:
    written = os.path.join(temp, "written")
    generator = np.random.default_rng(1)
    images = [generator.integers(0, 256, (24, 24, 3), dtype=np.uint8) for _ in range(10)]
    result = pinshard.write(written, ((image, ["ant", "bee"][i % 2]) for i, image in enumerate(images)),
                            codec="raw", progress="none")
    with open(os.path.join(written, "manifest.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    assert result.samples == 10 and manifest["records"] == 10 and manifest["classes"] == ["ant", "bee"], manifest
    with PinshardDataset(written, dtype=torch.uint8, layout="NHWC", batch_size=5, crop=24, workers=1, seed=3,
                         flip=0.0, scale=(1.0, 1.0), ratio=(1.0, 1.0)) as back:
        seen = sorted(bytes(image.numpy()) for batch, _ in back for image in batch)
    assert seen == sorted(bytes(image) for image in images), "pinshard.write's pixels come back unchanged"
print("pinshard.write wrote 10 arrays with class names; the loader gives the same pixels back")

# a newcomer's mistakes: a dataset path that does not exist is named in the error, without the JVM's notices, and a
# dtype given as a string is shown quoted, not as if it were the valid torch.float32
missing = os.path.join(os.path.dirname(os.path.abspath(dataset)), "no-such-dataset")
try:
    next(iter(PinshardDataset(missing, **common)))
    raise AssertionError("a missing dataset yielded a batch")
except pinshard.RingError as e:
    message = str(e)
assert missing + ": does not exist" in message and "WARNING" not in message, message
try:
    PinshardDataset(dataset, dtype="float32", **common)
    raise AssertionError("dtype='float32' was taken")
except ValueError as e:
    message = str(e)
assert "torch.float32" in message and "not 'float32' (a str)" in message, message
with tempfile.TemporaryDirectory() as temp:  # pinshard.write over another dataset: convert's refusal, no JVM notice
    other = os.path.join(temp, "other")
    pinshard.write(other, [(np.zeros((8, 8, 3), dtype=np.uint8), 0)], progress="none")
    try:
        pinshard.write(other, [(np.ones((8, 8, 3), dtype=np.uint8), 1)], progress="none")
        raise AssertionError("pinshard.write replaced another dataset")
    except pinshard.WriteError as e:
        message = str(e)
    assert "already holds a different dataset" in message and "WARNING" not in message, message
# "~/..." in a Python string: expanded as the shell expands it on the command line (HOME is the test's own)
home_set = os.path.join("~", "home-written")
pinshard.write(home_set, [(np.zeros((8, 8, 3), dtype=np.uint8), 0), (np.ones((8, 8, 3), dtype=np.uint8), 1)],
               progress="none")
assert os.path.isfile(os.path.expanduser(os.path.join(home_set, "manifest.json"))), "written under HOME"
with PinshardDataset(home_set, dtype=torch.uint8, layout="NHWC", batch_size=2, crop=8, workers=1) as tilde:
    assert len(list(tilde)) == 1
print("a missing dataset, a dtype string and a write over another dataset are refused by name; ~ is expanded")
