"""The colour jitter of `_jitter` on a CUDA batch as one fused elementwise kernel (torch's jiterator, compiled at run
time with NVRTC) instead of ~45 torch operations.

Why: with device="cuda" the jitter ran as ~45 kernels, each a pass over the batch in float32 (a 128-image, 224-px batch
is 77 MB, so ~4.5 GB of GPU memory traffic and ~45 launches from the training process per step). Here the pixels are
read once as uint8, every step of `_jitter._passes` and the normalisation is done in registers, and the three
channels are written once: one kernel, one `torch.stack` into the layout, and, with contrast, one pass and a mean
before it (the contrast's grey mean needs the whole brightened image).

Same arithmetic, same order as `_jitter._passes` + `to_training`'s normalisation: every multiply, add, subtract and
divide is rounded on its own (`__fmul_rn` and friends: NVRTC would otherwise contract a multiply and an add into one
fused multiply-add), the grey weights' `add(alpha=)` as torch's CUDA kernel does it (a fused multiply-add), and
torch's division by a Python scalar as a multiply by its float32 reciprocal. gpu_python_check.py compares the two on a
GPU. float32 work only (float64 keeps the torch operations); float16/bfloat16 round once at the end, as before.

The grayscale choice travels in the sign bit of the per-sample brightness factor (which is >= 0), so the kernel takes
8 tensors, jiterator's limit: the three channel planes and five per-sample columns.
"""

import functools
import logging
from typing import Any, Callable, Dict, Optional, Tuple

import numpy as np
import torch

from . import _jitter, _pages
from ._pixels import _Triple, normalisation

LOG = logging.getLogger("pinshard")

_Kernel = Callable[..., Tuple[torch.Tensor, torch.Tensor, torch.Tensor]]
_KERNELS: Dict[Tuple[Any, ...], _Kernel] = {}
_FAILED: Dict[str, str] = {}  # "reason": why the fused kernel is not used on this machine (said once)


def _f32(value: Any) -> str:
    """`value` rounded to float32, as an exact C hex-float literal."""
    return float(np.float32(value)).hex() + "f"


def _source(flags: Tuple[bool, bool, bool, bool, bool], scale: Tuple[float, ...], shift: Tuple[float, ...]) -> str:
    bright, contrast, saturation, hue, grey = flags
    w0, w1, w2 = (_f32(w) for w in _jitter.GREY_WEIGHTS)
    lines = [
        "float f = first;",
        "const bool grey = __float_as_int(f) < 0;",  # the sign bit: grayscale for this sample (f >= 0 otherwise)
        "f = fabsf(f);",
        "float r = __fmul_rn((float) r8, f), g = __fmul_rn((float) g8, f), b = __fmul_rn((float) b8, f);",
    ]
    clamp = "r = fminf(fmaxf(r, 0.0f), 1.0f); g = fminf(fmaxf(g, 0.0f), 1.0f); b = fminf(fmaxf(b, 0.0f), 1.0f);"
    grey_of = "__fmaf_rn(%s, b, __fmaf_rn(%s, g, __fmul_rn(r, %s)))" % (w2, w1, w0)
    if bright:
        lines.append(clamp)
    if contrast:
        lines += ["float c = contrast, add = contrast_add;",
                  "r = __fadd_rn(__fmul_rn(r, c), add); g = __fadd_rn(__fmul_rn(g, c), add);"
                  " b = __fadd_rn(__fmul_rn(b, c), add);", clamp]
    if saturation:
        lines += ["float s = saturation;",
                  "float grey_part = __fmul_rn(%s, __fsub_rn(1.0f, s));" % grey_of,
                  "r = __fadd_rn(__fmul_rn(r, s), grey_part); g = __fadd_rn(__fmul_rn(g, s), grey_part);"
                  " b = __fadd_rn(__fmul_rn(b, s), grey_part);", clamp]
    if hue:
        lines += [
            "float maxc = fmaxf(fmaxf(r, g), b);",
            "float chroma = __fsub_rn(maxc, fminf(fminf(r, g), b));",
            "float inv = __fdiv_rn(1.0f, fmaxf(chroma, %s));" % _f32(2.0 ** -100),
            # red where red is the max, else green where green is, else blue (as _jitter._hue picks)
            "float h = maxc == r ? __fmul_rn(__fsub_rn(g, b), inv)"
            " : maxc == g ? __fadd_rn(__fmul_rn(__fsub_rn(b, r), inv), 2.0f)"
            " : __fadd_rn(__fmul_rn(__fsub_rn(r, g), inv), 4.0f);",
            "h = __fadd_rn(__fmul_rn(h, %s), (float) hue);" % _f32(np.float32(1) / np.float32(6)),
            "h = __fmul_rn(__fsub_rn(h, floorf(h)), 6.0f);",
            "r = __fsub_rn(maxc, __fmul_rn(fminf(fmaxf(__fsub_rn(2.0f, fabsf(__fsub_rn(fabsf(h), 3.0f))), 0.0f),"
            " 1.0f), chroma));",
            "g = __fsub_rn(maxc, __fmul_rn(fminf(fmaxf(__fsub_rn(2.0f, fabsf(__fsub_rn(fabsf(__fsub_rn(h, 2.0f)),"
            " 3.0f))), 0.0f), 1.0f), chroma));",
            "b = __fsub_rn(maxc, __fmul_rn(fminf(fmaxf(__fsub_rn(2.0f, fabsf(__fsub_rn(fabsf(__fsub_rn(h, 4.0f)),"
            " 3.0f))), 0.0f), 1.0f), chroma));",
        ]
    if grey:
        lines.append("if (grey) { float v = %s; r = v; g = v; b = v; }" % grey_of)
    lines += ["r_out = __fadd_rn(__fmul_rn(r, %s), %s);" % (_f32(scale[0]), _f32(shift[0])),
              "g_out = __fadd_rn(__fmul_rn(g, %s), %s);" % (_f32(scale[1]), _f32(shift[1])),
              "b_out = __fadd_rn(__fmul_rn(b, %s), %s);" % (_f32(scale[2]), _f32(shift[2]))]
    body = "\n  ".join(lines)
    return ("template <typename T> void pinshard_jitter(T r8, T g8, T b8, T first, T contrast, T contrast_add,"
            " T saturation, T hue, T& r_out, T& g_out, T& b_out) {\n  %s\n}" % body)


