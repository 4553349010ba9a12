"""pinshard.torch's conversion of ring batches (uint8 NHWC) to training tensors, against an element-by-element
reference; and the dataset's argument checks. No server needed."""

import os
import sys
import unittest
from unittest import mock

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import torch  # noqa: E402

from pinshard import _pages  # noqa: E402
from pinshard.torch import PinshardDataset, normalisation, rank_and_world, to_training  # noqa: E402

MEAN, STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)


def batch(n=3, h=5, w=7):
    generator = torch.Generator().manual_seed(7)
    return torch.randint(0, 256, (n, h, w, 3), dtype=torch.uint8, generator=generator)


def reference(images, mean, std):
    """(x / 255 - mean) / std per pixel and channel, in float64, NCHW."""
    out = torch.empty(images.shape[0], 3, images.shape[1], images.shape[2], dtype=torch.float64)
    for c in range(3):
        out[:, c] = (images[..., c].double() / 255 - mean[c]) / std[c]
    return out


class ToTraining(unittest.TestCase):
    def test_float32_nchw_is_normalised_per_channel(self):
        images = batch()
        scale, shift = normalisation(MEAN, STD, "NCHW")
        out = to_training(images, torch.float32, "NCHW", scale, shift)
        self.assertEqual((torch.float32, (3, 3, 5, 7)), (out.dtype, tuple(out.shape)))
        self.assertTrue(out.is_contiguous())
        self.assertLess((out.double() - reference(images, MEAN, STD)).abs().max().item(), 1e-5)

    def test_nhwc_keeps_the_channels_last(self):
        images = batch()
        scale, shift = normalisation(MEAN, STD, "NHWC")
        out = to_training(images, torch.float32, "NHWC", scale, shift)
        self.assertEqual((3, 5, 7, 3), tuple(out.shape))
        self.assertLess((out.double() - reference(images, MEAN, STD).permute(0, 2, 3, 1)).abs().max().item(), 1e-5)

    def test_half_types_are_within_half_an_ulp_of_the_exact_value(self):
        images = batch()
        scale, shift = normalisation(MEAN, STD, "NCHW")
        expected = reference(images, MEAN, STD)
        for dtype, tolerance in ((torch.float16, 2e-3), (torch.bfloat16, 1e-2)):  # half an ulp at |x| < 2.7
            out = to_training(images, dtype, "NCHW", scale, shift)
            self.assertEqual(dtype, out.dtype)
            self.assertLess((out.double() - expected).abs().max().item(), tolerance, dtype)

    def test_without_mean_and_std_pixels_scale_to_zero_one(self):
        images = batch()
        out = to_training(images, torch.float32, "NCHW")
        self.assertLess((out.double() - images.permute(0, 3, 1, 2).double() / 255).abs().max().item(), 1e-6)
        self.assertEqual(1.0, to_training(torch.full((1, 1, 1, 3), 255, dtype=torch.uint8)).max().item())

    def test_uint8_is_a_copy_in_the_layout(self):
        images = batch()
        nchw = to_training(images, torch.uint8, "NCHW")
        self.assertTrue(torch.equal(images.permute(0, 3, 1, 2), nchw))
        nhwc = to_training(images, torch.uint8, "NHWC")
        self.assertTrue(torch.equal(images, nhwc))
        self.assertNotEqual(images.data_ptr(), nhwc.data_ptr())

    def test_bad_input_is_refused_by_name(self):
        with self.assertRaisesRegex(ValueError, "uint8 \\[N, H, W, C\\]"):
            to_training(torch.zeros(2, 3, 4, 3))
        with self.assertRaisesRegex(ValueError, "layout"):
            to_training(batch(), layout="CHW")
        with self.assertRaisesRegex(ValueError, "dtype"):
            to_training(batch(), dtype=torch.int32)
        with self.assertRaisesRegex(ValueError, "std must be > 0"):
            normalisation(MEAN, (0.2, 0.0, 0.2), "NCHW")


