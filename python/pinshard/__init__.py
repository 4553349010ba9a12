"""pinshard's Python client: PyTorch training loops fed by `pinshard serve` through a shared-memory ring.

    import pinshard
    with pinshard.serve("data/train", batch=256, crop=224, workers=2) as ring:
        for epoch in range(10):
            for images, labels in ring.epoch(epoch):   # uint8 [N, H, W, 3] views of the ring, int32 labels
                train_step(images.to("cuda", non_blocking=True), labels.long())

Standard library, numpy and torch only. Protocol: docs/RING.md in the repository.
"""

from .client import (Batch, Batches, Epoch, Ring, RingError, ServerGone, SUPPORTED_VERSIONS, ensure_ring_directory,
                     ring_directory)
from .server import Server, clean_stale_rings, serve, server_command

__all__ = ["Batch", "Batches", "Epoch", "Ring", "RingError", "ServerGone", "Server", "SUPPORTED_VERSIONS",
           "clean_stale_rings", "ensure_ring_directory", "ring_directory", "serve", "server_command"]
