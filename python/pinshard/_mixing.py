"""`MixedDataset`: several datasets mixed per batch with weights, and `mixing_schedule`, its seeded order. Public
through `pinshard.torch`."""

from typing import Any, Dict, Generator, Iterator, List, Optional, Sequence

import torch
import torch.utils.data

from ._position import EpochPosition


def mixing_schedule(weights: Sequence[float], batches: int, seed: int, epoch: int) -> torch.Tensor:
    """Which source gives each of an epoch's `batches`: source i exactly round(w_i / sum(w) * batches) times (largest
    remainders settle the rounding, ties to the lower index), in an order drawn from (seed, epoch) alone, so every
    rank and every resumed run computes the same schedule."""
    total = float(sum(weights))
    shares = [w / total * batches for w in weights]
    counts = [int(s) for s in shares]
    by_remainder = sorted(range(len(weights)), key=lambda i: (-(shares[i] - counts[i]), i))
    for i in by_remainder[:batches - sum(counts)]:
        counts[i] += 1
    sources = torch.repeat_interleave(torch.arange(len(weights)), torch.tensor(counts))
    generator = torch.Generator().manual_seed((seed * 1_000_003 + epoch) & 0x7FFF_FFFF_FFFF_FFFF)
    return sources[torch.randperm(batches, generator=generator)]


class MixedDataset(EpochPosition, torch.utils.data.IterableDataset[Any]):
    """Several datasets mixed with weights, as MosaicML Streaming's `Stream(proportion=)` and LitData's
    `CombinedStreamingDataset(weights=)`: each epoch yields `batches_per_epoch` batches (default: the sources'
    batches per epoch summed), source i giving exactly its weight's share of them, in a seeded order.

        train = MixedDataset([PinshardDataset("/data/photos", **common), PinshardDataset("/data/synthetic", **common)],
                             weights=[0.7, 0.3], seed=42)
        for images, labels in train: ...

    Mixing is per batch (LitData's `batching_method="per_stream"`): each batch comes whole from one source, so its
    tensors keep one shape and one label space per batch; a source runs its own server and keeps its own place. A
    source asked for more batches than its epoch holds goes on into its next epoch (a fresh shuffle: oversampling
    repeats samples across epochs, never within one of its epochs); one asked for fewer continues where it stopped
    at the next mixed epoch, so over the run every sample is seen at its weight's rate. `state_dict()` holds the
    mixed epoch, the batches consumed in it and every source's own state; `load_state_dict()` resumes to the
    identical remaining batches. Ranks: each source splits its data between ranks itself, and the schedule depends
    on (seed, epoch) only, so all ranks take the same number of batches from each source. Sources are any
    IterableDatasets with `len()`, `state_dict()` and `load_state_dict()` (PinshardDataset has them)."""

    def __init__(self, datasets: Sequence[Any], weights: Optional[Sequence[float]] = None, *,
                 batches_per_epoch: Optional[int] = None, seed: int = 0):
        super().__init__()
        if not datasets:
            raise ValueError("MixedDataset needs at least one dataset")
        weights = [1.0] * len(datasets) if weights is None else [float(w) for w in weights]
        if len(weights) != len(datasets):
            raise ValueError("%d weights for %d datasets" % (len(weights), len(datasets)))
        if not all(w >= 0 and w < float("inf") for w in weights) or sum(weights) <= 0:
            raise ValueError("weights must be finite, >= 0 and not all 0: %s" % weights)
        if batches_per_epoch is not None and batches_per_epoch < 1:
            raise ValueError("batches_per_epoch must be >= 1: %d" % batches_per_epoch)
        self.datasets, self.weights, self.seed = list(datasets), weights, int(seed)
        self._batches_per_epoch = batches_per_epoch
        self._epoch, self._consumed = 0, 0
        self._iterators: List[Optional[Iterator[Any]]] = [None] * len(self.datasets)
        self._running: Optional[Generator[Any, None, None]] = None

    def __len__(self) -> int:
        """Batches per mixed epoch (the sources' own counts summed unless given; starts their servers then)."""
        if self._batches_per_epoch is None:
            self._batches_per_epoch = sum(len(d) for d in self.datasets)
        return self._batches_per_epoch

    def state_dict(self) -> Dict[str, Any]:
        """Where the mix stands: the next iteration continues after the last batch yielded."""
        return {"epoch": self._epoch, "batchesConsumed": self._consumed, "seed": self.seed,
                "weights": list(self.weights), "sources": [d.state_dict() for d in self.datasets]}

    def load_state_dict(self, state: Dict[str, Any]) -> None:
        """Resumes at `state` (from `state_dict()` of a mix of the same sources, weights and seed)."""
        for key in ("epoch", "batchesConsumed", "seed", "weights", "sources"):
            if key not in state:
                raise ValueError("state has no %r: not a MixedDataset state" % key)
        if int(state["seed"]) != self.seed or [float(w) for w in state["weights"]] != self.weights:
            raise ValueError("state was saved with seed %s and weights %s; this mix has seed %d and weights %s (the "
                             "schedule depends on both)" % (state["seed"], state["weights"], self.seed, self.weights))
        if len(state["sources"]) != len(self.datasets):
            raise ValueError("state holds %d sources; this mix has %d" % (len(state["sources"]), len(self.datasets)))
        if int(state["epoch"]) < 0 or int(state["batchesConsumed"]) < 0:
            raise ValueError("state: epoch and batchesConsumed must be >= 0")
        self._close_running()
        for dataset, source_state in zip(self.datasets, state["sources"]):
            dataset.load_state_dict(source_state)
        self._epoch, self._consumed = int(state["epoch"]), int(state["batchesConsumed"])

    def _close_running(self) -> None:
        for i, iterator in enumerate(self._iterators):
            if iterator is not None and hasattr(iterator, "close"):
                iterator.close()  # its held slot goes back; the source's place stays in its own state
            self._iterators[i] = None
        if self._running is not None:
            self._running.close()
            self._running = None

    def __iter__(self) -> Iterator[Any]:
        if self._running is not None:
            self._running.close()
        self._running = self._mixed()
        return self._running

    def _next_of(self, source: int) -> Any:
        for attempt in range(2):
            iterator = self._iterators[source]
            if iterator is None:
                iterator = self._iterators[source] = iter(self.datasets[source])  # a finished source: its next epoch
            try:
                return next(iterator)
            except StopIteration:
                self._iterators[source] = None
        raise RuntimeError("source %d of the mix yields no batches (an empty dataset or split?)" % source)

    def _mixed(self) -> Generator[Any, None, None]:
        total = len(self)
        if self._consumed >= total:
            self._epoch, self._consumed = self._epoch + 1, 0
        schedule = mixing_schedule(self.weights, total, self.seed, self._epoch).tolist()
        for source in schedule[self._consumed:]:
            batch = self._next_of(source)
            self._consumed += 1
            yield batch
        self._epoch, self._consumed = self._epoch + 1, 0

    def close(self) -> None:
        """Stops every source's server."""
        self._close_running()
        for dataset in self.datasets:
            if hasattr(dataset, "close"):
                dataset.close()

    def __enter__(self) -> "MixedDataset":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
