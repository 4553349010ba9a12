"""Large CPU tensors on transparent huge pages: `empty` is torch.empty that, for a CPU tensor of 8 MiB or more on
Linux, advises the kernel (madvise MADV_HUGEPAGE) to back the tensor's whole 2 MiB pages with huge pages before
anything touches them.

Why: a batch tensor the loop yields (64 x 3 x 224 x 224 float32 is 38 MiB) is a fresh allocation every batch (the
caller owns it), which glibc maps anew (above its 32 MiB mmap threshold it always does) and the kernel faults in
4 KiB page by page on first write: about 9,600 faults a batch, some 90-110 ms of a 2-core VM's time (2026-12-04, the
jitter benchmark's machine; 11-13 ms with huge pages). The kernel's default here is `madvise` (huge pages only where
asked for), so asking matters. Nothing changes but the page size: the values, the memory's owner (torch's allocator
frees it as before) and its size (only whole 2 MiB pages inside the tensor are advised). Where madvise is missing or
refuses, the tensor is returned as torch.empty made it.
"""

import ctypes
import sys
from typing import Any, Optional, Sequence

import torch

__all__ = ["empty", "empty_like"]

_HUGE = 2 << 20  # x86-64 and arm64 (4 KiB base pages) transparent huge page size
_SMALLEST = 8 << 20  # below this the few pages saved are not worth a system call
_MADV_HUGEPAGE = 14

_madvise: Optional[Any] = None
if sys.platform.startswith("linux"):
    try:
        _madvise = ctypes.CDLL(None, use_errno=True).madvise
        _madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
        _madvise.restype = ctypes.c_int
    except (OSError, AttributeError):
        _madvise = None


def _advise(tensor: torch.Tensor) -> torch.Tensor:
    if _madvise is None or tensor.device.type != "cpu":
        return tensor
    size = tensor.numel() * tensor.element_size()
    if size < _SMALLEST:
        return tensor
    start = tensor.data_ptr()
    first = (start + _HUGE - 1) // _HUGE * _HUGE
    last = (start + size) // _HUGE * _HUGE
    if last > first:
        _madvise(first, last - first, _MADV_HUGEPAGE)  # a refusal (EINVAL: no THP in this kernel) changes nothing
    return tensor


def empty(shape: Sequence[int], dtype: torch.dtype, device: torch.device) -> torch.Tensor:
    """torch.empty(shape, dtype=dtype, device=device), large CPU tensors advised onto huge pages."""
    return _advise(torch.empty(tuple(shape), dtype=dtype, device=device))


def empty_like(tensor: torch.Tensor) -> torch.Tensor:
    """A new contiguous tensor of `tensor`'s shape, dtype and device (as torch.empty_like of a contiguous one), large
    CPU tensors advised onto huge pages."""
    return empty(tensor.shape, tensor.dtype, tensor.device)
