"""pinshard._jitter: the per-sample draws against the vectors Java's JitterParams generates, the pixel arithmetic
against torchvision's functional transforms applied sample by sample with the same factors, and the argument checks
(ValueError naming the parameter, before any JVM starts). No server needed."""

import json
import os
import struct
import sys
import unittest
from unittest import mock

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import numpy as np  # noqa: E402
import torch  # noqa: E402

from pinshard import _jitter  # noqa: E402
from pinshard.torch import PinshardDataset, normalisation  # noqa: E402

VECTORS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "jitter_vectors.json")
MEAN, STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)


def bits(value) -> int:
    return struct.unpack("<i", struct.pack("<f", float(value)))[0]


def from_bits(b: int) -> np.float32:
    return np.float32(struct.unpack("<f", struct.pack("<i", b))[0])


class JavaVectors(unittest.TestCase):
    """python/tests/jitter_vectors.json is written by Java (JitterVectors; JitterVectorsTest keeps it current)."""

    @classmethod
    def setUpClass(cls):
        with open(VECTORS, encoding="utf-8") as f:
            cls.vectors = json.load(f)

    def test_draws_are_javas_bit_for_bit(self):
        cases = self.vectors["cases"]
        self.assertGreater(len(cases), 100)
        for case in cases:
            u = _jitter.draws(case["seed"], case["epoch"], [case["record"]])[:, 0]
            self.assertEqual(case["uniform_bits"], [bits(x) for x in u], case)

    def test_factors_are_javas_bit_for_bit(self):
        ranges = [(r["draw"], from_bits(r["low_bits"]), from_bits(r["high_bits"])) for r in self.vectors["ranges"]]
        for case in self.vectors["cases"]:
            u = _jitter.draws(case["seed"], case["epoch"], [case["record"]])[:, 0]
            got = [bits(_jitter.factor(u[draw], low, high)) for draw, low, high in ranges]
            self.assertEqual(case["factor_bits"], got, case)

    def test_torchvision_style_settings_map_to_the_javas_ranges(self):
        """brightness 0.4, contrast 0.25, saturation 0.9, hue 0.1 and brightness 1.5 (torchvision: [0, 2.5])."""
        settings = [("brightness", 0.4), ("contrast", 0.25), ("saturation", 0.9), ("hue", 0.1), ("brightness", 1.5)]
        for (name, value), expected in zip(settings, self.vectors["ranges"]):
            low, high = _jitter._range(name, value)
            self.assertEqual((expected["low_bits"], expected["high_bits"]), (bits(low), bits(high)), name)

    def test_batched_draws_equal_one_by_one_and_differ_per_sample_and_epoch(self):
        records = np.array([0, 5, 9, 2 ** 40, 7], dtype=np.int64)
        batch = _jitter.draws(3, 2, records)
        for i, r in enumerate(records):
            np.testing.assert_array_equal(_jitter.draws(3, 2, [r])[:, 0], batch[:, i])
        self.assertEqual(len(set(batch[0].tolist())), len(records))
        self.assertFalse(np.array_equal(batch, _jitter.draws(3, 3, records)))


def torchvision_reference(x01: torch.Tensor, f: "_jitter.Factors") -> torch.Tensor:
    """torchvision's functional transforms, one sample at a time, in the documented fixed order."""
    import torchvision.transforms.functional as F
    out = []
    for n in range(x01.shape[0]):
        img = x01[n]
        if f.brightness is not None:
            img = F.adjust_brightness(img, float(f.brightness[n]))
        if f.contrast is not None:
            img = F.adjust_contrast(img, float(f.contrast[n]))
        if f.saturation is not None:
            img = F.adjust_saturation(img, float(f.saturation[n]))
        if f.hue is not None:
            img = F.adjust_hue(img, float(f.hue[n]))
        if f.grey is not None and bool(f.grey[n]):
            img = F.rgb_to_grayscale(img, num_output_channels=3)
        out.append(img)
    return torch.stack(out)


