"""Tests of the Python ring client against a real `pinshard serve`.

Run by the cli's PythonClientTest in `mvn verify`, which sets:
  PINSHARD_COMMAND       JSON list: how to start pinshard (a JVM on the test class path)
  PINSHARD_TEST_DATASET  a raw dataset where record r is filled with the byte r % 251 and labelled r % 5
By hand: PINSHARD_COMMAND='["./pinshard"]' PINSHARD_TEST_DATASET=DIR /usr/bin/python3 -m unittest discover python/tests
"""

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import numpy as np  # noqa: E402
import torch  # noqa: E402

import pinshard  # noqa: E402
from pinshard import _layout as L  # noqa: E402

DATASET = os.environ.get("PINSHARD_TEST_DATASET")
RECORDS = int(os.environ.get("PINSHARD_TEST_RECORDS", "50"))
OPTIONS = dict(batch=8, crop=16, workers=2, prefetch=3, seed=5)
RING_DIR = "/dev/shm" if os.path.isdir("/dev/shm") else tempfile.gettempdir()


def needs_server(cls):
    return unittest.skipUnless(DATASET and os.environ.get("PINSHARD_COMMAND"),
                               "set PINSHARD_COMMAND and PINSHARD_TEST_DATASET (PythonClientTest does)")(cls)


def wait_for(condition, seconds, what):
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("not within %.0f s: %s" % (seconds, what))
        time.sleep(0.02)


