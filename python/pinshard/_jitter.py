"""Per-sample colour jitter and random grayscale for `PinshardDataset(jitter=..., grayscale=p)`.

What it means: torchvision's `ColorJitter(brightness, contrast, saturation, hue)` followed by
`RandomGrayscale(p)`, with their ranges (a number b gives factors in [max(0, 1 - b), 1 + b], hue h shifts in
[-h, h], h <= 0.5; a (min, max) pair gives that range), but with a different draw for every sample of a batch and a
FIXED order, brightness, contrast, saturation, hue, then grayscale (ColorJitter picks a random order per call), the
order of the Java pipeline (io.pinshard.cuda.augment.ReferenceAugmenter).

The draws: a function of (seed, epoch, record) only, the rule of io.pinshard.cuda.augment.JitterParams (SplitMix64, see
there): draw k of a sample is `uniform(k) = (mix(base + (k + 1) * G) >>> 40) * 2^-24` with
`base = mix(seed ^ mix(record + G) ^ mix(epoch * G))`, and its factor `low + (high - low) * uniform(k)` in float32;
k = 0 brightness, 1 contrast, 2 saturation, 3 hue, 4 grayscale (grey when uniform(4) < p). The Java pipeline and
this module give the same factors for the same record (python/tests/jitter_vectors.json, generated from Java, checks
it). The pixel arithmetic is torchvision's functional one on float images in [0, 1] (`adjust_brightness`,
`adjust_contrast`, `adjust_saturation`, `adjust_hue`, `rgb_to_grayscale` with weights 0.2989, 0.587, 0.114).

Checked here, in plain Python, before any JVM starts: `parse` raises ValueError naming the parameter.
"""

import math
from typing import Any, Dict, Mapping, NamedTuple, Optional, Tuple

import numpy as np
import numpy.typing as npt
import torch

from . import _pages

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


def draws(seed: int, epoch: int, records: Any, count: int = 5) -> npt.NDArray[np.float32]:
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


def factor(uniform: npt.NDArray[np.float32], low: np.float32, high: np.float32) -> npt.NDArray[np.float32]:
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


def _grey(x: torch.Tensor, out: Optional[torch.Tensor] = None) -> torch.Tensor:
    """rgb_to_grayscale of NCHW x: [n, 1, H, W], into `out` when given."""
    g = x[:, 0:1] * GREY_WEIGHTS[0] if out is None else torch.mul(x[:, 0:1], GREY_WEIGHTS[0], out=out)
    g.add_(x[:, 1:2], alpha=GREY_WEIGHTS[1])
    return g.add_(x[:, 2:3], alpha=GREY_WEIGHTS[2])


class _Batch:
    """A batch's factors as [N, 1, 1, 1] columns on the images' device in the working dtype, with what the passes
    derive from them (brightness / 255, 1 - contrast, 1 - saturation: once a batch, not once a chunk; in float32
    first, the factors' own type, as the per-chunk code did), and the scratch planes [chunk, 1, H, W] every chunk's
    passes write into with out= (no allocation per operation)."""

    def __init__(self, f: Factors, chunk: int, height: int, width: int, dtype: torch.dtype, device: torch.device,
                 pixels: bool) -> None:
        def column(values: Optional[torch.Tensor]) -> Optional[torch.Tensor]:
            if values is None:
                return None
            values = values.view(-1, 1, 1, 1)
            if device.type == "cuda":  # from pageable memory the copy can wait for the steps queued on the GPU
                values = values.pin_memory()
            return values.to(device=device, dtype=dtype, non_blocking=True)

        first = f.brightness / 255.0 if pixels and f.brightness is not None else f.brightness
        self.first = column(first)  # x = pixels * first (or x * first), then clamped
        self.unscaled, self.centres, self.two = _constants(dtype, device)
        self.contrast = column(f.contrast)
        self.contrast_rest = column(None if f.contrast is None else 1.0 - f.contrast)
        self.saturation = column(f.saturation)
        self.saturation_rest = column(None if f.saturation is None else 1.0 - f.saturation)
        self.hue = column(f.hue)
        self.grey = f.grey
        count = 6 if f.hue is not None else 1 if f.saturation is not None else 0
        self.planes = [torch.empty((chunk, 1, height, width), dtype=dtype, device=device) for _ in range(count)]