HostValues = Tuple[Tuple[float, ...], Tuple[float, ...]]


def host_normalisation(mean: Optional[_Triple], std: Optional[_Triple], layout: str) -> HostValues:
    """The normalisation's per-channel (scale * 255, shift) as `to_training` works with them on the GPU (float32 scale
    times 255, rounded to float32), worked out on the host: reading the GPU's tensors back would wait for the queued
    steps."""
    scale, shift = normalisation(mean, std, layout, "cpu")
    return tuple((scale.reshape(3) * 255.0).tolist()), tuple(shift.reshape(3).tolist())


def _kernel(key: Tuple[Any, ...]) -> _Kernel:
    made = _KERNELS.get(key)
    if made is None:
        from torch.cuda import jiterator
        flags, scale, shift = key
        made = jiterator._create_multi_output_jit_fn(_source(flags, scale, shift), num_outputs=3)
        _KERNELS[key] = made
    return made


def usable(images: torch.Tensor, dtype: torch.dtype) -> bool:
    """Whether the fused kernel applies: a CUDA batch, float32 work (not float64), jiterator in this torch, and no
    earlier failure to compile it here."""
    return images.is_cuda and dtype != torch.float64 and not _FAILED and _has_jiterator()


@functools.lru_cache(maxsize=None)
def _has_jiterator() -> bool:
    try:
        from torch.cuda import jiterator
    except ImportError:
        return False
    return hasattr(jiterator, "_create_multi_output_jit_fn")


def to_training(images: torch.Tensor, dtype: torch.dtype, layout: str, values: HostValues,
                f: "_jitter.Factors") -> Optional[torch.Tensor]:
    """`_jitter.to_training` of a uint8 [N, H, W, 3] CUDA batch, fused; `values` from `host_normalisation`. None when
    the kernel cannot be built here (said once; the caller takes the torch operations)."""
    n, height, width, _ = images.shape
    jitter_flags = (f.brightness is not None, f.contrast is not None, f.saturation is not None, f.hue is not None,
                    f.grey is not None)
    try:
        kernel = _kernel((jitter_flags, values[0], values[1]))
    except Exception as error:  # NVRTC missing or refusing: the torch operations still give the same values
        _FAILED["reason"] = "%s: %s" % (type(error).__name__, error)
        LOG.warning("pinshard: the fused CUDA jitter kernel is not available here (%s); using torch operations",
                    _FAILED["reason"])
        return None
    # The per-sample columns, one pinned host tensor and one non-blocking copy (from pageable memory the copy would
    # wait for the steps queued on the GPU): rows first (signed by grayscale), contrast, saturation, hue.
    host = torch.empty((4, n), dtype=torch.float32).pin_memory()
    host[0] = float(np.float32(1.0 / 255.0)) if f.brightness is None else f.brightness / 255.0
    if f.grey is not None:
        host[0][f.grey] = -host[0][f.grey]  # -0.0 for a brightness of 0: the sign bit still says grey
    host[1] = 1.0 if f.contrast is None else f.contrast
    host[2] = 1.0 if f.saturation is None else f.saturation
    host[3] = 0.0 if f.hue is None else f.hue
    columns = host.to(images.device, non_blocking=True).view(4, n, 1, 1)
    first, contrast, saturation, hue = columns[0], columns[1], columns[2], columns[3]
    shape = (n, 3, height, width) if layout == "NCHW" else (n, height, width, 3)
    out = _pages.empty(shape, torch.float32, images.device)
    contrast_add = contrast
    if f.contrast is not None:
        # the grey mean of the brightened image, as _jitter._passes takes it (the same passes over the same tensor)
        x = out if layout == "NCHW" else out.permute(0, 3, 1, 2)
        torch.mul(images.permute(0, 3, 1, 2), first.abs().view(n, 1, 1, 1), out=x)
        if f.brightness is not None:
            x.clamp_(0.0, 1.0)
        means = x.mean(dim=(2, 3))
        w0, w1, w2 = _jitter.GREY_WEIGHTS
        mean = means[:, 0] * w0 + means[:, 1] * w1 + means[:, 2] * w2
        contrast_add = torch.sub(1.0, contrast) * mean.view(n, 1, 1)
    red, green, blue = kernel(images[..., 0], images[..., 1], images[..., 2], first, contrast, contrast_add,
                              saturation, hue)
    torch.stack((red, green, blue), dim=1 if layout == "NCHW" else 3, out=out)
    return out if dtype == torch.float32 else out.to(dtype)
