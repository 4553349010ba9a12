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
from typing import Any, List, Optional, Sequence, Tuple

import torch

__all__ = ["empty", "empty_like", "TouchedTensor", "RecycledTensors"]

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


class RecycledTensors:
    """Tensors for the batches a loop copies out of the ring, made again from the memory of an earlier batch once
    nothing references that batch any more: the copy then lands in resident pages, without the kernel's first-touch
    faults and zeroing of a fresh allocation (a 154 MB batch: 12 ms of CPU to copy into reused memory, 30-53 ms into a
    fresh tensor, huge pages included; docs/benchmarks.md). A batch the caller still holds, or any view or storage of it,
    keeps its memory: each tensor given out is made by `torch.from_numpy` over an array kept here, its storage holds a
    reference to that array, and an array is reused only when this pool's own references are the only ones left.
    At most `keep` arrays are kept; when all are held, a fresh tensor is made as `empty_like` does (not kept)."""

    def __init__(self, keep: int = 4) -> None:
        self._keep = keep
        self._arrays: List[Any] = []  # numpy uint8 arrays, each the memory of one batch

    def empty_like(self, tensor: torch.Tensor) -> torch.Tensor:
        """A contiguous CPU tensor of `tensor`'s shape and dtype, its values undefined (the caller overwrites them)."""
        if tensor.device.type != "cpu":
            return empty_like(tensor)
        nbytes = tensor.numel() * tensor.element_size()
        for array in self._arrays:
            # 3: this list's reference, the loop variable's, getrefcount's argument; a live tensor's storage adds one
            if array.nbytes == nbytes and sys.getrefcount(array) == 3:
                return self._tensor(array, tensor)
        if len(self._arrays) >= self._keep:
            return empty_like(tensor)
        array = empty((nbytes,), torch.uint8, torch.device("cpu")).numpy()
        self._arrays.append(array)
        return self._tensor(array, tensor)

    @staticmethod
    def _tensor(array: Any, like: torch.Tensor) -> torch.Tensor:
        # bfloat16 has no numpy dtype: the bytes are viewed as the dtype in torch, sharing the one storage
        return torch.from_numpy(array).view(like.dtype).view(like.shape)
