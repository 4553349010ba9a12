"""Tests of the Python ring client against a real `pinshard serve`.

Run by scripts/test-python.sh (after `mvn verify`, under pytest), which sets:
  PINSHARD_COMMAND       JSON list: how to start pinshard (this checkout's ./pinshard)
  PINSHARD_TEST_DATASET  a raw dataset where record r is filled with the byte r % 251 and labelled r % 5
By hand: PINSHARD_COMMAND='["./pinshard"]' PINSHARD_TEST_DATASET=DIR /usr/bin/python3 -m unittest discover python/tests
"""

import json
import os
import signal
import struct
import subprocess
import sys
import tempfile
import threading
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
                               "set PINSHARD_COMMAND and PINSHARD_TEST_DATASET (scripts/test-python.sh does)")(cls)


def wait_for(condition, seconds, what):
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("not within %.0f s: %s" % (seconds, what))
        time.sleep(0.02)


FIELDS_DATASET = os.environ.get("PINSHARD_TEST_FIELDS_DATASET")


@unittest.skipUnless(FIELDS_DATASET and os.environ.get("PINSHARD_COMMAND"),
                     "PINSHARD_TEST_FIELDS_DATASET / PINSHARD_COMMAND not set (scripts/test-python.sh sets them)")
class ServedFields(unittest.TestCase):
    """Record fields through the ring: captions as str, a fixed int32 pair as one tensor, boxes through the crop."""

    def test_each_sample_carries_its_records_caption_tags_and_cropped_boxes(self):
        server = pinshard.serve(FIELDS_DATASET, attach=False, eval=True, fields="caption,tags,boxes", boxes="boxes",
                                eval_crop_fraction=1.0, **OPTIONS)
        try:
            with pinshard.Ring(server.ring_path) as ring:
                self.assertEqual([e["name"] for e in ring.field_layout], ["caption", "tags", "boxes"])
                start, end = ring.address_range()
                seen = []
                for batch in ring.epoch(0):
                    ids = batch.ids.tolist()
                    seen += ids
                    self.assertEqual(batch.fields["caption"], ["record %d" % r for r in ids])
                    tags = batch.fields["tags"]
                    self.assertEqual(tags.dtype, torch.int32)
                    self.assertEqual(tags.tolist(), [[r, r + 1] for r in ids])
                    self.assertTrue(start <= tags.data_ptr() < end, "the tags tensor views the ring")
                    for record, boxes in zip(ids, batch.fields["boxes"]):
                        # Eval, crop fraction 1: the centred 40 x 40 square of the 48 x 40 image, scaled to 16:
                        # the whole-image box is clipped to the crop; the box outside the image is dropped.
                        self.assertEqual(tuple(boxes.shape), (1, 4), "record %d" % record)
                        self.assertEqual(boxes.tolist(), [[0.0, 0.0, 16.0, 16.0]])
                    batch.release()
                self.assertEqual(sorted(seen), list(range(RECORDS)))
        finally:
            server.stop()

    def test_the_dataset_yields_each_batchs_fields_as_a_third_item(self):
        from pinshard.torch import FieldsBatch, PinshardDataset
        dataset = PinshardDataset(FIELDS_DATASET, batch_size=8, crop=16, workers=2, eval=True, dtype=torch.uint8,
                                  layout="NHWC", fields=["caption", "boxes"], boxes="boxes",
                                  server_options=dict(eval_crop_fraction=1.0))
        try:
            records = []
            for batch in dataset:
                self.assertIsInstance(batch, FieldsBatch)
                images, labels, fields = batch
                self.assertIs(batch.fields, fields)
                captions = fields["caption"]
                self.assertEqual(len(captions), len(labels))
                numbers = [int(c.split()[1]) for c in captions]
                records += numbers
                self.assertEqual(labels.tolist(), [r % 5 for r in numbers], "each caption is its sample's record's")
                for r, image in zip(numbers, images):
                    self.assertTrue(bool((image == r % 251).all()), "pixels of record %d" % r)
                self.assertEqual([b.tolist() for b in fields["boxes"]], [[[0.0, 0.0, 16.0, 16.0]]] * len(labels))
            self.assertEqual(sorted(records), list(range(RECORDS)))
        finally:
            dataset.close()


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
        with open(ring_path, "rb") as f:
            stale = f.read()  # the live ring's bytes: its header names the server about to be killed
        os.kill(first.process.pid, signal.SIGKILL)
        first._close_pipes()
        first.process.wait(20)
        # The server's reaper child unlinks the ring after a kill -9 too, a moment later (RingReaper): where it has
        # already, put the dead server's ring back, as a machine without /bin/sh (or a reaper killed with it) leaves it.
        deadline = time.monotonic() + 2.0
        while os.path.exists(ring_path) and time.monotonic() < deadline:
            time.sleep(0.05)
        if not os.path.exists(ring_path):
            fd = os.open(ring_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as f:
                f.write(stale)
        self.assertTrue(os.path.exists(ring_path), "a dead server's ring is at the path")
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
        self.assertNotIn("WARNING: Using incubator modules", str(caught.exception))  # the JVM's notice, dropped


class InterruptedStart(unittest.TestCase):
    def test_a_ctrl_c_while_the_server_starts_stops_it(self):
        # A "server" that never gets ready (a shell that sleeps, the serve arguments its ignored $1...): the
        # KeyboardInterrupt lands in the wait for its ring, where no caller holds the server yet. It was left
        # running (with its ring) for as long as the interpreter, a REPL's or a notebook's, lived on.
        # Python leaves an inherited "ignore SIGINT" alone (a test run started from a script's background job has
        # one): this test needs the terminal's Ctrl-C, KeyboardInterrupt.
        previous = signal.signal(signal.SIGINT, signal.default_int_handler)
        self.addCleanup(signal.signal, signal.SIGINT, previous)
        with tempfile.TemporaryDirectory() as empty:
            timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
            timer.start()
            try:
                with self.assertRaises(KeyboardInterrupt):
                    pinshard.serve(empty, command=["/bin/sh", "-c", "exec sleep 60", "sleeper"])
            finally:
                timer.cancel()
        children = subprocess.run(["pgrep", "-P", str(os.getpid()), "-f", "sleep 60"], capture_output=True,
                                  text=True).stdout.split()
        self.assertEqual([], children, "the starting server is stopped with the interrupted call")


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
        # A valid pixels block (uint8 NHWC, mean 0, std 1), so the header's other fields are what is checked.
        data[L.DTYPE_CODE_OFFSET:L.DTYPE_CODE_OFFSET + 4] = L.DTYPE_CODE_UINT.to_bytes(4, "little")
        data[L.DTYPE_BITS_OFFSET:L.DTYPE_BITS_OFFSET + 4] = (8).to_bytes(4, "little")
        data[L.LAYOUT_OFFSET:L.LAYOUT_OFFSET + 4] = L.LAYOUT_NHWC.to_bytes(4, "little")
        data[L.STD_OFFSET:L.PIXELS_END] = struct.pack("<3d", 1.0, 1.0, 1.0)
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
        newer = max(pinshard.SUPPORTED_VERSIONS) + 1
        self.assert_refused(self.ring_file(self.header(newer)), "version %d" % newer,
                            "server is newer than the client")

    def test_a_client_newer_than_the_server(self):
        self.assert_refused(self.ring_file(self.header(0)), "version 0", "client is newer than the server")

    def test_a_header_contradicting_its_file(self):
        self.assert_refused(self.ring_file(self.header(L.VERSION)), "inconsistent header")

    def test_a_ring_others_can_read_is_refused(self):
        path = self.ring_file(self.header(L.VERSION))
        os.chmod(path, 0o644)
        self.assert_refused(path, "a regular file owned by uid %d with mode 0644" % os.geteuid())

    def test_a_link_to_a_ring_is_not_followed(self):
        target = self.ring_file(self.header(L.VERSION))
        link = target + ".link"
        os.symlink(target, link)
        self.addCleanup(os.unlink, link)
        self.assert_refused(link, "symbolic link", "O_NOFOLLOW")


VECTORS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "serve", "test-vectors")