@needs_server
class ServedEpochs(unittest.TestCase):
    """One server for the class; each test attaches its own client."""

    @classmethod
    def setUpClass(cls):
        cls.server = pinshard.serve(DATASET, attach=False, **OPTIONS)

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        assert not os.path.exists(cls.server.ring_path), "stop() leaves nothing behind"

    def setUp(self):
        self.ring = pinshard.Ring(self.server.ring_path)

    def tearDown(self):
        self.ring.close()

    def test_an_epoch_is_every_record_once_as_tensors_viewing_the_ring(self):
        start, end = self.ring.address_range()
        seen = []
        epoch = self.ring.epoch(0)
        self.assertEqual(len(epoch), (RECORDS + 7) // 8)
        for batch in epoch:
            images, labels = batch
            self.assertEqual(images.dtype, torch.uint8)
            self.assertEqual(tuple(images.shape[1:]), (16, 16, 3))
            self.assertEqual(labels.dtype, torch.int32)
            # Zero copy: the tensor's storage is the ring mapping itself.
            self.assertTrue(start <= images.data_ptr() < end, "images inside the ring")
            self.assertTrue(start <= images.data_ptr() + images.numel() <= end)
            self.assertTrue(start <= labels.data_ptr() < end, "labels inside the ring")
            ids = batch.ids.tolist()
            seen += ids
            self.assertEqual(labels.tolist(), [r % 5 for r in ids])
            for i, record in enumerate(ids):
                self.assertTrue(bool((images[i] == record % 251).all()), "pixels of record %d" % record)
        self.assertEqual(sorted(seen), list(range(RECORDS)))

    def test_resume_from_a_saved_state_delivers_the_rest_of_the_same_epoch(self):
        full = [batch.ids.tolist() for batch in self.ring.epoch(1)]
        epoch = self.ring.epoch(1)
        for _ in range(3):
            next(epoch)
        state = json.loads(json.dumps(self.ring.state()))  # what a checkpoint stores
        self.assertEqual(state, {"epoch": 1, "batchesConsumed": 3, "seed": 5, "worldSize": 1, "rank": 0})
        epoch.close()
        rest = [batch.ids.tolist() for batch in self.ring.resume(state)]
        self.assertEqual(rest, full[3:])

    def test_a_loop_left_with_break_does_not_block_the_next_epoch(self):
        for i, (images, labels) in enumerate(self.ring.epoch(0)):
            if i == 1:
                break
        self.assertEqual(sum(1 for _ in self.ring.epoch(1)), (RECORDS + 7) // 8)

    def test_a_state_from_another_seed_is_refused_by_name(self):
        with self.assertRaises(pinshard.RingError) as caught:
            self.ring.resume({"epoch": 0, "batchesConsumed": 0, "seed": 6, "worldSize": 1, "rank": 0})
        self.assertIn("seed", str(caught.exception))

    def test_batches_kept_past_the_loop_stay_intact_until_released(self):
        epoch = self.ring.epoch(2, auto_release=False)
        kept = [next(epoch), next(epoch)]  # two of three slots held
        copies = [b.images.clone() for b in kept]
        third = next(epoch)
        third.release()
        for batch, copy in zip(kept, copies):
            self.assertTrue(torch.equal(batch.images, copy))
            batch.release()
        self.assertEqual(sum(1 for b in epoch if b.release() is None), len(epoch) - 3)

    def test_batches_attaches_iterates_one_epoch_and_detaches(self):
        self.ring.close()
        count = 0
        for images, labels in pinshard.Batches(self.server.ring_path, epoch=3):
            count += images.shape[0]
            self.assertEqual(labels.shape[0], images.shape[0])
        self.assertEqual(count, RECORDS)
        self.ring = pinshard.Ring(self.server.ring_path)  # detached: the next client attaches at once

    def test_a_second_client_is_refused_while_one_is_attached(self):
        with self.assertRaises(pinshard.RingError) as caught:
            pinshard.Ring(self.server.ring_path)
        self.assertIn("another client", str(caught.exception))

    def test_pin_memory_registers_the_ring_or_says_why_not(self):
        self.ring.close()
        self.ring = pinshard.Ring(self.server.ring_path, pin_memory=True)
        if not torch.cuda.is_available():
            self.assertFalse(self.ring.pinned)
            self.assertIn("no CUDA device", self.ring.pin_reason)
            self.skipTest(self.ring.pin_reason)
        self.assertTrue(self.ring.pinned, self.ring.pin_reason)
        images, labels = next(iter(self.ring.epoch(0)))
        self.assertTrue(images.is_pinned())
        on_device = images.to("cuda", non_blocking=True)
        torch.cuda.synchronize()
        self.assertTrue(torch.equal(on_device.cpu(), images))


@needs_server
class Faults(unittest.TestCase):
    def test_a_killed_server_is_reported_within_two_seconds_and_its_ring_removed(self):
        server = pinshard.serve(DATASET, **OPTIONS)
        try:
            epoch = server.ring.epoch(0)
            next(epoch)
            os.kill(server.process.pid, signal.SIGKILL)
            started = time.monotonic()
            with self.assertRaises(pinshard.ServerGone) as caught:
                for _ in epoch:
                    time.sleep(0.05)
            self.assertLess(time.monotonic() - started, 2.5)
            self.assertIn("gone", str(caught.exception))
            self.assertFalse(os.path.exists(server.ring_path), "the client removed the dead server's ring")
        finally:
            server.stop()

    def test_a_killed_client_is_noticed_its_slots_reclaimed_and_the_next_client_resumes(self):
        server = pinshard.serve(DATASET, attach=False, **OPTIONS)
        try:
            child = subprocess.Popen([sys.executable, "-c", CLIENT_HOLDING_SLOTS, server.ring_path],
                                     stdout=subprocess.PIPE, env=dict(os.environ, PYTHONPATH=PYTHON_DIR))
            self.assertEqual(child.stdout.readline().strip(), b"holding 3")
            os.kill(child.pid, signal.SIGKILL)
            child.wait()
            child.stdout.close()
            wait_for(lambda: any(e.get("event") == "detached" for e in server.events), 10, "the server notices")
            detached = [e for e in server.events if e.get("event") == "detached"][0]
            self.assertIn("exited", detached["reason"])
            self.assertEqual(detached["reclaimed_slots"], 3)
            with pinshard.Ring(server.ring_path) as ring:
                rest = [b.index for b in ring.resume({"epoch": 0, "batchesConsumed": 3, "seed": 5, "worldSize": 1,
                                                      "rank": 0})]
                self.assertEqual(rest, list(range(3, (RECORDS + 7) // 8)))
        finally:
            server.stop()
        self.assertFalse(os.path.exists(server.ring_path))

    def test_a_killed_trainer_takes_its_server_and_ring_with_it(self):
        child = subprocess.Popen([sys.executable, "-c", TRAINER_LAUNCHING_SERVER, DATASET],
                                 stdout=subprocess.PIPE, env=dict(os.environ, PYTHONPATH=PYTHON_DIR))
        ring_path, server_pid = child.stdout.readline().decode().split()
        self.assertTrue(os.path.exists(ring_path))
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        child.stdout.close()
        wait_for(lambda: not os.path.exists(ring_path), 10, "the orphaned server unlinks %s" % ring_path)
        wait_for(lambda: not pinshard.client._process_alive(int(server_pid)), 10, "the server exits")

    def test_a_stale_ring_of_a_killed_server_never_blocks_a_restart(self):
        ring_path = os.path.join(RING_DIR, "stale-test-%d.ring" % os.getpid())
        first = pinshard.serve(DATASET, ring=ring_path, attach=False, **OPTIONS)
        os.kill(first.process.pid, signal.SIGKILL)
        first._close_pipes()
        self.assertTrue(os.path.exists(ring_path), "kill -9 leaves the ring")
        second = pinshard.serve(DATASET, ring=ring_path, **OPTIONS)
        try:
            self.assertEqual(sum(1 for _ in second.ring.epoch(0)), (RECORDS + 7) // 8)
            # SIGTERM (what Ctrl-C and `kill` send): the server unlinks its ring itself, the client hears of it.
            epoch = second.ring.epoch(1)
            next(epoch)
            second.process.terminate()
            self.assertIn(second.process.wait(20), (0, 143))  # 143: the JVM ends by the signal, after its hooks
            self.assertFalse(os.path.exists(ring_path), "the server unlinked its ring")
            with self.assertRaises(pinshard.ServerGone) as caught:
                for _ in epoch:
                    pass
            self.assertIn("stopped", str(caught.exception))
        finally:
            second.stop()

    def test_a_directory_that_is_no_dataset_gets_pinshards_message(self):
        with tempfile.TemporaryDirectory() as empty:
            with self.assertRaises(pinshard.RingError) as caught:
                pinshard.serve(empty, **OPTIONS)
        self.assertIn("manifest.json", str(caught.exception))


class BadRings(unittest.TestCase):
    def ring_file(self, content):
        f = tempfile.NamedTemporaryFile(dir=RING_DIR, suffix=".ring", delete=False)
        f.write(content)
        f.close()
        self.addCleanup(os.unlink, f.name)
        return f.name

    def header(self, version):
        data = bytearray(L.slots_offset(1) + L.PAGE)
        data[0:8] = L.MAGIC
        data[L.VERSION_OFFSET:L.VERSION_OFFSET + 4] = version.to_bytes(4, "little")
        return bytes(data)

    def assert_refused(self, path, *words):
        with self.assertRaises(pinshard.RingError) as caught:
            pinshard.Ring(path)
        for word in words:
            self.assertIn(word, str(caught.exception))

    def test_a_file_that_is_not_a_ring(self):
        self.assert_refused(self.ring_file(b"just some text, long enough to hold a header? " * 100),
                            "not a pinshard ring")

    def test_an_empty_file(self):
        self.assert_refused(self.ring_file(b""), "not a pinshard ring")

    def test_a_short_file_with_the_magic(self):
        self.assert_refused(self.ring_file(L.MAGIC + bytes(200)), "not a pinshard ring", "too short")

    def test_a_missing_path(self):
        self.assert_refused(os.path.join(RING_DIR, "pinshard-no-such-%d.ring" % os.getpid()), "does not exist")

    def test_a_ring_newer_than_the_client(self):
        self.assert_refused(self.ring_file(self.header(max(pinshard.SUPPORTED_VERSIONS) + 1)), "version 2",
                            "server is newer than the client")

    def test_a_client_newer_than_the_server(self):
        self.assert_refused(self.ring_file(self.header(0)), "version 0", "client is newer than the server")

    def test_a_header_contradicting_its_file(self):
        self.assert_refused(self.ring_file(self.header(1)), "inconsistent header")


PYTHON_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")

CLIENT_HOLDING_SLOTS = """
import sys, time, pinshard
ring = pinshard.Ring(sys.argv[1])
epoch = ring.epoch(0, auto_release=False)
held = [next(epoch) for _ in range(3)]
print("holding", len(held), flush=True)
time.sleep(60)
"""

TRAINER_LAUNCHING_SERVER = """
import sys, time, pinshard
server = pinshard.serve(sys.argv[1], batch=8, crop=16, workers=1)
print(server.ring_path, server.process.pid, flush=True)
time.sleep(60)
"""

if __name__ == "__main__":
    unittest.main()