_CONSTANTS: Dict[Tuple[torch.dtype, torch.device], Tuple[torch.Tensor, torch.Tensor, torch.Tensor]] = {}


def _constants(dtype: torch.dtype, device: torch.device) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """1/255 (as x.mul_(1.0 / 255.0)), the HSV-to-RGB channel centres on the hue circle in sixths of a turn (red 0,
    green 2, blue 4) and 2, on `device`: made once per dtype and device, since torch.tensor(..., device="cuda")
    is a blocking copy that would wait for every step the trainer has queued on the GPU, once a batch."""
    key = (dtype, torch.device(device))
    made = _CONSTANTS.get(key)
    if made is None:
        made = (torch.tensor(1.0 / 255.0, dtype=dtype, device=device),
                torch.tensor([0.0, 2.0, 4.0], dtype=dtype, device=device).view(1, 3, 1, 1),
                torch.tensor(2.0, dtype=dtype, device=device))
        _CONSTANTS[key] = made
    return made


def _hue(x: torch.Tensor, shift: torch.Tensor, work: _Batch) -> None:
    """adjust_hue in place on NCHW x in [0, 1], shift [n, 1, 1, 1] in turns: to HSV, h = (h + shift) mod 1, back to
    RGB; torchvision's result to float rounding. Every pass writes into a scratch plane or x with out=, and none is
    a select (torch.where) or a float remainder, the slow ones on a CPU (about 1 ms and 0.2 ms against 0.03 ms for
    a multiply over a 4-image chunk's plane):
    - hue in sixths from the max channel's difference (red (g - b) / chroma, green 2 + (b - r) / chroma, blue
      4 + (r - g) / chroma), the max channel's picked with 0/1 weights from sign(max - channel) (exact, see below;
      lerp would be too, but it is not vectorised: as slow as the select);
    - (h + shift) mod 1 as h - floor(h), what remainder(h, 1) gives;
    - HSV to RGB by the closed form c = v - chroma clamp(2 - ||h6 - m| - 3|, 0, 1) with m = 0, 2, 4 the channel's
      centre, on the three channels at once: ||h6 - m| - 3| is 3 less the distance from h6 to m round the circle of
      6, so this is clamp(min(k, 4 - k), 0, 1) with k = (h6 + 5, 3, 1) mod 6, the usual form, without the mod
      (and each subtraction exact where the clamp lets the value through)."""
    n = x.shape[0]
    maxc, chroma, scratch, h, green, blue = (p[:n] for p in work.planes)
    r, g, b = x[:, 0:1], x[:, 1:2], x[:, 2:3]
    torch.maximum(r, g, out=maxc)
    torch.maximum(maxc, b, out=maxc)
    torch.minimum(r, g, out=chroma)
    torch.minimum(chroma, b, out=chroma)
    torch.sub(maxc, chroma, out=chroma)
    # 1 / chroma; 1 / 2^-100 where chroma is 0 (grey: the differences below are 0 there too, so h = 0)
    inv = torch.clamp(chroma, min=2.0 ** -100, out=scratch).reciprocal_()
    torch.sub(g, b, out=h).mul_(inv)
    torch.sub(b, r, out=green).mul_(inv).add_(2.0)
    torch.sub(r, g, out=blue).mul_(inv).add_(4.0)
    # green where green is the max (sign(max - g) = 0), else blue: blue * not_green + green * (1 - not_green), a
    # product by 0 or 1 and a sum with 0, exact; then red where red is the max, else that
    not_green = torch.sub(maxc, g, out=scratch).sign_()
    blue.mul_(not_green)
    torch.addcmul(blue, green, not_green.neg_().add_(1.0), out=green)
    not_red = torch.sub(maxc, r, out=scratch).sign_()
    green.mul_(not_red)
    torch.addcmul(green, h, not_red.neg_().add_(1.0), out=h)
    h.div_(6.0).add_(shift)
    h.sub_(torch.floor(h, out=scratch)).mul_(6.0)
    torch.sub(h, work.centres, out=x)
    x.abs_().sub_(3.0).abs_()
    torch.sub(work.two, x, out=x).clamp_(0.0, 1.0)
    torch.sub(maxc, x.mul_(chroma), out=x)


