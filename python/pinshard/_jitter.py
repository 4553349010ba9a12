"""Per-sample colour jitter and random grayscale for `PinshardDataset(jitter=..., grayscale=p)`.

What it means: torchvision's `ColorJitter(brightness, contrast, saturation, hue)` followed by
`RandomGrayscale(p)`, with their ranges (a number b gives factors in [max(0, 1 - b), 1 + b], hue h shifts in
[-h, h], h <= 0.5; a (min, max) pair gives that range), but with a different draw for every sample of a batch and a
FIXED order, brightness, contrast, saturation, hue, then grayscale (ColorJitter picks a random order per call), the
order of the Java pipeline (io.pinshard.cuda.ReferenceAugmenter).

The draws: a function of (seed, epoch, record) only, the rule of io.pinshard.cuda.JitterParams (SplitMix64, see
there): draw k of a sample is `uniform(k) = (mix(base + (k + 1) * G) >>> 40) * 2^-24` with
`base = mix(seed ^ mix(record + G) ^ mix(epoch * G))`, and its factor `low + (high - low) * uniform(k)` in float32;
k = 0 brightness, 1 contrast, 2 saturation, 3 hue, 4 grayscale (grey when uniform(4) < p). The Java pipeline and
this module give the same factors for the same record (python/tests/jitter_vectors.json, generated from Java, checks
it). The pixel arithmetic is torchvision's functional one on float images in [0, 1] (`adjust_brightness`,
`adjust_contrast`, `adjust_saturation`, `adjust_hue`, `rgb_to_grayscale` with weights 0.2989, 0.587, 0.114).

Checked here, in plain Python, before any JVM starts: `parse` raises ValueError naming the parameter.
"""

import math
from typing import Any, Mapping, NamedTuple, Optional, Tuple

import numpy as np
import torch

__all__ = ["Jitter", "parse", "draws", "factors", "apply"]

BRIGHTNESS, CONTRAST, SATURATION, HUE, GRAYSCALE = range(5)
_NAMES = ("brightness", "contrast", "saturation", "hue")
_GOLDEN_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_MASK64 = (1 << 64) - 1
GREY_WEIGHTS = (0.2989, 0.587, 0.114)  # torchvision's rgb_to_grayscale

Range = Tuple[np.float32, np.float32]


class Jitter(NamedTuple):
    """The validated ranges (float32 low, high; None when that jitter is off) and the grayscale probability."""
    brightness: Optional[Range]
    contrast: Optional[Range]
    saturation: Optional[Range]
    hue: Optional[Range]
    grayscale: float


def _number(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)):
        raise ValueError("%s must be a number or a (min, max) pair, not %r" % (name, value))
    number = float(value)
    if not math.isfinite(number):
        raise ValueError("%s must be finite, not %r" % (name, value))
    return number


def _range(name: str, value: Any) -> Optional[Range]:
    """torchvision's ranges: a number v >= 0 (hue: <= 0.5) or a (min, max) pair inside the bounds."""
    hue = name == "hue"
    where = "jitter[%r]" % name
    if isinstance(value, (tuple, list)):
        if len(value) != 2:
            raise ValueError("%s must be a number or a (min, max) pair, not %r" % (where, value))
        low, high = (_number(where, v) for v in value)
        bound_low, bound_high = (-0.5, 0.5) if hue else (0.0, math.inf)
        if not bound_low <= low <= high <= bound_high:
            raise ValueError("%s=%r: a (min, max) pair needs %s <= min <= max <= %s" % (where, value, bound_low,
                                                                                        bound_high))
        lo, hi = np.float32(low), np.float32(high)
    else:
        number = _number(where, value)
        if hue and not 0 <= number <= 0.5:
            raise ValueError("%s=%r must be in [0, 0.5] (hue shifts in [-h, h] of a turn)" % (where, value))
        if number < 0:
            raise ValueError("%s=%r must be >= 0 (factors in [max(0, 1 - v), 1 + v])" % (where, value))
        v = np.float32(number)
        lo, hi = (-v, v) if hue else (max(np.float32(0), np.float32(1) - v), np.float32(1) + v)
    neutral = np.float32(0) if hue else np.float32(1)
    return None if lo == hi == neutral else (lo, hi)