class AgainstTorchvision(unittest.TestCase):
    def setUp(self):
        try:
            import torchvision  # noqa: F401
        except ImportError:
            self.skipTest("torchvision is not installed (apt-get install python3-torchvision)")
        generator = torch.Generator().manual_seed(5)
        self.images = torch.randint(0, 256, (12, 9, 11, 3), dtype=torch.uint8, generator=generator)
        self.images[3] = 77  # a flat image: hue and saturation of grey
        self.ids = np.arange(100, 112, dtype=np.int64)

    def check(self, jitter, grayscale=None, tolerance=2e-6, images=None):
        images = self.images if images is None else images
        settings = _jitter.parse(jitter, grayscale)
        f = _jitter.factors(settings, 42, 3, np.arange(100, 100 + images.shape[0], dtype=np.int64))
        x01 = images.permute(0, 3, 1, 2).float() / 255.0
        expected = torchvision_reference(x01, f)
        got = x01.clone()
        _jitter.apply(got, f, 0, got.shape[0])
        worst = (got - expected).abs().max().item()
        self.assertLess(worst, tolerance, "%s grayscale=%s: max abs difference %g" % (jitter, grayscale, worst))
        print("  vs torchvision %s grayscale=%s: max abs difference %.3g" % (jitter, grayscale, worst))
        return f

    def test_each_jitter_alone_and_all_together(self):
        for jitter in ({"brightness": 0.6}, {"contrast": 0.7}, {"saturation": 0.9}, {"hue": 0.4},
                       {"brightness": (0.2, 1.9)}, {"hue": (-0.5, -0.2)}):
            self.check(jitter)
        self.check({"brightness": 0.4, "contrast": 0.4, "saturation": 0.4, "hue": 0.1}, grayscale=0.5)

    def test_hue_at_the_edges_of_its_sectors(self):
        """Channels tied for the max (the sector's pick), grey, black, white, a chroma of 1/255, every hue shift: the
        hue's closed form against torchvision's RGB -> HSV -> RGB, on more pixels."""
        generator = torch.Generator().manual_seed(9)
        images = torch.randint(0, 256, (24, 30, 31, 3), dtype=torch.uint8, generator=generator)
        images[0, ..., 0:2] = 200  # red = green, the max
        images[1, ..., 1:3] = 255  # green = blue
        images[2, ..., 0::2] = 160  # red = blue
        images[3], images[4], images[5] = 0, 255, 77
        images[6] = torch.randint(100, 102, (30, 31, 3), dtype=torch.uint8, generator=generator)
        images[7, ..., 2] = images[7, ..., 0]
        for jitter in ({"hue": 0.5}, {"hue": (-0.5, -0.4)}, {"hue": (0.45, 0.5)}, {"saturation": (0, 3), "hue": 0.5},
                       {"brightness": 1.5, "contrast": (0, 3), "saturation": (0, 3), "hue": 0.5}):
            self.check(jitter, grayscale=0.3, images=images)

    def test_grayscale_turns_about_p_of_the_samples_grey(self):
        f = self.check(None, grayscale=0.5)
        many = _jitter.factors(_jitter.parse(None, 0.25), 1, 0, np.arange(4000))
        self.assertTrue(0 < int(f.grey.sum()) < len(self.ids))
        self.assertAlmostEqual(0.25, float(many.grey.float().mean()), delta=0.03)

    def test_the_fused_conversion_is_jitter_then_normalisation_in_either_layout(self):
        settings = _jitter.parse({"brightness": 0.4, "contrast": 0.4, "saturation": 0.4, "hue": 0.1}, 0.2)
        f = _jitter.factors(settings, 42, 3, self.ids)
        x01 = self.images.permute(0, 3, 1, 2).float() / 255.0
        expected = (torchvision_reference(x01, f) - torch.tensor(MEAN).view(1, 3, 1, 1)) / torch.tensor(STD).view(
            1, 3, 1, 1)
        for layout in ("NCHW", "NHWC"):
            scale, shift = normalisation(MEAN, STD, layout)
            for chunk in (1, 5, 12):
                out = _jitter.to_training(self.images, torch.float32, layout, scale, shift, f, chunk)
                got = out if layout == "NCHW" else out.permute(0, 3, 1, 2)
                self.assertLess((got - expected).abs().max().item(), 1e-5, (layout, chunk))  # 2e-6 / std


class Arguments(unittest.TestCase):
    def refused(self, text, **kwargs):
        # the server would start a JVM through subprocess.Popen: nothing may get that far
        with mock.patch("subprocess.Popen", side_effect=AssertionError("a process was started")):
            with self.assertRaises(ValueError) as caught:
                PinshardDataset("/nonexistent/dataset", **kwargs)
        self.assertIn(text, str(caught.exception))

    def test_out_of_range_values_name_the_parameter(self):
        self.refused("brightness", jitter={"brightness": -0.1})
        self.refused("contrast", jitter={"contrast": (1.5, 0.5)})
        self.refused("saturation", jitter={"saturation": float("nan")})
        self.refused("hue", jitter={"hue": 0.6})
        self.refused("hue", jitter={"hue": (-0.7, 0.1)})
        self.refused("grayscale", grayscale=1.5)
        self.refused("sharpness", jitter={"sharpness": 0.1})
        self.refused("brightness", jitter={"brightness": "0.4"})
        self.refused("float dtype", jitter={"brightness": 0.4}, dtype=torch.uint8)

    def test_torchvision_ranges_are_accepted(self):
        settings = _jitter.parse({"brightness": 1.5, "contrast": 0, "hue": 0.5, "saturation": (0, 3)}, 1.0)
        self.assertEqual((0.0, 2.5), tuple(float(v) for v in settings.brightness))
        self.assertIsNone(settings.contrast)
        self.assertEqual((-0.5, 0.5), tuple(float(v) for v in settings.hue))
        self.assertIsNone(_jitter.parse({"brightness": 0, "hue": 0}, 0))


if __name__ == "__main__":
    unittest.main()
