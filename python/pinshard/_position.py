"""Where an iterable dataset of this package stands: the epoch its next iteration delivers and how many of that
epoch's batches were already yielded. PinshardDataset and MixedDataset keep it alike."""


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
