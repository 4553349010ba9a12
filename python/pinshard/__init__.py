"""pinshard's Python client: PyTorch training loops fed by `pinshard serve` through a shared-memory ring.

    from pinshard.torch import PinshardDataset
    ds = PinshardDataset("data/train", batch_size=256, crop=224, mean=(0.485, 0.456, 0.406), std=(0.229, 0.224, 0.225))
    for images, labels in ds:                 # float32 [N, 3, 224, 224] normalised, int64 labels
        loss = train_step(images, labels)

or, a level lower, the ring itself (uint8 [N, H, W, 3] views of its slots):

    import pinshard
    with pinshard.serve("data/train", batch=256, crop=224, workers=2) as ring:
        for epoch in range(10):
            for images, labels in ring.epoch(epoch):
                train_step(images.to("cuda", non_blocking=True), labels.long())

`pinshard.write(DIR, samples)` writes (image, label) pairs from memory into a dataset through `pinshard convert`.

Standard library, numpy and torch only; the names below load on first use, so `pinshard` (the console script)
starts without importing torch. Protocol: docs/RING.md in the repository.
"""

import importlib
from typing import Any, List

_EXPORTS = {"Batch": "client", "Batches": "client", "Epoch": "client", "Ring": "client", "RingError": "client",
            "ServerGone": "client", "SUPPORTED_VERSIONS": "client",
            "ensure_ring_directory": "client", "ring_directory": "client", "Server": "server",
            "clean_stale_rings": "server", "serve": "server", "server_command": "server",
            "JavaNotFound": "_java", "find_java": "_java",
            "pinshard_command": "server", "write": "writer", "WriteError": "writer", "WriteResult": "writer"}

__all__ = sorted(_EXPORTS) + ["__version__"]


def __getattr__(name: str) -> Any:
    if name == "__version__":
        from importlib import metadata
        try:
            return metadata.version("pinshard")
        except metadata.PackageNotFoundError:
            return "0+checkout"
    if name in _EXPORTS:
        value = getattr(importlib.import_module("." + _EXPORTS[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError("module 'pinshard' has no attribute %r" % name)


def __dir__() -> List[str]:
    return __all__
