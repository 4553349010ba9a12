"""uint8 [N, H, W, C] batches to training tensors: `normalisation` (the per-channel scale and shift) and
`to_training` (dtype, layout, normalised), the reference the server's pixels and the jitter pass are checked against.
Public through `pinshard.torch`."""

from typing import Any, Optional, Sequence, Tuple, Union

import torch

from . import _pages

_FLOAT_DTYPES = (torch.float32, torch.float16, torch.bfloat16, torch.float64)
_Triple = Union[float, Sequence[float]]


def normalisation(mean: Optional[_Triple], std: Optional[_Triple], layout: str,
                  device: Union[str, torch.device] = "cpu") -> Tuple[torch.Tensor, torch.Tensor]:
    """(scale, shift) with `x * scale + shift == (x / 255 - mean) / std` for uint8 pixels x, per channel, shaped
    to broadcast over `layout` batches. mean/std in torchvision's units (of a [0, 1] image); without them the output
    is x / 255."""
    mean_t = torch.zeros(3, dtype=torch.float64) if mean is None else torch.as_tensor(mean, dtype=torch.float64)
    std_t = torch.ones(3, dtype=torch.float64) if std is None else torch.as_tensor(std, dtype=torch.float64)
    mean_t, std_t = mean_t.expand(3).clone(), std_t.expand(3).clone()
    if bool((std_t <= 0).any()):
        raise ValueError("std must be > 0 for every channel: %s" % std_t.tolist())
    shape = (1, 3, 1, 1) if layout == "NCHW" else (1, 1, 1, 3)
    scale = (1.0 / (255.0 * std_t)).to(torch.float32).view(shape).to(device)
    shift = (-mean_t / std_t).to(torch.float32).view(shape).to(device)
    return scale, shift


def _triple(values: _Triple) -> Tuple[float, float, float]:
    """mean/std as three floats (one value stands for all three channels)."""
    listed = [float(v) for v in torch.as_tensor(values, dtype=torch.float64).expand(3).tolist()]
    return listed[0], listed[1], listed[2]


def _dtype_error(dtype: Any) -> str:
    """Why `dtype` is refused; a name such as "float32" is shown quoted, so it does not read as the valid one."""
    return ("dtype must be a torch.dtype: torch.uint8, torch.float32, torch.float16, torch.bfloat16 or torch.float64,"
            " not %r%s" % (dtype, " (a %s)" % type(dtype).__name__ if not isinstance(dtype, torch.dtype) else ""))


def to_training(images: torch.Tensor, dtype: torch.dtype = torch.float32, layout: str = "NCHW",
                scale: Optional[torch.Tensor] = None, shift: Optional[torch.Tensor] = None) -> torch.Tensor:
    """A uint8 [N, H, W, C] batch as a new tensor of `dtype` in `layout`: uint8 stays pixels (a copy in the layout),
    a float type becomes `x * scale + shift` (see `normalisation`). Two vectorised passes for float32: one strided
    copy that casts and permutes, one fused multiply-add in place (torch.addcmul); float16/bfloat16 are computed in
    float32 and rounded once."""
    if images.dtype != torch.uint8 or images.dim() != 4:
        raise ValueError("expected a uint8 [N, H, W, C] batch, got %s %s" % (images.dtype, tuple(images.shape)))
    if layout not in ("NCHW", "NHWC"):
        raise ValueError("layout must be \"NCHW\" or \"NHWC\", not %r" % (layout,))
    source = images.permute(0, 3, 1, 2) if layout == "NCHW" else images
    if dtype == torch.uint8:
        return source.contiguous() if layout == "NCHW" else source.clone()
    if dtype not in _FLOAT_DTYPES:
        raise ValueError(_dtype_error(dtype))
    if scale is None or shift is None:
        scale, shift = normalisation(None, None, layout, images.device)
    work = torch.float64 if dtype == torch.float64 else torch.float32
    out = _pages.empty(source.shape, work, images.device)
    out.copy_(source)
    torch.addcmul(shift.to(work), out, scale.to(work), out=out)
    return out if work == dtype else out.to(dtype)
