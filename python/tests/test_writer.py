"""pinshard.write against a real `pinshard convert`: arrays, encoded bytes and paths in, a dataset out whose raw
pixels and labels are read back with the format's own Python reader (format-spec/tools/read_shard.py); bad samples
and failed conversions raise WriteError with the reason.

Run by scripts/test-python.sh (which sets PINSHARD_COMMAND); by hand:
  PINSHARD_COMMAND='["./pinshard"]' /usr/bin/python3 -m unittest python/tests/test_writer.py
"""

import os
import sys
import tempfile
import unittest
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "..", "format-spec", "tools"))

import numpy as np  # noqa: E402

import pinshard  # noqa: E402
from pinshard.writer import _png  # noqa: E402
from read_shard import read_manifest, read_path, yuv420_to_rgb  # noqa: E402

needs_pinshard = unittest.skipUnless(os.environ.get("PINSHARD_COMMAND"),
                                     "set PINSHARD_COMMAND (scripts/test-python.sh does)")


def records_of(dataset):
    """(pixels HxWx3, label, class name) of every record, in dataset order, from the shards' bytes."""
    manifest = read_manifest(dataset)
    out = []
    for file, record in read_path(dataset):
        with open(file, "rb") as f:
            f.seek(record["payloadOffset"])
            payload = f.read(record["payloadLength"])
        assert record["codec"] == "raw", record["codec"]
        pixels = np.frombuffer(payload, np.uint8).reshape(record["height"], record["width"], record["channels"])
        out.append((pixels, record["label"], manifest["classes"][record["label"]] if record["label"] >= 0 else None))
    return out


def rgb(seed, height, width):
    return np.random.default_rng(seed).integers(0, 256, (height, width, 3), dtype=np.uint8)