def parse(jitter: Optional[Mapping[str, Any]], grayscale: Optional[float]) -> Optional[Jitter]:
    """The validated settings, or None when neither jitter nor grayscale changes anything. ValueError names the
    parameter that is wrong."""
    if jitter is not None and not isinstance(jitter, Mapping):
        raise ValueError("jitter must be a dict such as {\"brightness\": 0.4, \"contrast\": 0.4, \"saturation\": 0.4,"
                         " \"hue\": 0.1}, not %r" % (jitter,))
    settings = dict(jitter or {})
    unknown = sorted(set(settings) - set(_NAMES), key=str)
    if unknown:
        raise ValueError("jitter has no parameter %s: it takes brightness, contrast, saturation and hue"
                         % ", ".join(repr(u) for u in unknown))
    ranges = [None if settings.get(name) is None else _range(name, settings[name]) for name in _NAMES]
    p = 0.0 if grayscale is None else _number("grayscale", grayscale)
    if not 0 <= p <= 1:
        raise ValueError("grayscale=%r must be a probability in [0, 1]" % (grayscale,))
    if all(r is None for r in ranges) and p == 0:
        return None
    return Jitter(ranges[0], ranges[1], ranges[2], ranges[3], p)


def _mix(z: Any) -> Any:
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def draws(seed: int, epoch: int, records: Any, count: int = 5) -> np.ndarray:
    """float32 [count, N]: draws 0..count-1 of each record (JitterParams.uniform), exact."""
    ids = np.asarray(records, dtype=np.int64).astype(np.uint64)
    with np.errstate(over="ignore"):
        key = np.uint64(seed & _MASK64) ^ _mix(np.uint64(epoch & _MASK64) * _GOLDEN_GAMMA)
        base = _mix(key ^ _mix(ids + _GOLDEN_GAMMA))
        out = np.empty((count, ids.shape[0]), dtype=np.float32)
        for k in range(count):
            bits = _mix(base + np.uint64(k + 1) * _GOLDEN_GAMMA) >> np.uint64(40)
            out[k] = bits.astype(np.float32) * np.float32(2.0 ** -24)
    return out


def factor(uniform: np.ndarray, low: np.float32, high: np.float32) -> np.ndarray:
    """JitterParams.factor: low + (high - low) * uniform, each operation rounded to float32."""
    return np.float32(low) + (np.float32(high) - np.float32(low)) * uniform


class Factors(NamedTuple):
    """Per-sample float32 tensors [N] (None when off) and the grey mask [N] (None when off)."""
    brightness: Optional[torch.Tensor]
    contrast: Optional[torch.Tensor]
    saturation: Optional[torch.Tensor]
    hue: Optional[torch.Tensor]
    grey: Optional[torch.Tensor]


def factors(jitter: Jitter, seed: int, epoch: int, records: Any) -> Factors:
    """The factors of a batch's records (int64 record numbers) in `epoch`."""
    u = draws(seed, epoch, records)
    values = [None if r is None else torch.from_numpy(factor(u[k], r[0], r[1]))
              for k, r in enumerate((jitter.brightness, jitter.contrast, jitter.saturation, jitter.hue))]
    grey = torch.from_numpy(u[GRAYSCALE] < np.float32(jitter.grayscale)) if jitter.grayscale > 0 else None
    return Factors(values[0], values[1], values[2], values[3], grey)


def _grey(x: torch.Tensor) -> torch.Tensor:
    """rgb_to_grayscale of NCHW x: [n, 1, H, W]."""
    g = x[:, 0:1] * GREY_WEIGHTS[0]
    g.add_(x[:, 1:2], alpha=GREY_WEIGHTS[1])
    return g.add_(x[:, 2:3], alpha=GREY_WEIGHTS[2])