class HugePages(unittest.TestCase):
    """pinshard._pages: batch tensors of 8 MiB or more advised onto huge pages, whole 2 MiB pages inside the tensor
    only; nothing else about the tensor changes."""

    def test_a_large_batch_advises_only_whole_huge_pages_inside_it(self):
        calls = []
        with mock.patch.object(_pages, "_madvise", side_effect=lambda *a: calls.append(a) or 0):
            t = _pages.empty((64, 3, 224, 224), torch.float32, torch.device("cpu"))
            small = _pages.empty((4, 3, 224, 224), torch.float32, torch.device("cpu"))  # 2.4 MB: not advised
        self.assertEqual(((64, 3, 224, 224), torch.float32, True), (tuple(t.shape), t.dtype, t.is_contiguous()))
        self.assertEqual((4, 3, 224, 224), tuple(small.shape))
        self.assertEqual(1, len(calls), calls)
        start, length, advice = calls[0]
        huge = 2 << 20
        self.assertEqual((0, 0, 14), (start % huge, length % huge, advice))
        self.assertGreaterEqual(start, t.data_ptr())
        self.assertLessEqual(start + length, t.data_ptr() + t.numel() * 4)
        self.assertGreater(length, t.numel() * 4 - 2 * huge)

    def test_the_values_and_the_copy_out_of_the_ring_are_unchanged(self):
        images = torch.randint(0, 256, (64, 224, 224, 3), dtype=torch.uint8)
        copy = _pages.empty_like(images).copy_(images)  # what the loop does instead of clone()
        self.assertTrue(torch.equal(images.clone(), copy))
        scale, shift = normalisation(MEAN, STD, "NCHW")
        out = to_training(images[:2], torch.float32, "NCHW", scale, shift)
        self.assertTrue(torch.equal(out, to_training(images, torch.float32, "NCHW", scale, shift)[:2]))


class DatasetArguments(unittest.TestCase):
    def test_contradictory_arguments_are_refused_before_any_server_starts(self):
        with self.assertRaisesRegex(ValueError, "mean/std need a float dtype"):
            PinshardDataset("unused", dtype=torch.uint8, mean=MEAN, std=STD)
        with self.assertRaisesRegex(ValueError, "copy=False"):
            PinshardDataset("unused", dtype=torch.float64, copy=False)
        with self.assertRaisesRegex(ValueError, "layout"):
            PinshardDataset("unused", layout="CHW")
        with self.assertRaisesRegex(ValueError, "not 'float32' \\(a str\\)"):  # quoted: not read as the valid one
            PinshardDataset("unused", dtype="float32")

    def test_state_of_another_seed_or_world_is_refused(self):
        ds = PinshardDataset("unused", seed=4, world_size=2, rank=1)
        self.assertEqual({"epoch": 0, "batchesConsumed": 0, "seed": 4, "worldSize": 2, "rank": 1}, ds.state_dict())
        with self.assertRaisesRegex(ValueError, "seed 5; this dataset has seed 4"):
            ds.load_state_dict({"epoch": 1, "batchesConsumed": 2, "seed": 5, "worldSize": 2, "rank": 0})
        with self.assertRaisesRegex(ValueError, "saved on 3 ranks; this dataset runs on 2"):
            ds.load_state_dict({"epoch": 1, "batchesConsumed": 2, "seed": 4, "worldSize": 3, "rank": 0})
        ds.load_state_dict({"epoch": 1, "batchesConsumed": 2, "seed": 4, "worldSize": 2, "rank": 0})
        self.assertEqual({"epoch": 1, "batchesConsumed": 2, "seed": 4, "worldSize": 2, "rank": 1}, ds.state_dict())
        ds.set_epoch(1)  # the loaded epoch keeps its resume point
        self.assertEqual(2, ds.state_dict()["batchesConsumed"])
        ds.set_epoch(2)
        self.assertEqual((2, 0), (ds.state_dict()["epoch"], ds.state_dict()["batchesConsumed"]))

    def test_rank_and_world_come_from_torchrun_variables_without_torch_distributed(self):
        saved = {k: os.environ.get(k) for k in ("RANK", "WORLD_SIZE")}
        try:
            os.environ.update(RANK="3", WORLD_SIZE="4")
            self.assertEqual((3, 4), rank_and_world())
            self.assertEqual((3, 4), (PinshardDataset("unused").rank, PinshardDataset("unused").world_size))
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v


if __name__ == "__main__":
    unittest.main()
