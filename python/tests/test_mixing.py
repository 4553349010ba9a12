"""pinshard.torch.MixedDataset: exact shares per epoch, a seeded schedule, sources that run into their next epoch,
and a state_dict that resumes to the identical remaining batches — on counting sources (no server) and on two
real PinshardDatasets (with PINSHARD_COMMAND and PINSHARD_TEST_DATASET, as scripts/test-python.sh sets them)."""

import os
import sys
import unittest
from collections import Counter

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import torch  # noqa: E402

from pinshard.torch import MixedDataset, PinshardDataset, mixing_schedule  # noqa: E402


class Counting(torch.utils.data.IterableDataset):
    """A source of `batches` batches per epoch, each (tensor [name, epoch, index], None), keeping its place as
    PinshardDataset does (a pass left early is continued by the next iter())."""

    def __init__(self, name, batches):
        self.name, self.batches, self.epoch, self.consumed = name, batches, 0, 0

    def __len__(self):
        return self.batches

    def __iter__(self):
        if self.consumed >= self.batches:
            self.epoch, self.consumed = self.epoch + 1, 0
        while self.consumed < self.batches:
            self.consumed += 1
            yield torch.tensor([self.name, self.epoch, self.consumed - 1]), None
        self.epoch, self.consumed = self.epoch + 1, 0

    def state_dict(self):
        return {"epoch": self.epoch, "batchesConsumed": self.consumed}

    def load_state_dict(self, state):
        self.epoch, self.consumed = state["epoch"], state["batchesConsumed"]


def ids(batches):
    return [tuple(batch.tolist()) for batch, _ in batches]


class Schedule(unittest.TestCase):
    def test_shares_are_exact_and_the_order_depends_on_seed_and_epoch(self):
        for weights, batches in (([0.7, 0.3], 10), ([1, 1, 1], 7), ([5, 0, 2], 9), ([0.2, 0.5, 0.3], 1)):
            schedule = mixing_schedule(weights, batches, seed=3, epoch=0).tolist()
            counts = Counter(schedule)
            self.assertEqual(batches, len(schedule))
            shares = [w / sum(weights) * batches for w in weights]
            for i, share in enumerate(shares):
                self.assertLess(abs(counts[i] - share), 1, (weights, batches, counts))
        a = mixing_schedule([1, 1], 40, seed=3, epoch=0).tolist()
        self.assertEqual(a, mixing_schedule([1, 1], 40, seed=3, epoch=0).tolist())
        self.assertNotEqual(a, mixing_schedule([1, 1], 40, seed=3, epoch=1).tolist())
        self.assertNotEqual(a, mixing_schedule([1, 1], 40, seed=4, epoch=0).tolist())


