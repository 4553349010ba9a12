"""Where an iterable dataset of this package stands: the epoch its next iteration delivers and how many of that
epoch's batches were already yielded. PinshardDataset and MixedDataset keep it alike."""

from typing import Any, Dict, Tuple

from ._checks import check_state


class EpochPosition:
    """`set_epoch` for a dataset whose iteration resumes at (`_epoch`, `_consumed`)."""

    _epoch: int = 0
    _consumed: int = 0

    def set_epoch(self, epoch: int) -> None:
        """The epoch the next iteration delivers, from its start; the same epoch again (a loaded state's) keeps its
        resume point."""
        if epoch < 0:
            raise ValueError("epoch must be >= 0: %d" % epoch)
        if epoch != self._epoch:
            self._epoch, self._consumed = epoch, 0


def resume_point(state: Dict[str, Any], seed: int, world_size: int) -> Tuple[int, int]:
    """(epoch, batches consumed) of a `PinshardDataset.state_dict()` (any rank's), refused with the reason unless it
    was saved with this `seed` and `world_size` (the epoch order depends on both)."""
    check_state(state, "PinshardDataset")
    for key in ("epoch", "batchesConsumed", "seed", "worldSize"):
        if key not in state:
            raise ValueError("state %r has no %r: not a PinshardDataset state" % (state, key))
    if int(state["seed"]) != seed:
        raise ValueError("state %r was saved with seed %s; this dataset has seed %d (the epoch order depends on "
                         "it)" % (state, state["seed"], seed))
    if int(state["worldSize"]) != world_size:
        raise ValueError("state %r was saved on %s ranks; this dataset runs on %d: the ring resumes on the same "
                         "world size only" % (state, state["worldSize"], world_size))
    if int(state["epoch"]) < 0 or int(state["batchesConsumed"]) < 0:
        raise ValueError("state %r: epoch and batchesConsumed must be >= 0" % (state,))
    return int(state["epoch"]), int(state["batchesConsumed"])
