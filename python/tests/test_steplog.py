"""PinshardDataset's data-wait guard: the step log's lines, the "data-wait" warning of a loop that waits for its data
and none for a loop that computes (a real server: PINSHARD_COMMAND and PINSHARD_TEST_DATASET, as
scripts/test-python.sh sets them), and the guard's argument checks."""

import json
import logging
import os
import sys
import tempfile
import time
import unittest
from unittest import mock

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import torch  # noqa: E402

from pinshard import _steplog  # noqa: E402
from pinshard.torch import PinshardDataset  # noqa: E402

DATASET = os.environ.get("PINSHARD_TEST_DATASET")
RECORDS = int(os.environ.get("PINSHARD_TEST_RECORDS", "50"))
FIELDS = ("step", "epoch", "time", "data_wait_s", "step_s", "data_wait_fraction", "gpu_util", "images", "warmup", "rank",
          "job", "dataset")


def read(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


@unittest.skipUnless(DATASET and os.environ.get("PINSHARD_COMMAND"),
                     "set PINSHARD_COMMAND and PINSHARD_TEST_DATASET (scripts/test-python.sh does)")
class GuardOnARealLoop(unittest.TestCase):
    def run_loop(self, folder, job, step_seconds):
        """One epoch of 1-image batches (windows of 16 steps, the first one warm-up), each step `step_seconds` of
        pretend compute. One epoch: the server starts an epoch when the loop asks for it, a wait that a 50-batch
        epoch does not amortise (a real one does)."""
        log = os.path.join(folder, job + ".jsonl")
        with PinshardDataset(DATASET, batch_size=1, crop=8, workers=1, prefetch=16, step_log=log, job=job,
                             data_wait_window=16,
                             jitter={"brightness": 0.4, "hue": 0.1}, grayscale=0.2) as ds:
            with self.assertLogs("pinshard.torch", logging.INFO) as logs:
                batches = 0
                for images, labels in ds:
                    batches += 1
                    if step_seconds:
                        time.sleep(step_seconds)  # the model's step
        return read(log), [r.getMessage() for r in logs.records if r.levelno >= logging.WARNING], batches

    def test_a_loop_that_waits_for_data_is_warned_and_logged(self):
        with tempfile.TemporaryDirectory() as folder:
            lines, warnings, batches = self.run_loop(folder, "data-bound", 0)
        self.assertEqual(batches - 1, len(lines))  # the first batch has no step before it
        for i, line in enumerate(lines):
            self.assertEqual(FIELDS, tuple(line))
            self.assertEqual((i + 1, 0, "data-bound", 0, 1, None), (line["step"], line["epoch"], line["job"],
                                                                    line["rank"], line["images"], line["gpu_util"]))
            self.assertLessEqual(line["data_wait_s"], line["step_s"])
            self.assertEqual(line["step"] <= 16, line["warmup"])
        self.assertTrue(warnings, "no warning for a loop that only waits for data")
        self.assertIn("data-wait", warnings[0])
        self.assertIn("pinshard bench %s --sweep --gpu-rate" % DATASET, warnings[0])
        self.assertEqual(1, len(warnings), "the warning is rate-limited: %s" % warnings)

    def test_a_loop_that_computes_50_ms_per_step_is_not_warned(self):
        with tempfile.TemporaryDirectory() as folder:
            lines, warnings, batches = self.run_loop(folder, "compute-bound", 0.05)
        self.assertEqual([], warnings)
        self.assertEqual(batches - 1, len(lines))
        judged = [line for line in lines if not line["warmup"]]
        self.assertLess(sum(l["data_wait_s"] for l in judged) / sum(l["step_s"] for l in judged), 0.10)


class GuardArguments(unittest.TestCase):
    def test_threshold_window_and_job_are_checked_before_anything_starts(self):
        with mock.patch("subprocess.Popen", side_effect=AssertionError("a process was started")):
            for kwargs, name in (({"data_wait_threshold": 1.5}, "data_wait_threshold"),
                                 ({"data_wait_threshold": 0}, "data_wait_threshold"),
                                 ({"data_wait_window": 0}, "data_wait_window"),
                                 ({"job": ""}, "job")):
                with self.assertRaises(ValueError) as caught:
                    PinshardDataset("/nonexistent/dataset", **kwargs)
                self.assertIn(name, str(caught.exception))

    def test_the_environment_names_a_folder_for_one_file_per_job_and_rank(self):
        with tempfile.TemporaryDirectory() as folder:
            with mock.patch.dict(os.environ, {_steplog.ENVIRONMENT: folder + os.sep}):
                guard = _steplog.StepLog("nightly", torch.device("cpu"), "/data/x")
                guard.open(None, 3)
                for i in range(4):
                    guard.arrived(0.01, 100.0 + i, 0, 8)
                guard.close()
            path = os.path.join(folder, "nightly-rank3.jsonl")
            lines = read(path)
        self.assertEqual([1, 2, 3], [line["step"] for line in lines])
        self.assertEqual({3}, {line["rank"] for line in lines})
        self.assertEqual(0.01, lines[0]["data_wait_s"])
        self.assertEqual(0.01, lines[0]["data_wait_fraction"])

    def test_without_a_path_nothing_is_written_but_the_warning_still_fires(self):
        guard = _steplog.StepLog("quiet", torch.device("cpu"), "/data/x", threshold=0.1, window=3)
        with mock.patch.dict(os.environ, {}, clear=False):
            os.environ.pop(_steplog.ENVIRONMENT, None)
            guard.open(None, 0)
            with self.assertLogs("pinshard.torch", logging.WARNING) as logs:
                for i in range(11):
                    guard.arrived(0.5, float(i), 0, 4)
        self.assertIsNone(guard.path)
        self.assertEqual(1, len(logs.records))
        self.assertIn("data-wait", logs.records[0].getMessage())


if __name__ == "__main__":
    unittest.main()