def _passes(x: torch.Tensor, work: _Batch, start: int, stop: int, source: Optional[torch.Tensor],
            pixels: bool) -> None:
    """The jitter on x, samples start..stop of the batch: x = source (the uint8 NCHW view) * brightness / 255 when
    `source` is given (the conversion and the brightness in one pass), else in place on x (`pixels`: in [0, 255])."""
    if source is not None:
        torch.mul(source, work.unscaled if work.first is None else work.first[start:stop], out=x)
    elif work.first is not None:
        x.mul_(work.first[start:stop])
    elif pixels:
        x.mul_(work.unscaled)
    if work.first is not None:
        x.clamp_(0.0, 1.0)
    if work.contrast is not None and work.contrast_rest is not None:
        means = x.mean(dim=(2, 3))  # the grey image's mean, from the channels' (no weights tensor to copy over)
        mean = (means[:, 0] * GREY_WEIGHTS[0] + means[:, 1] * GREY_WEIGHTS[1] + means[:, 2] * GREY_WEIGHTS[2])
        x.mul_(work.contrast[start:stop]).add_(work.contrast_rest[start:stop] * mean.view(-1, 1, 1, 1))
        x.clamp_(0.0, 1.0)
    if work.saturation is not None and work.saturation_rest is not None:
        grey = _grey(x, out=work.planes[0][:stop - start]).mul_(work.saturation_rest[start:stop])
        x.mul_(work.saturation[start:stop]).add_(grey).clamp_(0.0, 1.0)
    if work.hue is not None:
        _hue(x, work.hue[start:stop], work)
    if work.grey is not None:
        mask = work.grey[start:stop]  # on the CPU: any() and nonzero() cost no wait for the GPU
        if bool(mask.any()):
            at = torch.nonzero(mask).flatten()
            if x.is_cuda:  # pinned, so the non-blocking copy does not wait for the GPU's queued work
                at = at.pin_memory().to(x.device, non_blocking=True)
            x[at] = _grey(x[at]).expand(-1, 3, -1, -1)


def apply(x: torch.Tensor, f: Factors, start: int, stop: int, pixels: bool = False) -> None:
    """Jitter, in place, NCHW float x in [0, 1] (`pixels`: in [0, 255], scaled to [0, 1] in the brightness pass)
    holding samples start..stop of the batch whose factors are `f`."""
    _passes(x, _Batch(f, x.shape[0], x.shape[2], x.shape[3], x.dtype, x.device, pixels), start, stop, None, pixels)


def to_training(images: torch.Tensor, dtype: torch.dtype, layout: str, scale: torch.Tensor, shift: torch.Tensor,
                f: Factors, chunk: int) -> torch.Tensor:
    """pinshard.torch.to_training with the jitter between the conversion to [0, 1] and the normalisation: a uint8
    [N, H, W, 3] batch as a new `dtype` tensor in `layout`, `chunk` samples at a time (a few on a CPU, so each pass
    stays in cache; the whole batch on a GPU), batched per chunk, no per-sample Python step but grayscale's. The
    first pass reads the uint8 pixels and writes x = pixels * brightness / 255 (torch casts the uint8 chunk on the
    way: as fast as a copy then a multiply, not faster)."""
    work_dtype = torch.float64 if dtype == torch.float64 else torch.float32
    n, height, width, _ = images.shape
    shape = (n, 3, height, width) if layout == "NCHW" else (n, height, width, 3)
    out = _pages.empty(shape, work_dtype, images.device)
    nchw = out if layout == "NCHW" else out.permute(0, 3, 1, 2)
    source = images.permute(0, 3, 1, 2)
    scale4 = (scale.reshape(1, 3, 1, 1) * 255.0).to(work_dtype)
    shift4 = shift.reshape(1, 3, 1, 1).to(work_dtype)
    work = _Batch(f, min(chunk, n), height, width, work_dtype, images.device, True)
    for start in range(0, n, chunk):
        stop = min(n, start + chunk)
        x = nchw[start:stop]
        _passes(x, work, start, stop, source[start:stop], True)
        x.mul_(scale4).add_(shift4)
    return out if work_dtype == dtype else out.to(dtype)