class RingTestVectors(unittest.TestCase):
    """serve/test-vectors (generated by serve's RingTestVectors, checked there by Java too): the good ring is accepted,
    each hostile one refused with the words expected.tsv gives."""

    def test_each_vector_is_accepted_or_refused_as_expected(self):
        with open(os.path.join(VECTORS, "expected.tsv"), encoding="utf-8") as f:
            rows = [line.rstrip("\n").split("\t") for line in f if not line.startswith("#")]
        self.assertGreaterEqual(len(rows), 6)
        for name, _, words in rows:
            with self.subTest(vector=name):
                with open(os.path.join(VECTORS, name), "rb") as f:
                    content = f.read()
                copy = BadRings.ring_file(self, content)  # mode 0600, as a ring must be
                if not words:
                    self.assertEqual(pinshard.client.check_ring_file(copy), 1)
                else:
                    with self.assertRaises(pinshard.RingError) as caught:
                        pinshard.client.check_ring_file(copy)
                    self.assertIn(words, str(caught.exception))


NOBODY = 65534


def as_nobody(script):
    """Runs `script` (sh) as the user nobody: the attacker of issue 24, sharing /dev/shm with this user."""
    subprocess.run(["setpriv", "--reuid=%d" % NOBODY, "--regid=%d" % NOBODY, "--clear-groups", "sh", "-c", script],
                   check=True, timeout=10)