@needs_pinshard
class Write(unittest.TestCase):
    def setUp(self):
        self.temp = tempfile.TemporaryDirectory()
        self.addCleanup(self.temp.cleanup)

    def path(self, name):
        return os.path.join(self.temp.name, name)

    def test_arrays_round_trip_exactly_with_class_names(self):
        images = [rgb(i, 20 + i, 30 - i) for i in range(7)]
        names = ["cat", "dog", "cat", "emu", "dog", "cat", "emu"]
        result = pinshard.write(self.path("data"), zip(images, names), codec="raw", progress="none",
                                shard_size="4KiB")
        self.assertEqual(7, result.samples)
        self.assertTrue(any("written: 7" in line for line in result.summary), result.summary)
        back = records_of(self.path("data"))
        self.assertEqual(7, len(back))
        for image, name, (pixels, _, class_name) in zip(images, names, back):
            np.testing.assert_array_equal(image, pixels)
            self.assertEqual(name, class_name)
        self.assertGreater(len(read_manifest(self.path("data"))["shards"]), 1)
        self.assertEqual(["data"], os.listdir(self.temp.name))  # the temporary tars are gone

    def test_yuv420_records_read_back_as_their_rgb(self):
        # Colour constant over each 2x2 block (odd sides: the last row and column are blocks of their own), so the
        # 4:2:0 subsampling loses nothing and each channel comes back within the conversion's one level.
        images = [np.repeat(np.repeat(rgb(i, (h + 1) // 2, (w + 1) // 2), 2, 0), 2, 1)[:h, :w]
                  for i, (h, w) in enumerate([(21, 15), (16, 16), (9, 30)])]
        pinshard.write(self.path("data"), ((image, 0) for image in images), codec="yuv420", progress="none")
        records = list(read_path(self.path("data")))
        self.assertEqual(3, len(records))
        for image, (file, record) in zip(images, records):
            self.assertEqual("yuv420", record["codec"])
            self.assertEqual(image.shape, (record["height"], record["width"], record["channels"]))
            with open(file, "rb") as f:
                f.seek(record["payloadOffset"])
                payload = f.read(record["payloadLength"])
            h, w = image.shape[:2]
            self.assertEqual(h * w + 2 * ((h + 1) // 2) * ((w + 1) // 2), len(payload))
            pixels = np.frombuffer(yuv420_to_rgb(payload, h, w), np.uint8).reshape(h, w, 3)
            self.assertLessEqual(int(np.abs(pixels.astype(int) - image.astype(int)).max()), 1)

    def test_gray_arrays_bytes_and_paths_with_int_labels(self):
        gray = np.random.default_rng(3).integers(0, 256, (12, 9), dtype=np.uint8)
        colour = rgb(4, 10, 11)
        with open(self.path("in.png"), "wb") as f:
            f.write(_png(colour))
        samples = [(gray, 2), (_png(colour), 0), (self.path("in.png"), 1), (gray[:, :, None], 2)]
        pinshard.write(self.path("data"), samples, codec="raw", progress="none")
        back = records_of(self.path("data"))
        self.assertEqual([2, 0, 1, 2], [label for _, label, _ in back])
        np.testing.assert_array_equal(np.repeat(gray[:, :, None], 3, axis=2), back[0][0])
        np.testing.assert_array_equal(colour, back[1][0])
        np.testing.assert_array_equal(colour, back[2][0])

    def test_unlabelled_samples(self):
        pinshard.write(self.path("data"), ((rgb(i, 8, 8), None) for i in range(3)), codec="raw", progress="none")
        self.assertEqual([-1, -1, -1], [label for _, label, _ in records_of(self.path("data"))])

    def test_a_bad_sample_is_named_and_nothing_is_left(self):
        cases = [((rgb(0, 8, 8), 1), (np.zeros((4, 4, 2), np.uint8), 1), "sample 1: an image array must be"),
                 ((rgb(0, 8, 8), 1), (b"not an image", 1), "sample 1: the image bytes are no JPEG"),
                 ((rgb(0, 8, 8), 1), (rgb(1, 8, 8), None), "sample 1: some samples have a label"),
                 ((rgb(0, 8, 8), 1.5), (rgb(1, 8, 8), 1), "sample 0: a label must be")]
        for first, second, message in cases:
            with self.subTest(message=message):
                with self.assertRaises(pinshard.WriteError) as raised:
                    pinshard.write(self.path("data"), [first, second], progress="none")
                self.assertIn(message, str(raised.exception))
                self.assertEqual([], os.listdir(self.temp.name))

    def test_a_failed_conversion_raises_with_converts_message(self):
        os.makedirs(self.path("data"))
        with open(self.path("data/unrelated.txt"), "w") as f:
            f.write("not a dataset")
        with self.assertRaises(pinshard.WriteError) as raised:
            pinshard.write(self.path("data"), [(rgb(0, 8, 8), 0)], progress="none")
        self.assertIn("pinshard convert refused", str(raised.exception))
        self.assertIn("is not empty and holds no unfinished conversion", str(raised.exception))
        self.assertIn("data", str(raised.exception))
        self.assertEqual(["data"], os.listdir(self.temp.name))
        self.assertEqual(["unrelated.txt"], os.listdir(self.path("data")))

    def test_a_wrong_option_fails_while_the_samples_are_written_not_after(self):
        drawn = []

        def samples():  # far more than a check's JVM start takes to write; stops being drawn once refused
            for i in range(200000):
                drawn.append(i)
                yield rgb(i, 8, 8), i % 2

        with self.assertRaises(pinshard.WriteError) as raised:
            pinshard.write(self.path("data"), samples(), shorterside=32, progress="none")
        self.assertIn("refused the options", str(raised.exception))
        self.assertIn("Unknown option", str(raised.exception))
        self.assertIn("'--shorterside'", str(raised.exception))
        self.assertNotIn("WARNING", str(raised.exception))
        self.assertLess(len(drawn), 200000, "the generator was drained before the option was refused")
        self.assertEqual([], os.listdir(self.temp.name))

    def test_an_undecodable_image_is_rejected_with_a_reason_not_lost(self):
        truncated = _png(rgb(5, 16, 16))[:40]
        result = pinshard.write(self.path("data"), [(rgb(0, 8, 8), 0), (truncated, 1)], codec="raw",
                                progress="none")
        self.assertTrue(any("rejected: 1" in line for line in result.summary), result.summary)
        self.assertEqual(1, len(records_of(self.path("data"))))

    def test_into_an_existing_dataset_same_samples_are_harmless_others_refused_unless_overwrite(self):
        first = [(rgb(i, 8, 8), i % 2) for i in range(3)]
        other = [(rgb(10 + i, 8, 8), i % 2) for i in range(3)]  # same count, sizes and labels; other pixels
        pinshard.write(self.path("data"), first, codec="raw", progress="none")
        shards = {}
        for name in os.listdir(self.path("data")):
            with open(os.path.join(self.path("data"), name), "rb") as f:
                shards[name] = f.read()
        again = pinshard.write(self.path("data"), first, codec="raw", progress="none")
        self.assertTrue(any(line.startswith("already complete: ") for line in again.summary), again.summary)
        with self.assertRaises(pinshard.WriteError) as raised:
            pinshard.write(self.path("data"), other, codec="raw", progress="none")
        self.assertIn(self.path("data") + " already holds a dataset", str(raised.exception))
        self.assertIn("overwrite=True", str(raised.exception))
        for name, data in shards.items():  # refused: the dataset is as it was, record and manifest included
            with open(os.path.join(self.path("data"), name), "rb") as f:
                self.assertEqual(data, f.read(), name)
        with self.assertRaises(pinshard.WriteError) as fewer:  # other samples that change the record count too
            pinshard.write(self.path("data"), other[:2], codec="raw", progress="none")
        self.assertIn("overwrite=True", str(fewer.exception))
        pinshard.write(self.path("data"), other, codec="raw", progress="none", overwrite=True)
        for (image, label), (pixels, back, _) in zip(other, records_of(self.path("data"))):
            np.testing.assert_array_equal(image, pixels)
            self.assertEqual(label, back)
        self.assertEqual(["data"], os.listdir(self.temp.name))

    def test_every_sample_rejected_raises_with_the_reasons_and_leaves_no_dataset(self):
        truncated = _png(rgb(5, 16, 16))[:40]
        with self.assertRaises(pinshard.WriteError) as raised:
            pinshard.write(self.path("data"), [(truncated, 0), (truncated, 1)], codec="raw", progress="none")
        message = str(raised.exception)
        self.assertIn("rejected every one of the 2 sample(s)", message)
        self.assertIn("sample 0: ", message)
        self.assertIn("sample 1: ", message)
        self.assertEqual([], os.listdir(self.temp.name))

    def test_a_label_outside_int32_is_refused_naming_the_sample_and_value(self):
        for label in (2 ** 31, -(2 ** 31) - 1, np.int64(2 ** 40)):
            with self.subTest(label=int(label)):
                with self.assertRaises(pinshard.WriteError) as raised:
                    pinshard.write(self.path("data"), [(rgb(0, 8, 8), 0), (rgb(1, 8, 8), label)], progress="none")
                self.assertIn("sample 1: the label %d is outside int32" % int(label), str(raised.exception))
                self.assertEqual([], os.listdir(self.temp.name))


class Png(unittest.TestCase):
    def test_the_png_is_valid_and_lossless(self):
        image = rgb(9, 5, 6)
        data = _png(image)
        self.assertEqual(b"\x89PNG\r\n\x1a\n", data[:8])
        # IDAT holds the rows, each after its filter byte 0
        start = data.index(b"IDAT") + 4
        length = int.from_bytes(data[start - 8:start - 4], "big")
        rows = np.frombuffer(zlib.decompress(data[start:start + length]), np.uint8).reshape(5, 1 + 18)
        self.assertTrue((rows[:, 0] == 0).all())
        np.testing.assert_array_equal(image.reshape(5, 18), rows[:, 1:])


if __name__ == "__main__":
    unittest.main()