class Mixing(unittest.TestCase):
    def test_an_epoch_takes_each_sources_share_and_oversampled_sources_go_on_into_their_next_epoch(self):
        mix = MixedDataset([Counting(0, 3), Counting(1, 5)], weights=[3, 1], batches_per_epoch=12, seed=1)
        self.assertEqual(12, len(mix))
        first = ids(mix)
        self.assertEqual({0: 9, 1: 3}, dict(Counter(name for name, _, _ in first)))
        zero = [(epoch, index) for name, epoch, index in first if name == 0]
        self.assertEqual([(e, i) for e in range(3) for i in range(3)], zero)  # three whole epochs, in order
        one = [(epoch, index) for name, epoch, index in first if name == 1]
        self.assertEqual([(0, 0), (0, 1), (0, 2)], one)  # undersampled: continues where it stopped next time
        second = ids(mix)
        self.assertEqual([(0, 3), (0, 4), (1, 0)], [(e, i) for n, e, i in second if n == 1])
        self.assertNotEqual([n for n, _, _ in first], [n for n, _, _ in second])  # a new schedule per epoch

    def test_the_default_epoch_is_the_sources_batches_summed(self):
        mix = MixedDataset([Counting(0, 4), Counting(1, 6)])
        self.assertEqual(10, len(mix))
        self.assertEqual({0: 5, 1: 5}, dict(Counter(n for n, _, _ in ids(mix))))

    def test_state_dict_resumes_to_the_identical_remaining_batches(self):
        def make():
            return MixedDataset([Counting(0, 3), Counting(1, 4)], weights=[0.6, 0.4], batches_per_epoch=10, seed=7)
        whole = make()
        ids(whole)  # epoch 0
        expected = ids(whole)  # epoch 1
        run = make()
        ids(run)
        batches = iter(run)
        head = [tuple(next(batches)[0].tolist()) for _ in range(4)]
        state = run.state_dict()
        self.assertEqual((1, 4), (state["epoch"], state["batchesConsumed"]))
        resumed = make()
        resumed.load_state_dict(state)
        self.assertEqual(expected, head + ids(resumed))

    def test_bad_arguments_and_states_are_refused(self):
        source = [Counting(0, 2), Counting(1, 2)]
        for kwargs in ({"weights": [1]}, {"weights": [-1, 2]}, {"weights": [0, 0]}, {"weights": [float("nan"), 1]},
                       {"batches_per_epoch": 0}):
            with self.subTest(kwargs=kwargs), self.assertRaises(ValueError):
                MixedDataset(source, **kwargs)
        with self.assertRaises(ValueError):
            MixedDataset([])
        state = MixedDataset(source, weights=[1, 2], seed=1).state_dict()
        for other in (MixedDataset(source, weights=[1, 2], seed=2), MixedDataset(source, weights=[2, 1], seed=1),
                      MixedDataset(source[:1], weights=[1], seed=1)):
            with self.subTest(other=other.weights), self.assertRaises(ValueError):
                other.load_state_dict(state)


DATASET = os.environ.get("PINSHARD_TEST_DATASET")
RECORDS = int(os.environ.get("PINSHARD_TEST_RECORDS", "50"))


@unittest.skipUnless(DATASET and os.environ.get("PINSHARD_COMMAND"),
                     "set PINSHARD_COMMAND and PINSHARD_TEST_DATASET (scripts/test-python.sh does)")
class RealServers(unittest.TestCase):
    """Two servers over the test dataset (record r filled with r % 251, labelled r % 5), told apart by order."""

    def sources(self):
        common = dict(batch_size=5, crop=8, workers=1, dtype=torch.uint8, layout="NHWC", eval=True)
        return [PinshardDataset(DATASET, order="sequential", **common),
                PinshardDataset(DATASET, order="random", seed=9, **common)]

    def test_a_mixed_epoch_and_its_resume_through_real_servers(self):
        per_source = RECORDS // 5
        with MixedDataset(self.sources(), weights=[1, 3], batches_per_epoch=per_source, seed=2) as mix:
            whole = [(images[:, 0, 0, 0].tolist(), labels.tolist()) for images, labels in mix]
        self.assertEqual(per_source, len(whole))
        schedule = mixing_schedule([1, 3], per_source, seed=2, epoch=0).tolist()
        from_sequential = [fill for (fill, _), source in zip(whole, schedule) if source == 0]
        self.assertEqual([list(range(5 * k, 5 * k + 5)) for k in range(len(from_sequential))], from_sequential)
        self.assertNotEqual(sorted(f for fill, _ in whole for f in fill), [f for fill, _ in whole for f in fill])
        for fill, labels in whole:
            self.assertEqual([f % 5 for f in fill], labels)  # pixels and labels of the same records
        with MixedDataset(self.sources(), weights=[1, 3], batches_per_epoch=per_source, seed=2) as mix:
            batches = iter(mix)
            head = [next(batches)[1].tolist() for _ in range(3)]
            state = mix.state_dict()
        with MixedDataset(self.sources(), weights=[1, 3], batches_per_epoch=per_source, seed=2) as resumed:
            resumed.load_state_dict(state)
            rest = [labels.tolist() for _, labels in resumed]
        self.assertEqual([labels for _, labels in whole], head + rest)


if __name__ == "__main__":
    unittest.main()
