"""What `PinshardDataset` yields, and the rank and world size it serves by default. Part of `pinshard.torch`, which
re-exports the names."""

import os
from typing import Any, Dict, NamedTuple, Tuple

import torch

__all__ = ["TrainingBatch", "FieldsBatch", "rank_and_world"]


class TrainingBatch(NamedTuple):
    """What `PinshardDataset` yields: `images` (training-ready, see the class) and `labels` (int64 [N]); unpacks as
    `images, labels`."""
    images: torch.Tensor
    labels: torch.Tensor


class FieldsBatch(NamedTuple):
    """What `PinshardDataset(fields=[...])` yields: `images`, `labels` and `fields` (name -> the batch's values);
    unpacks as `images, labels, fields`."""
    images: torch.Tensor
    labels: torch.Tensor
    fields: Dict[str, Any]


def rank_and_world() -> Tuple[int, int]:
    """(rank, world size): torch.distributed's when it is initialised, else torchrun's RANK and WORLD_SIZE, else
    (0, 1)."""
    import torch.distributed as dist
    if dist.is_available() and dist.is_initialized():
        return dist.get_rank(), dist.get_world_size()
    return int(os.environ.get("RANK", "0")), int(os.environ.get("WORLD_SIZE", "1"))
