"""The ring file's mapping and the checked reads of its header and slots (docs/RING.md), shared by the attached
client (`pinshard.client.Ring`) and `check_ring_file`. Part of `pinshard.client`."""

import mmap
import os
import platform
import warnings
from typing import Any, Dict, List, Optional, Tuple

import numpy as np
import numpy.typing as npt
import torch

from . import _layout as L
from ._fields import field_values, read_fields
from ._ringdir import PathLike, RingError, _open_ring_file

#: The ring versions this client reads.
SUPPORTED_VERSIONS = (4,)
# The pixels block's element types, (DLPack type code, bits) -> torch dtype (docs/RING.md, "Pixels").
_PIXEL_DTYPES = {(L.DTYPE_CODE_UINT, 8): torch.uint8, (L.DTYPE_CODE_FLOAT, 32): torch.float32,
                 (L.DTYPE_CODE_FLOAT, 16): torch.float16, (L.DTYPE_CODE_BFLOAT, 16): torch.bfloat16}
_PIXEL_LAYOUTS = {L.LAYOUT_NHWC: "NHWC", L.LAYOUT_NCHW: "NCHW"}


class RingView:
    """A mapped ring file and the checked reads of its header, pixels block, fields block and slots."""

    path: str
    _closed: bool
    _fd: Optional[int]
    field_layout: List[Dict[str, Any]]

    def _map(self, fd: int, info: os.stat_result) -> None:
        size = info.st_size
        self._inode = (info.st_dev, info.st_ino)
        if size < L.slots_offset(1):  # the smallest ring: one slot header and one page of slot data
            raise RingError("%s is not a pinshard ring (%d bytes: too short)" % (self.path, size))
        self._mm = mmap.mmap(fd, size, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
        self._map_checked(size)

    def _map_checked(self, size: int) -> None:
        """Views of the mapping `self._mm` of `size` bytes, after checking the header against the file."""
        if self._mm[L.MAGIC_OFFSET:L.MAGIC_OFFSET + len(L.MAGIC)] != L.MAGIC:
            raise RingError("%s is not a pinshard ring (no \"PINSRING\" magic)" % self.path)
        self._u8 = np.frombuffer(self._mm, dtype=np.uint8)
        control = L.slots_offset(1)  # at least the header, server, client blocks and one slot header
        self._i32 = np.frombuffer(self._mm, dtype="<i4", count=control // 4)
        self._i64 = np.frombuffer(self._mm, dtype="<i8", count=control // 8)
        version = self._int(L.VERSION_OFFSET)
        if version not in SUPPORTED_VERSIONS:
            if version > max(SUPPORTED_VERSIONS):
                raise RingError("%s is a version %d ring; this client reads versions %s: the server is newer than "
                                "the client, update python/pinshard" % (self.path, version, SUPPORTED_VERSIONS))
            raise RingError("%s is a version %d ring; this client reads versions %s: the client is newer than the "
                            "server, update pinshard (the Java side)" % (self.path, version, SUPPORTED_VERSIONS))
        self.slots = self._int(L.SLOT_COUNT_OFFSET)
        file_length = self._long(L.FILE_LENGTH_OFFSET)
        self._slots_offset = self._long(L.SLOTS_OFFSET_OFFSET)
        self._stride = self._long(L.SLOT_STRIDE_OFFSET)
        self.capacity = self._int(L.CAPACITY_OFFSET)
        self.height = self._int(L.HEIGHT_OFFSET)
        self.width = self._int(L.WIDTH_OFFSET)
        self.channels = self._int(L.CHANNELS_OFFSET)
        self._read_pixels()
        geometry_ok = (file_length == size and 1 <= self.slots <= L.MAX_SLOTS
                       and self._slots_offset == L.slots_offset(self.slots)
                       and self._int(L.HEADER_LENGTH_OFFSET) == self._slots_offset
                       and self._stride > 0 and self._stride % L.PAGE == 0
                       and self._slots_offset + self.slots * self._stride == file_length
                       and self.capacity >= 1 and self.height >= 1 and self.width >= 1 and self.channels == 3
                       and self.capacity * self.image_bytes <= self._stride)
        if not geometry_ok:
            raise RingError("%s has an inconsistent header (%d slots of stride %d from %d in %d bytes, file %d bytes)"
                            % (self.path, self.slots, self._stride, self._slots_offset, file_length, size))
        self._i32 = np.frombuffer(self._mm, dtype="<i4", count=self._slots_offset // 4)
        self._i64 = np.frombuffer(self._mm, dtype="<i8", count=self._slots_offset // 8)
        self.batches_per_epoch = self._long(L.BATCHES_PER_EPOCH_OFFSET)
        self.samples_per_epoch = self._long(L.SAMPLES_PER_EPOCH_OFFSET)
        self.records = self._long(L.RECORDS_OFFSET)
        self.seed = self._long(L.SEED_OFFSET)
        self.rank = self._int(L.RANK_OFFSET)
        self.world_size = self._int(L.WORLD_SIZE_OFFSET)
        self.server_pid = self._long(L.SERVER_PID_OFFSET)
        self.classes = self._int(L.CLASS_COUNT_OFFSET)
        if self.classes < 0:
            raise RingError("%s has an inconsistent header (CLASS_COUNT %d)" % (self.path, self.classes))
        self.field_layout = self._read_fields()
        self._size = size
        self.eval_mode = bool(self._int(L.FLAGS_OFFSET) & L.FLAG_EVAL)
        if platform.machine() not in ("x86_64", "AMD64"):
            warnings.warn("pinshard's pure-Python ring client relies on x86-64 ordering (TSO); on %s see "
                          "docs/RING.md, 'ARM64'" % platform.machine())

    def _read_pixels(self) -> None:
        """The pixels block: `dtype` (torch), `layout` ("NHWC" or "NCHW"), `mean` and `std` (3 floats each: what the
        server normalised with; 0 and 1 for none) and `image_bytes`."""
        code, bits, layout = (self._int(L.DTYPE_CODE_OFFSET), self._int(L.DTYPE_BITS_OFFSET),
                              self._int(L.LAYOUT_OFFSET))
        f64 = np.frombuffer(self._mm, dtype="<f8", count=6, offset=L.MEAN_OFFSET)
        self.mean, self.std = tuple(float(v) for v in f64[:3]), tuple(float(v) for v in f64[3:])
        if ((code, bits) not in _PIXEL_DTYPES or layout not in _PIXEL_LAYOUTS
                or not all(np.isfinite(f64)) or not all(s > 0 for s in self.std)):
            raise RingError("%s has an unknown pixel format: DTYPE %d/%d bits, LAYOUT %d, mean %s, std %s"
                            % (self.path, code, bits, layout, self.mean, self.std))
        self.dtype, self.layout = _PIXEL_DTYPES[(code, bits)], _PIXEL_LAYOUTS[layout]
        self.image_bytes = self.height * self.width * self.channels * (bits // 8)

    def _images(self, images_at: int, size: int) -> torch.Tensor:
        """The slot's images as a tensor viewing the mapping: `dtype`, [N, H, W, C] or [N, C, H, W]."""
        flat = torch.from_numpy(self._u8[images_at:images_at + size * self.image_bytes])
        if self.dtype != torch.uint8:
            flat = flat.view(self.dtype)
        if self.layout == "NCHW":
            return flat.view(size, self.channels, self.height, self.width)
        return flat.view(size, self.height, self.width, self.channels)

    # ---- reading fields ----

    def _int(self, offset: int) -> int:
        return int(self._i32[offset >> 2])

    def _long(self, offset: int) -> int:
        return int(self._i64[offset >> 3])

    def _put_int(self, offset: int, value: int) -> None:
        self._i32[offset >> 2] = value

    def _put_long(self, offset: int, value: int) -> None:
        # One aligned 8-byte store (numpy's typed assignment): single-copy atomic on x86-64 and ARM64.
        self._i64[offset >> 3] = value

    def _base(self) -> int:
        """Address of the mapping's first byte."""
        return self._u8.ctypes.data

    def address_range(self) -> Tuple[int, int]:
        """(start, end) addresses of the mapping: every tensor this client hands out lies inside."""
        return self._base(), self._base() + len(self._mm)

    def message(self) -> str:
        length = self._int(L.MESSAGE_OFFSET)
        length = max(0, min(length, L.MESSAGE_MAX_BYTES))
        start = L.MESSAGE_TEXT_OFFSET
        return bytes(self._mm[start:start + length]).decode("utf-8", "replace")

    _read_fields = read_fields
    _field_values = field_values

    def _check_slot(self, slot: int, size: int, images_at: int, labels_at: int, ids_at: int) -> None:
        start = self._slots_offset + slot * self._stride
        end = start + self._stride
        element = self.image_bytes // (self.height * self.width * self.channels)
        for name, at, length, align in (("images", images_at, size * self.image_bytes, element),
                                        ("labels", labels_at, 4 * size, 4), ("sample ids", ids_at, 8 * size, 8)):
            if not 1 <= size <= self.capacity or at < start or at > end - length or at % align:
                raise RingError("%s: slot %d's %s (%d samples at %d) lie outside the slot [%d, %d)"
                                % (self.path, slot, name, size, at, start, end))

    def _check_labels(self, slot: int, labels_at: int, size: int) -> npt.NDArray[Any]:
        """The slot's labels as an int32 array, each checked: -1 (none) or in 0..CLASS_COUNT-1."""
        label_array = self._u8[labels_at:labels_at + 4 * size].view("<i4")
        low, high = int(label_array.min()), int(label_array.max())
        if low < -1 or (self.classes > 0 and high >= self.classes):
            bad = low if low < -1 else high
            raise RingError("%s: slot %d holds label %d, outside -1..%d (CLASS_COUNT %d): the slot was overwritten"
                            % (self.path, slot, bad, self.classes - 1, self.classes))
        return label_array

    def _check_size(self) -> None:
        """The file must still be as long as when it was mapped: touching a page past a truncation is SIGBUS, which
        kills a Python process without a message. Checked (one fstat) before each batch is handed out and before
        each heartbeat store; a truncation after the check can still kill the process (docs/RING.md, §9.1)."""
        size = os.fstat(self._open_fd()).st_size
        if size < self._size:
            raise RingError("ring file %s truncated by another process: %d of its %d bytes are left; stopping before "
                            "a read of a lost page kills this process (SIGBUS)" % (self.path, size, self._size))

    def _shrunk(self) -> bool:
        try:
            return os.fstat(self._open_fd()).st_size < self._size
        except (OSError, TypeError):
            return True

    def _open_fd(self) -> int:
        """The descriptor fstat'ed before each batch; TypeError once `_unmap` dropped it, as os.fstat(None) raised."""
        if self._fd is None:
            raise TypeError("fstat: the ring's descriptor is closed")
        return self._fd

    def _unmap(self) -> None:
        for name in ("_u8", "_i32", "_i64"):
            if hasattr(self, name):
                delattr(self, name)
        mm = getattr(self, "_mm", None)
        if mm is not None:
            try:
                mm.close()
            except BufferError:
                pass  # a tensor still views the ring: the mapping goes with the last one
        fd = getattr(self, "_fd", None)
        if fd is not None:
            os.close(fd)  # drops the flock (the mapping may live on in tensors)
            self._fd = None


def check_ring_file(path: PathLike, accept_other_user: bool = False) -> int:
    """Checks the ring file at `path` as a client does, without attaching: the header against the file, then every
    published slot (SEQUENCE != 0): SEQUENCE not past PUBLISHED, sizes and offsets inside the slot, labels in range.
    Raises RingError naming the file, the slot and the field; returns the number of published slots. Runs over the
    ring test vectors (serve/test-vectors) in the tests."""
    ring = RingView.__new__(RingView)
    ring.path, ring._closed, ring._fd = os.path.abspath(os.fspath(path)), True, None
    fd, info = _open_ring_file(ring.path, os.O_RDONLY, accept_other_user)
    try:
        if info.st_size < L.slots_offset(1):
            raise RingError("%s is not a pinshard ring (%d bytes: too short)" % (ring.path, info.st_size))
        ring._mm = mmap.mmap(fd, info.st_size, mmap.MAP_SHARED, mmap.PROT_READ)
        ring._map_checked(info.st_size)
        published = ring._long(L.PUBLISHED_OFFSET)
        count = 0
        for slot in range(ring.slots):
            header = L.slot_header_offset(slot)
            sequence = ring._long(header + L.SLOT_SEQUENCE_OFFSET)
            if sequence == 0:
                continue
            if sequence < 0 or sequence > published:
                raise RingError("%s: slot %d's SEQUENCE %d is past PUBLISHED %d: the slot header was overwritten"
                                % (ring.path, slot, sequence, published))
            size = ring._int(header + L.SLOT_SIZE_OFFSET)
            labels_at = ring._long(header + L.SLOT_LABELS_OFFSET)
            ring._check_slot(slot, size, ring._long(header + L.SLOT_IMAGES_OFFSET), labels_at,
                             ring._long(header + L.SLOT_IDS_OFFSET))
            ring._check_labels(slot, labels_at, size)
            if ring.field_layout:
                ring._field_values(slot, ring._long(header + L.SLOT_IMAGES_OFFSET), size)
            count += 1
        return count
    finally:
        os.close(fd)
        ring._unmap()
