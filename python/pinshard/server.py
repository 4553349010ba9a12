"""Launching `pinshard serve` from Python: `serve(...)` starts the server on a fresh ring, attaches a `Ring` and
stops both on exit, leaving nothing in /dev/shm."""

import json
import os
import shlex
import subprocess
import threading
import time

from . import _layout as L
from .client import Ring, RingError, _process_alive

_OPTION_NAMES = {"batch": "--batch", "crop": "--crop", "workers": "--workers", "prefetch": "--prefetch",
                 "order": "--order", "seed": "--seed", "rank": "--rank", "world": "--world", "crc": "--crc",
                 "resampler": "--resampler", "client_timeout": "--client-timeout", "scale": "--scale",
                 "ratio": "--ratio", "flip": "--flip", "eval_crop_fraction": "--eval-crop-fraction"}


def server_command():
    """How to run pinshard: $PINSHARD_COMMAND (a JSON list or a shell line), else this checkout's ./pinshard
    script, else `pinshard` on the PATH."""
    configured = os.environ.get("PINSHARD_COMMAND")
    if configured:
        return json.loads(configured) if configured.lstrip().startswith("[") else shlex.split(configured)
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "pinshard")
    if os.path.isfile(script):
        return [os.path.normpath(script)]
    return ["pinshard"]


def clean_stale_rings(directory="/dev/shm"):
    """Removes pinshard rings in `directory` whose server process is gone (a server killed with -9 cannot unlink
    its own ring); returns the paths removed. Rings of live servers and other files are left alone."""
    removed = []
    try:
        names = os.listdir(directory)
    except OSError:
        return removed
    for name in names:
        if not name.startswith("pinshard-") or not name.endswith(".ring"):
            continue
        path = os.path.join(directory, name)
        try:
            with open(path, "rb") as f:
                header = f.read(L.HEADER_END + L.BLOCK_LENGTH)
            if len(header) < L.HEADER_END or header[:8] != L.MAGIC:
                continue
            pid = int.from_bytes(header[L.SERVER_PID_OFFSET:L.SERVER_PID_OFFSET + 8], "little")
            if not _process_alive(pid):
                os.unlink(path)
                removed.append(path)
        except OSError:
            continue
    return removed


class Server:
    """A `pinshard serve` child process on its own ring, with a `Ring` attached: use as a context manager.

    >>> with pinshard.serve("data/train", batch=256, crop=224, workers=2) as ring:
    ...     for images, labels in ring.epoch(0):
    ...         step(images, labels)

    With `attach=False` no client is attached (`ring` is None): open `Ring(server.ring_path)` yourself, e.g. in
    another process. The server is told `--owner-pid` (this process): if this process dies, the server stops and unlinks the
    ring within 0.1 s. `events` collects the server's JSON status lines."""

    def __init__(self, dataset, ring=None, command=None, ready_timeout=600.0, pin_memory=False, eval=False,
                 attach=True, extra_args=(), **options):
        directory = "/dev/shm" if ring is None else os.path.dirname(os.path.abspath(ring))
        clean_stale_rings(directory)
        if ring is None:
            ring = os.path.join("/dev/shm", "pinshard-%d-%s.ring" % (os.getpid(), os.urandom(4).hex()))
        self.ring_path = os.path.abspath(ring)
        args = list(command or server_command()) + ["serve", os.fspath(dataset), "--ring", self.ring_path, "--json",
                                                    "--owner-pid", str(os.getpid())]
        for key, value in options.items():
            if key not in _OPTION_NAMES:
                raise TypeError("unknown pinshard serve option %r (known: %s)" % (key, ", ".join(_OPTION_NAMES)))
            if isinstance(value, (tuple, list)):  # a range such as scale=(0.6, 1.0) -> "--scale 0.6,1.0"
                value = ",".join(str(v) for v in value)
            args += [_OPTION_NAMES[key], str(value)]
        if eval:
            args.append("--eval")
        args += list(extra_args)
        self.events = []
        self._ready = threading.Event()
        self.process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
        self._stderr = []
        self._readers = [threading.Thread(target=self._read_events, daemon=True),
                         threading.Thread(target=self._read_errors, daemon=True)]
        for reader in self._readers:
            reader.start()
        deadline = time.monotonic() + ready_timeout
        while not self._ready.wait(0.05):
            if self.process.poll() is not None:
                self._close_pipes()
                raise RingError("pinshard serve exited with status %d before its ring was ready: %s"
                                % (self.process.returncode, "".join(self._stderr).strip()[-2000:]))
            if time.monotonic() > deadline:
                self.stop()
                raise RingError("pinshard serve did not get ready within %.0f s" % ready_timeout)
        self.ring = None
        if attach:
            try:
                self.ring = Ring(self.ring_path, pin_memory=pin_memory, process=self.process)
            except BaseException:
                self.stop()
                raise

    def _read_events(self):
        for line in self.process.stdout:
            try:
                event = json.loads(line)
            except ValueError:
                continue
            self.events.append(event)
            if event.get("event") == "ready":
                self._ready.set()

    def _read_errors(self):
        for line in self.process.stderr:
            self._stderr.append(line.decode("utf-8", "replace"))

    def stop(self, timeout=20.0):
        """Detaches, stops the server (SIGTERM, then SIGKILL) and makes sure its ring is gone."""
        ring = getattr(self, "ring", None)
        if ring is not None:
            ring.close()
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._close_pipes()
        try:
            os.unlink(self.ring_path)  # the server unlinks it on a clean exit; after SIGKILL we do
        except FileNotFoundError:
            pass

    def _close_pipes(self):
        self.process.wait()
        for reader in self._readers:
            reader.join(5)  # the pipes reach end of file once the server is gone
        self.process.stdout.close()
        self.process.stderr.close()

    def __enter__(self):
        return self.ring

    def __exit__(self, *exc):
        self.stop()


def serve(dataset, **kwargs):
    """Starts `pinshard serve` on `dataset` and returns a context manager yielding the attached `Ring`."""
    return Server(dataset, **kwargs)
