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
import threading
from typing import Any, Optional, Sequence, Tuple

import torch

__all__ = ["empty", "empty_like", "TouchedTensor"]

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


class TouchedTensor:
    """A CPU tensor allocated and touched in a thread of its own, for the first batch of a `PinshardDataset` while its
    server starts (the training process only waits then): the first copy out of the ring into fresh memory otherwise
    pays the kernel's first-touch faults and zeroing of the whole batch (154 MB for 256 float32 224-px crops) on top
    of the copy, while the server's workers hold both cores of a small machine. Taken once, by a batch of exactly its
    shape and dtype; any other first batch gets a fresh tensor as before."""

    def __init__(self, shape: Tuple[int, ...], dtype: torch.dtype) -> None:
        self._shape, self._dtype = shape, dtype
        self._tensor: Optional[torch.Tensor] = None
        self._thread = threading.Thread(target=self._make, name="pinshard-first-batch-buffer", daemon=True)
        self._thread.start()

    def _make(self) -> None:
        self._tensor = empty(self._shape, self._dtype, torch.device("cpu")).zero_()

    def take(self, like: torch.Tensor) -> Optional[torch.Tensor]:
        """The touched tensor when `like` has its shape and dtype, else None; the tensor is given out once."""
        self._thread.join()
        tensor, self._tensor = self._tensor, None
        if tensor is None or tuple(like.shape) != self._shape or like.dtype != self._dtype:
            return None
        return tensor
