"""A batch in a ring slot and an epoch of them. Part of `pinshard.client`, which re-exports the names."""

from typing import TYPE_CHECKING, Any, Dict, Iterator, Optional, Tuple

import torch

if TYPE_CHECKING:
    from .client import Ring

# An epoch's stream as Ring._start returns it: (command, epoch, first sequence, start batch, batches).
Stream = Tuple[int, int, int, int, int]


class Batch:
    """One batch in a ring slot. `images` is a tensor in the ring's pixel format (`Ring.dtype`, `Ring.layout`: uint8
    [N, H, W, C] unless the server was asked for another, e.g. float32 [N, C, H, W] normalised with `Ring.mean` and
    `Ring.std`) and `labels` an int32 [N] tensor, both viewing the slot's memory; `ids` the int64 record numbers. Unpacks as `images, labels`. The memory is the
    server's again after `release()`: do not use the tensors past it (copy what you keep).

    `fields` holds the record fields the server was asked to carry (`pinshard serve --fields ...`), by name: text
    (utf8, json) as a list of `str` per batch, bytes as a list of `bytes`, a fixed-length numeric field as one
    [N, length] tensor viewing the slot, a variable-length one as a list of N 1-D tensors viewing the slot (boxes:
    [k, 4] each, already moved through the sample's crop and flip)."""

    __slots__ = ("images", "labels", "ids", "fields", "epoch", "index", "slot", "sequence", "_ring", "_released")

    def __init__(self, ring: "Ring", slot: int, sequence: int, epoch: int, index: int, images: torch.Tensor,
                 labels: torch.Tensor, ids: torch.Tensor, fields: Optional[Dict[str, Any]] = None) -> None:
        self._ring = ring
        self.slot = slot
        self.sequence = sequence
        self.epoch = epoch
        self.index = index
        self.images = images
        self.labels = labels
        self.ids = ids
        self.fields = fields if fields is not None else {}
        self._released = False

    def __iter__(self) -> Iterator[torch.Tensor]:
        return iter((self.images, self.labels))

    def __len__(self) -> int:
        return 2

    def __getitem__(self, i: int) -> torch.Tensor:
        return (self.images, self.labels)[i]

    def release(self) -> None:
        """Gives the slot back to the server. Idempotent."""
        if not self._released:
            self._released = True
            self._ring._release(self.slot, self.sequence)

    def __enter__(self) -> "Batch":
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

    def __repr__(self) -> str:
        return "Batch(epoch=%d, index=%d, size=%d, slot=%d)" % (self.epoch, self.index, self.images.shape[0],
                                                                 self.slot)

class Epoch:
    """One epoch (or the rest of one) as an iterator of `Batch`es, each unpacking to `images, labels`. With
    `auto_release` (the default) a batch is released when the loop asks for the next one or ends; without it the
    trainer calls `batch.release()` (at most `ring.slots` may be held). Records `wait_seconds` (time spent waiting
    for the server) and `batches_taken`."""

    def __init__(self, ring: "Ring", stream: Stream, auto_release: bool = True) -> None:
        self._ring = ring
        self._stream = stream
        self._auto = auto_release
        self._k = 0
        self._previous: Optional[Batch] = None
        self._guess = 0
        self.epoch = stream[1]
        self.start_batch = stream[3]
        self.batches = stream[4]
        self.wait_seconds = 0.0
        self.batches_taken = 0

    def __len__(self) -> int:
        return self.batches

    def __iter__(self) -> "Epoch":
        return self

    def __next__(self) -> Batch:
        if self._auto and self._previous is not None:
            self._previous.release()
            self._previous = None
        if self._k >= self.batches:
            raise StopIteration
        batch, waited = self._ring._take(self._stream, self._k, self._guess)
        self._guess = (batch.slot + 1) % self._ring.slots
        self._k += 1
        self.wait_seconds += waited
        self.batches_taken += 1
        if self._auto:
            self._previous = batch
        return batch

    def close(self) -> None:
        if self._previous is not None:
            self._previous.release()
            self._previous = None
