"""PinshardDataset's argument checks, made in Python before any JVM starts (pinshard._checks), and `import
pinshard.torch` where torch is missing or is the checkout's Java torch/ folder. No server is started: every case
here fails in the constructor or the import."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from pinshard.torch import PinshardDataset  # noqa: E402

REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


class DatasetArguments(unittest.TestCase):
    def setUp(self):
        self.temp = tempfile.TemporaryDirectory()
        self.addCleanup(self.temp.cleanup)
        with open(os.path.join(self.temp.name, "manifest.json"), "w") as f:
            json.dump({"fields": [{"name": "caption", "type": "utf8"}, {"name": "meta", "type": "json"}]}, f)

    def refused(self, message, **kwargs):
        with self.assertRaises(ValueError) as raised:
            PinshardDataset(self.temp.name, **kwargs)
        self.assertIn(message, str(raised.exception))

    def test_batch_size_and_crop_are_whole_numbers_from_one(self):
        self.refused("batch_size must be a whole number >= 1, not 0", batch_size=0)
        self.refused("batch_size must be a whole number >= 1, not '8'", batch_size="8")
        self.refused("crop must be a whole number >= 1, not 22.4", crop=22.4)
        self.refused("crop must be a whole number >= 1, not True", crop=True)

    def test_order_is_a_string(self):
        self.refused("order must be a string", order=1)

    def test_order_is_one_the_server_knows(self):
        self.refused("order must be 'random' or 'sequential' or 'quasi-random', not 'shuffled'", order="shuffled")
        for accepted in ("random", "SEQUENTIAL", "quasi-random", "quasi_random"):  # as SampleOrder.parse
            PinshardDataset(self.temp.name, order=accepted)  # no server starts here

    def test_mean_without_std_is_refused(self):
        self.refused("mean and std go together (torchvision's Normalize(mean, std)): got only mean",
                     mean=(0.5, 0.5, 0.5))
        self.refused("got only std", std=(0.5, 0.5, 0.5))

    def test_fields_are_checked_against_the_manifest(self):
        self.refused("has no field 'captions'; its fields: 'caption', 'meta'", fields=["captions"])
        self.refused("fields is a list of field names, e.g. ['caption']", fields="caption")
        PinshardDataset(self.temp.name, fields=["caption", "meta"])  # known fields pass; no server starts here

    def test_load_state_dict_of_none_says_what_it_needs(self):
        with self.assertRaises(TypeError) as raised:
            PinshardDataset(self.temp.name).load_state_dict(None)
        self.assertIn("needs the dict state_dict() returned, not None", str(raised.exception))


class ImportWithoutPyTorch(unittest.TestCase):
    """A python without PyTorch (-S: no site packages, so none of Debian's), the package from the checkout."""

    def run_import(self, cwd):
        return subprocess.run([sys.executable, "-S", "-c", "import sys; sys.path.insert(0, ''); import pinshard.torch"],
                              cwd=cwd, env=dict(os.environ, PYTHONPATH=os.path.join(REPO, "python")),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)

    def test_it_says_which_package_provides_torch(self):
        with tempfile.TemporaryDirectory() as elsewhere:
            result = self.run_import(elsewhere)
        self.assertNotEqual(0, result.returncode)
        self.assertIn(b"pinshard.torch needs PyTorch, which this python", result.stderr)
        self.assertIn(b"apt-get install python3-torch", result.stderr)

    def test_the_checkouts_java_torch_folder_is_named_not_taken_for_pytorch(self):
        result = self.run_import(REPO)
        self.assertNotEqual(0, result.returncode)
        self.assertIn(("`torch` here is the folder %s" % os.path.join(REPO, "torch")).encode(), result.stderr)


if __name__ == "__main__":
    unittest.main()
