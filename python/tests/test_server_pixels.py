"""Training-ready pixels written by `pinshard serve` (issue 41): a CPU PinshardDataset asks the server for float32,
float16 or bfloat16 in NCHW or NHWC, normalised; its batches equal `to_training` of the uint8 batches of the same
(seed, epoch, records), within one ulp of the element type (bit for bit where torch fuses the multiply-add).
Run by scripts/test-python.sh (it sets PINSHARD_COMMAND and PINSHARD_TEST_DATASET); see test_client.py."""

import os
import sys
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import torch  # noqa: E402

from pinshard.torch import PinshardDataset, TrainingBatch, normalisation, to_training  # noqa: E402

DATASET = os.environ.get("PINSHARD_TEST_DATASET")
MEAN, STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)
COMMON = dict(batch_size=8, crop=16, workers=2, seed=11)
# Relative spacing of each type's values (2^-mantissa bits): one ulp of |x| is at most |x| times this.
EPSILON = {torch.float32: 2.0 ** -23, torch.float16: 2.0 ** -10, torch.bfloat16: 2.0 ** -7}


def first_batches(dataset, count=2):
    """The dataset's first `count` batches of epoch 0, and its timings once the server reported its first batch."""
    with dataset:
        out = []
        for batch in dataset:
            assert isinstance(batch, TrainingBatch), type(batch)  # a NamedTuple: unpacks as (images, labels)
            images, labels = batch
            assert batch.images is images and batch.labels is labels
            out.append((images, labels))
            if len(out) == count:
                break
        deadline = time.monotonic() + 60
        while "first_batch_ms" not in dataset.timings and time.monotonic() < deadline:
            time.sleep(0.02)  # the server's event line may still be on its way through the pipe
        return out, dataset.timings


@unittest.skipUnless(DATASET and os.environ.get("PINSHARD_COMMAND"),
                     "set PINSHARD_COMMAND and PINSHARD_TEST_DATASET (scripts/test-python.sh does)")
class ServerWritesTrainingPixels(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.reference, _ = first_batches(PinshardDataset(DATASET, dtype=torch.uint8, layout="NHWC", **COMMON))

    def check(self, dtype, layout):
        batches, timings = first_batches(PinshardDataset(DATASET, dtype=dtype, layout=layout, mean=MEAN, std=STD,
                                                         **COMMON))
        scale, shift = normalisation(MEAN, STD, layout)
        self.assertEqual(len(self.reference), len(batches))
        for (pixels, labels), (images, served_labels) in zip(self.reference, batches):
            self.assertTrue(torch.equal(labels, served_labels), "the same records, in the same order")
            expected = to_training(pixels, dtype, layout, scale, shift)
            self.assertEqual(expected.dtype, images.dtype)
            self.assertEqual(tuple(expected.shape), tuple(images.shape))
            error = (images.double() - expected.double()).abs()
            allowed = expected.double().abs() * EPSILON[dtype] + 1e-30
            self.assertTrue(bool((error <= allowed).all()), "%s %s: %d values more than one ulp off, the worst by %g"
                            % (dtype, layout, int((error > allowed).sum()), float(error.max())))
        for step in ("start_ms", "jvm_ms", "dataset_open_ms", "loader_open_ms", "ring_ready_ms", "first_batch_ms",
                     "first_iter_ms", "first_copy_ms"):
            self.assertIn(step, timings)
            self.assertGreaterEqual(timings[step], 0)

    def test_float32_nchw(self):
        self.check(torch.float32, "NCHW")

    def test_float16_nhwc(self):
        self.check(torch.float16, "NHWC")

    def test_bfloat16_nchw(self):
        self.check(torch.bfloat16, "NCHW")

    def test_views_without_a_copy(self):
        dataset = PinshardDataset(DATASET, dtype=torch.float32, layout="NCHW", copy=False, **COMMON)
        with dataset:
            images, labels = next(iter(dataset))
            start, end = dataset._ring().address_range()
            self.assertTrue(start <= images.data_ptr() < end, "a view of the ring, not a copy")
            expected = to_training(self.reference[0][0], torch.float32, "NCHW")
            self.assertTrue(bool(((images - expected).abs() <= expected.abs() * 2.0 ** -23 + 1e-30).all()))

    def first_tensor(self, dataset):
        """The dataset's first batch, and the address of the tensor made for it while the server started (None
        when none was made)."""
        with dataset:
            batches = iter(dataset)
            made = dataset._first_buffer
            address = None
            if made is not None:
                made._thread.join()
                address = made._tensor.data_ptr()
            images, labels = next(batches)
            self.assertIsNone(dataset._first_buffer, "given out once")
            return images, labels, address

    def test_the_first_batch_lands_in_the_tensor_touched_while_the_server_started(self):
        images, labels, address = self.first_tensor(PinshardDataset(DATASET, dtype=torch.float32, layout="NCHW",
                                                                    mean=MEAN, std=STD, **COMMON))
        self.assertIsNotNone(address)
        self.assertEqual(address, images.data_ptr(), "the first batch is the touched tensor")
        expected = to_training(self.reference[0][0], torch.float32, "NCHW", *normalisation(MEAN, STD, "NCHW"))
        self.assertTrue(torch.equal(self.reference[0][1], labels))
        self.assertTrue(bool(((images - expected).abs() <= expected.abs() * 2.0 ** -23 + 1e-30).all()))

    def test_a_first_batch_of_another_shape_gets_a_fresh_tensor(self):
        records = int(os.environ.get("PINSHARD_TEST_RECORDS", "50"))
        options = dict(COMMON, batch_size=records + 14)  # the whole (smaller) dataset in one short batch
        images, labels, address = self.first_tensor(PinshardDataset(DATASET, dtype=torch.float16, layout="NHWC",
                                                                    **options))
        self.assertIsNotNone(address)
        self.assertEqual((records, 16, 16, 3), tuple(images.shape))
        self.assertNotEqual(address, images.data_ptr())
        self.assertEqual(torch.float16, images.dtype)

    def test_no_tensor_is_made_for_views_or_a_uint8_pass_in_this_process(self):
        for dataset in (PinshardDataset(DATASET, dtype=torch.float32, copy=False, **COMMON),
                        PinshardDataset(DATASET, dtype=torch.float64, **COMMON)):
            _, _, address = self.first_tensor(dataset)
            self.assertIsNone(address)


if __name__ == "__main__":
    unittest.main()