def run_client(script, *args, timeout=30):
    """Runs `script` in a child Python (a SIGBUS or a hang there fails the test instead of killing or hanging it)."""
    return subprocess.run([sys.executable, "-c", script] + list(args), env=dict(os.environ, PYTHONPATH=PYTHON_DIR),
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)


@unittest.skipUnless(os.geteuid() == 0 and os.path.exists("/usr/bin/setpriv") and os.path.isdir("/dev/shm"),
                     "a second user (nobody) through setpriv needs root, /usr/bin/setpriv and /dev/shm")
class AnotherUser(unittest.TestCase):
    """Issue 24's attacks by a second real user in the shared, sticky /dev/shm: each hung or attached before."""

    def attacker_path(self, suffix):
        path = "/dev/shm/pinshard-attack-%d-%s%s" % (os.getpid(), os.urandom(4).hex(), suffix)
        self.addCleanup(lambda: os.path.lexists(path) and (os.rmdir(path) if os.path.isdir(path) else os.unlink(path)))
        return path

    def test_a_fifo_named_like_a_ring_neither_hangs_the_sweep_nor_the_client(self):
        fifo = self.attacker_path(".ring")
        as_nobody("mkfifo -m 0666 %s" % fifo)
        result = run_client("import sys, pinshard\nprint(pinshard.clean_stale_rings('/dev/shm'))\n"
                            "try:\n    pinshard.Ring(sys.argv[1])\nexcept pinshard.RingError as e:\n    print(e)",
                            fifo, timeout=20)
        out = result.stdout.decode()
        self.assertEqual(result.returncode, 0, out)
        self.assertIn("%s is a FIFO owned by uid %d" % (fifo, NOBODY), out)
        self.assertTrue(os.path.lexists(fifo), "another user's file is not removed")

    def test_another_users_ring_is_refused_unless_accepted(self):
        staged = tempfile.NamedTemporaryFile(delete=False)
        staged.write(BadRings.header(None, L.VERSION))
        staged.close()
        os.chmod(staged.name, 0o644)
        self.addCleanup(os.unlink, staged.name)
        ring = self.attacker_path(".ring")
        as_nobody("cp %s %s && chmod 0600 %s" % (staged.name, ring, ring))
        with self.assertRaises(pinshard.RingError) as caught:
            pinshard.Ring(ring)
        self.assertIn("%s is a regular file owned by uid %d with mode 0600" % (ring, NOBODY), str(caught.exception))
        self.assertIn("accept_other_user=True", str(caught.exception))
        with self.assertRaises(pinshard.RingError) as caught:
            pinshard.Ring(ring, accept_other_user=True)
        self.assertIn("inconsistent header", str(caught.exception), "accepted: the header is checked next")

    def test_another_users_directory_at_the_ring_directorys_name_is_refused(self):
        directory = self.attacker_path("-dir")
        as_nobody("mkdir -m 0700 %s" % directory)
        with self.assertRaises(pinshard.RingError) as caught:
            pinshard.client.ensure_ring_directory(directory)
        self.assertIn("%s is a directory owned by uid %d with mode 0700" % (directory, NOBODY), str(caught.exception))


