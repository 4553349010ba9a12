"""A ring batch's non-blocking copy to a CUDA device, for `PinshardDataset(device="cuda")`."""

from typing import Any, Optional, Tuple

import torch

from ._batch import Batch

__all__ = ["DeviceCopies"]


class DeviceCopies:
    """Copies ring batches to `device` on a CUDA stream of its own (made at the first copy): on the trainer's stream a
    copy would queue behind the step the trainer just launched, and waiting for it (to release the slot) would wait
    for that step."""

    def __init__(self, device: torch.device) -> None:
        self._device = device
        self._stream: Optional["torch.cuda.Stream"] = None

    def copy(self, batch: Batch) -> Tuple[torch.Tensor, torch.Tensor, Any]:
        """(images, labels, event) on the device: the trainer's stream waits for the copy on the GPU, not here; the
        event (a torch.cuda.Event, unannotated in torch) says when the slot may go back to the server."""
        compute = torch.cuda.current_stream(self._device)
        if self._stream is None:
            self._stream = torch.cuda.Stream(self._device)  # type: ignore[no-untyped-call]  # unannotated in torch
        with torch.cuda.stream(self._stream):
            images = batch.images.to(self._device, non_blocking=True)
            labels = batch.labels.to(self._device, non_blocking=True)
            event = torch.cuda.Event()  # type: ignore[no-untyped-call]  # torch: unannotated
            event.record(self._stream)  # type: ignore[no-untyped-call]  # torch: unannotated
        compute.wait_event(event)  # type: ignore[no-untyped-call]  # torch: unannotated
        # made on the copy stream, used and freed on the trainer's (torch's stub types record_stream's argument as
        # torch._C.Stream, not torch.cuda.Stream)
        images.record_stream(compute)  # type: ignore[arg-type]
        labels.record_stream(compute)  # type: ignore[arg-type]
        return images, labels, event