def _hue(x: torch.Tensor, shift: torch.Tensor) -> None:
    """adjust_hue in place on NCHW x in [0, 1]: to HSV, h = (h + shift) mod 1, back to RGB; torchvision's result to
    float rounding, in fewer passes: hue from the max channel's difference, and HSV to RGB by the closed form
    c = v - v s clamp(min(k, 4 - k), 0, 1) with v s = chroma, k = (n + 6 h) mod 6, n = 5, 3, 1 for R, G, B (no sector selects)."""
    r, g, b = x[:, 0], x[:, 1], x[:, 2]
    maxc = torch.max(torch.max(r, g), b)
    chroma = maxc - torch.min(torch.min(r, g), b)
    inv = 1.0 / torch.where(chroma == 0, torch.ones_like(chroma), chroma)
    h = torch.where(maxc == r, (g - b) * inv, torch.where(maxc == g, (b - r) * inv + 2.0, (r - g) * inv + 4.0))
    h6 = torch.remainder(h.div_(6.0).add_(shift.view(-1, 1, 1)), 1.0).mul_(6.0)
    for channel, n in enumerate((5.0, 3.0, 1.0)):
        k = torch.remainder(h6 + n, 6.0)
        t = torch.min(k, 4.0 - k).clamp_(0.0, 1.0)
        torch.sub(maxc, t.mul_(chroma), out=x[:, channel])  # v s = chroma


def apply(x: torch.Tensor, f: Factors, start: int, stop: int, pixels: bool = False) -> None:
    """Jitter, in place, NCHW float x in [0, 1] (`pixels`: in [0, 255], scaled to [0, 1] in the brightness pass)
    holding samples start..stop of the batch whose factors are `f`."""
    def view(values: torch.Tensor) -> torch.Tensor:
        return values[start:stop].to(x.device, non_blocking=True).view(-1, 1, 1, 1)

    if f.brightness is not None:
        x.mul_(view(f.brightness) / 255.0 if pixels else view(f.brightness)).clamp_(0.0, 1.0)
    elif pixels:
        x.mul_(1.0 / 255.0)
    if f.contrast is not None:
        c = view(f.contrast)
        means = x.mean(dim=(2, 3))  # the grey image's mean, from the channels' (no weights tensor to copy over)
        mean = (means[:, 0] * GREY_WEIGHTS[0] + means[:, 1] * GREY_WEIGHTS[1] + means[:, 2] * GREY_WEIGHTS[2])
        mean = mean.view(-1, 1, 1, 1)
        x.mul_(c).add_((1.0 - c) * mean).clamp_(0.0, 1.0)
    if f.saturation is not None:
        s = view(f.saturation)
        grey = _grey(x).mul_(1.0 - s)
        x.mul_(s).add_(grey).clamp_(0.0, 1.0)
    if f.hue is not None:
        _hue(x, f.hue[start:stop].to(x.device, non_blocking=True))
    if f.grey is not None:
        mask = f.grey[start:stop]
        if bool(mask.any()):
            at = torch.nonzero(mask).flatten().to(x.device)
            x[at] = _grey(x[at]).expand(-1, 3, -1, -1)


def to_training(images: torch.Tensor, dtype: torch.dtype, layout: str, scale: torch.Tensor, shift: torch.Tensor,
                f: Factors, chunk: int) -> torch.Tensor:
    """pinshard.torch.to_training with the jitter between the conversion to [0, 1] and the normalisation: a uint8
    [N, H, W, 3] batch as a new `dtype` tensor in `layout`, `chunk` samples at a time (a few on a CPU, so each pass
    stays in cache; the whole batch on a GPU), batched per chunk, no per-sample Python step but grayscale's."""
    work = torch.float64 if dtype == torch.float64 else torch.float32
    n, height, width, _ = images.shape
    shape = (n, 3, height, width) if layout == "NCHW" else (n, height, width, 3)
    out = torch.empty(shape, dtype=work, device=images.device)
    nchw = out if layout == "NCHW" else out.permute(0, 3, 1, 2)
    source = images.permute(0, 3, 1, 2)
    scale4 = (scale.reshape(1, 3, 1, 1) * 255.0).to(work)
    shift4 = shift.reshape(1, 3, 1, 1).to(work)
    for start in range(0, n, chunk):
        stop = min(n, start + chunk)
        x = nchw[start:stop]
        x.copy_(source[start:stop])
        apply(x, f, start, stop, pixels=True)
        x.mul_(scale4).add_(shift4)
    return out if work == dtype else out.to(dtype)