@needs_server
class HostileRings(unittest.TestCase):
    """Truncation and garbage under a live client: a clear error, never SIGBUS, a stall or a bad label."""

    def test_a_ring_truncated_under_the_client_raises_instead_of_killing_it(self):
        # To 0 bytes, the header's page included (before: SIGBUS in the client); to 4096, the slots only.
        for size in (0, 4096):
            server = pinshard.serve(DATASET, attach=False, **OPTIONS)
            try:
                result = run_client(TRUNCATING_CLIENT, server.ring_path, str(size))
            finally:
                server.stop()
            out = result.stdout.decode()
            self.assertEqual(result.returncode, 0, "truncated to %d: the client must not die by a signal: %r"
                             % (size, out))
            self.assertIn("refused:", out)
            self.assertTrue("truncated" in out, out)

    def test_an_out_of_range_label_in_a_slot_is_refused_naming_the_slot(self):
        server = pinshard.serve(DATASET, attach=False, **OPTIONS)
        try:
            with pinshard.Ring(server.ring_path) as ring:
                self.assertEqual(ring.classes, 5)
                epoch = ring.epoch(0, auto_release=False)
                first = next(epoch)
                wait_for(lambda: ring._long(L.PUBLISHED_OFFSET) >= first.sequence + 1, 10, "a second batch")
                slot = [s for s in range(ring.slots) if ring._long(L.slot_header_offset(s)) == first.sequence + 1][0]
                labels_at = ring._long(L.slot_header_offset(slot) + L.SLOT_LABELS_OFFSET)
                ring._u8[labels_at:labels_at + 4] = np.frombuffer((99).to_bytes(4, "little"), np.uint8)
                with self.assertRaises(pinshard.RingError) as caught:
                    next(epoch)
                self.assertIn("slot %d holds label 99, outside -1..4" % slot, str(caught.exception))
                first.release()
        finally:
            server.stop()

    def test_garbage_over_the_slot_headers_is_an_error_not_a_stall(self):
        server = pinshard.serve(DATASET, attach=False, **OPTIONS)
        try:
            result = run_client(GARBAGE_CLIENT, server.ring_path, timeout=30)
        finally:
            server.stop()
        out = result.stdout.decode()
        self.assertEqual(result.returncode, 0, out)
        self.assertIn("refused:", out)
        self.assertTrue("overwritten" in out, out)


TRUNCATING_CLIENT = """
import os, sys, pinshard
ring = pinshard.Ring(sys.argv[1])
epoch = ring.epoch(0)
next(epoch)
os.truncate(sys.argv[1], int(sys.argv[2]))  # what `truncate -s SIZE RING` does
try:
    for _ in epoch:
        pass
    print("no error")
except pinshard.RingError as e:
    print("refused:", e)
"""

GARBAGE_CLIENT = """
import os, sys, time, pinshard
from pinshard import _layout as L
ring = pinshard.Ring(sys.argv[1])
epoch = ring.epoch(0, auto_release=False)
first = next(epoch)
time.sleep(0.3)  # the server fills the other slots
for s in range(ring.slots):  # garbage over every slot header's SEQUENCE, the others' INDEX
    at = L.slot_header_offset(s)
    ring._u8[at:at + 24] = list(os.urandom(24))
try:
    next(epoch)
    print("no error")
except pinshard.RingError as e:
    print("refused:", e)
"""


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
