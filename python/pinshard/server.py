"""Launching `pinshard serve` from Python: `serve(...)` starts the server on a fresh ring, attaches a `Ring` and
stops both on exit, leaving nothing in the ring directory."""

import json
import os
import signal
import stat
import subprocess
import threading
import time
from types import TracebackType
from typing import Any, Dict, List, Literal, Optional, Sequence, Type

from . import _java
from . import _layout as L
from ._java import pinshard_command as pinshard_command
from ._process import _process_alive
from ._ringdir import PathLike
from ._serve_options import SERVE_OPTIONS
from .client import Ring, RingError, is_own_regular_file, resolve_ring, ring_directory

# The options Server passes itself (its `ring` parameter, the JSON status it reads, this process as the owner): not
# for **options.
_SERVER_OWNED = ("ring", "json", "owner_pid")
_OPTIONS = {key: spec for key, spec in SERVE_OPTIONS.items() if key not in _SERVER_OWNED}


def dataset_location(dataset: PathLike) -> str:
    """`dataset` as the CLI gets it: a path with `~` expanded, as a shell would have done for the command line (a
    Python string is passed as written, and "~/data/pets" reached the server as a folder named "~"), or an
    s3:// location unchanged."""
    location = os.fspath(dataset)
    return location if "://" in location else os.path.expanduser(location)


def server_command() -> List[str]:
    """The command before `serve` and its arguments (see `pinshard_command`)."""
    return pinshard_command("serve")[:-1]


def _start_millis(pid: int) -> Optional[int]:
    """When process `pid` started, in ms since the epoch (Java's ProcessHandle.Info.startInstant), or None."""
    try:
        with open("/proc/%d/stat" % pid, "rb") as f:
            ticks = int(f.read().rsplit(b")", 1)[1].split()[19])
        with open("/proc/stat", "rb") as f:
            boot = next(int(line.split()[1]) for line in f if line.startswith(b"btime "))
        return boot * 1000 + ticks * 1000 // os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, StopIteration):
        return None


def _server_alive(pid: int, start_millis: int) -> bool:
    """Whether the server recorded in a ring header runs: the pid is alive and started when the header says (pids
    are reused), as the server side judges it (RingFile.RingOwner.alive)."""
    if not _process_alive(pid):
        return False
    started = _start_millis(pid)
    return started is None or start_millis == 0 or abs(started - start_millis) < 2000


def clean_stale_rings(directory: Optional[str] = None) -> List[str]:
    """Removes pinshard rings in `directory` whose server is gone (killed where its reaper could not remove the
    ring: see docs/RING.md); returns the paths removed. Only this user's regular files named `pinshard-*.ring` are
    looked at, and each is opened without blocking or following links, so a FIFO or a link named like a ring is
    neither read nor removed; rings of live servers and other files are left alone."""
    if directory is None:  # this user's ring directory, and /dev/shm where earlier versions put rings
        return clean_stale_rings(ring_directory()) + clean_stale_rings("/dev/shm")
    removed: List[str] = []
    try:
        if not stat.S_ISDIR(os.lstat(directory).st_mode):
            return removed
        names = os.listdir(directory)
    except OSError:
        return removed
    for name in names:
        if not name.startswith("pinshard-") or not name.endswith(".ring"):
            continue
        path = os.path.join(directory, name)
        try:
            info = os.lstat(path)
            if not is_own_regular_file(info):
                continue
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
            try:
                opened = os.fstat(fd)
                if (opened.st_dev, opened.st_ino) != (info.st_dev, info.st_ino):
                    continue
                header = os.pread(fd, L.HEADER_END + L.BLOCK_LENGTH, 0)
            finally:
                os.close(fd)
            if len(header) < L.HEADER_END or header[:8] != L.MAGIC:
                continue
            pid = int.from_bytes(header[L.SERVER_PID_OFFSET:L.SERVER_PID_OFFSET + 8], "little")
            start_millis = int.from_bytes(header[L.SERVER_START_MILLIS_OFFSET:L.SERVER_START_MILLIS_OFFSET + 8],
                                          "little")
            status = int.from_bytes(header[L.STATUS_OFFSET:L.STATUS_OFFSET + 4], "little")
            if status in (L.STATUS_STOPPED, L.STATUS_FAILED) or not _server_alive(pid, start_millis):
                os.unlink(path)
                removed.append(path)
        except OSError:
            continue
    return removed


def _option_args(options: Dict[str, Any]) -> List[str]:
    """`pinshard serve`'s arguments for keyword options (`_serve_options.py`, generated from the CLI's definitions): a
    value as its text (a sequence comma-joined, a torch dtype by its name), a flag by True (False leaves it out)."""
    args: List[str] = []
    for key, value in options.items():
        spec = _OPTIONS.get(key)
        if spec is None:
            raise TypeError("unknown pinshard serve option %r (known: %s)%s" % (
                key, ", ".join(_OPTIONS), "; Server sets it itself" if key in _SERVER_OWNED else ""))
        name, takes_value = spec
        if not takes_value:
            if not isinstance(value, bool):
                raise TypeError("pinshard serve option %r is a flag: True or False, not %r" % (key, value))
            args += [name] if value else []
            continue
        if isinstance(value, (tuple, list)):  # a range such as scale=(0.6, 1.0) -> "--scale 0.6,1.0"
            value = ",".join(repr(float(v)) if key in ("mean", "std") else str(v) for v in value)
        elif key == "dtype":
            value = str(value).rsplit(".", 1)[-1]  # torch.float32 -> float32
        elif key in ("mean", "std"):
            value = repr(float(value))
        args += [name, str(value)]
    return args


class Server:
    """A `pinshard serve` child process on its own ring, with a `Ring` attached: use as a context manager.

    >>> with pinshard.serve("data/train", batch=256, crop=224, workers=2) as ring:
    ...     for images, labels in ring.epoch(0):
    ...         step(images, labels)

    With `attach=False` no client is attached (`ring` is None): open `Ring(server.ring_path)` yourself, e.g. in
    another process. The server is told `--owner-pid` (this process): if this process dies, the server stops and unlinks the
    ring within 0.1 s. `events` collects the server's JSON status lines; `timings` the start-up's steps in ms: `start_ms`
    (this process's launch to the ring ready), the server's own (`jvm_ms`, `dataset_open_ms`, `loader_open_ms`,
    `ring_ready_ms`) and, once a batch was published, `first_batch_ms` (epoch command to the first batch published).

    `dtype` ("uint8", "float32", "float16", "bfloat16", or the torch dtype), `layout` ("NHWC", "NCHW"), `mean` and
    `std` ask the server for batches in that format (docs/RING.md, "Pixels"): the crop kernel writes them.

    `**options` takes every `pinshard serve` option by keyword (`drop_last=True`, `eval_crop_fraction=0.875`,
    `s3_endpoint=...`): the list is generated from the CLI's own definitions (`_serve_options.py`), a flag is True or
    False, anything else is a TypeError naming the option."""

    def __init__(self, dataset: PathLike, ring: Optional[PathLike] = None, command: Optional[Sequence[str]] = None,
                 ready_timeout: float = 600.0, pin_memory: bool = False, eval: bool = False, attach: bool = True,
                 extra_args: Sequence[str] = (), **options: Any) -> None:
        if ring is None:
            ring = "pinshard-%d-%s.ring" % (os.getpid(), os.urandom(4).hex())
        self.ring_path = resolve_ring(ring)  # a bare name: in this user's ring directory, checked (docs/RING.md §9)
        clean_stale_rings(os.path.dirname(self.ring_path))
        args = list(command or server_command()) + ["serve", dataset_location(dataset), "--ring", self.ring_path, "--json",
                                                    "--owner-pid", str(os.getpid())]
        args += _option_args(dict(options, eval=True) if eval else options)
        args += list(extra_args)
        self.events: List[Dict[str, Any]] = []
        self.timings: Dict[str, float] = {}
        self._ready = threading.Event()
        launched = time.monotonic()
        # A session of its own: a Ctrl-C in the terminal reaches this process (KeyboardInterrupt, then stop() below),
        # not the server behind its back; stop() ends the whole group if the server does not go by itself.
        # The trainer writes the step log (PinshardDataset): the server's own loader must not log as a second job.
        env = {k: v for k, v in os.environ.items() if k != "PINSHARD_STEP_LOG"}
        self.process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                                        start_new_session=True, env=env)
        self._stderr: List[str] = []
        self._readers = [threading.Thread(target=self._read_events, daemon=True),
                         threading.Thread(target=self._read_errors, daemon=True)]
        for reader in self._readers:
            reader.start()
        self.ring: Optional[Ring] = None
        deadline = time.monotonic() + ready_timeout
        try:
            while not self._ready.wait(0.05):
                if self.process.poll() is not None:
                    self._close_pipes()
                    raise RingError("pinshard serve exited with status %d before its ring was ready: %s"
                                    % (self.process.returncode, self.stderr().strip()[-2000:]))
                if time.monotonic() > deadline:
                    raise RingError("pinshard serve did not get ready within %.0f s" % ready_timeout)
        except BaseException:
            # A Ctrl-C (KeyboardInterrupt) while the JVM starts: no caller holds this server to stop it, and in a
            # REPL or notebook its owner, this process, lives on; so it goes now.
            self.stop()
            raise
        self.timings["start_ms"] = (time.monotonic() - launched) * 1000.0
        if attach:
            try:
                self.ring = Ring(self.ring_path, pin_memory=pin_memory, process=self.process)
            except BaseException:
                self.stop()
                raise

    def _read_events(self) -> None:
        assert self.process.stdout is not None  # stdout=PIPE
        with self.process.stdout as lines:  # each reader closes its own pipe, at end of file
            for line in lines:
                try:
                    event = json.loads(line)
                except ValueError:
                    continue
                self.events.append(event)
                if event.get("event") == "ready":
                    self.timings.update(event.get("timings") or {})
                    self._ready.set()
                elif event.get("event") == "first_batch":
                    self.timings["first_batch_ms"] = event.get("ms_since_command")

    def _read_errors(self) -> None:
        assert self.process.stderr is not None  # stderr=PIPE
        with self.process.stderr as lines:  # less the JVM's notice, of no use to the user, that opened every error
            for line in _java.drop_incubator_notice(lines):
                self._stderr.append(line.decode("utf-8", "replace"))

    def stderr(self) -> str:
        """What the server printed on stderr so far."""
        return "".join(self._stderr)

    def stop(self, timeout: float = 10.0) -> Optional[int]:
        """Detaches, stops the server (SIGTERM; after `timeout` s SIGKILL to its whole process group) and makes sure
        its ring is gone. Returns the server's exit status; safe to call twice."""
        ring = getattr(self, "ring", None)
        self.ring = None
        try:
            if ring is not None:
                ring.close()
        finally:
            self._end_process(timeout)
            try:
                info = os.lstat(self.ring_path)  # the server unlinks it on a clean exit, its reaper after a kill
                if is_own_regular_file(info):
                    os.unlink(self.ring_path)
            except FileNotFoundError:
                pass
        return self.process.returncode

    def _end_process(self, timeout: float) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self._kill_group()
                self.process.wait()
        self._close_pipes()

    def _kill_group(self) -> None:
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            self.process.kill()

    def _close_pipes(self) -> None:
        """Waits a little for the readers to see end of file (the server's pipes close when it exits); a pipe that
        something else still holds open is left to its daemon reader, never closed under it."""
        for reader in self._readers:
            reader.join(2.0)

    def __enter__(self) -> Optional[Ring]:
        return self.ring

    def __exit__(self, exc_type: Optional[Type[BaseException]], exc: Optional[BaseException],
                 traceback: Optional[TracebackType]) -> Literal[False]:
        try:
            self.stop()
        except Exception:
            if exc_type is None:
                raise
            # the block's own exception is the one to show; a failed stop must not replace it
        return False


def serve(dataset: PathLike, **kwargs: Any) -> Server:
    """Starts `pinshard serve` on `dataset` and returns a context manager yielding the attached `Ring`."""
    return Server(dataset, **kwargs)
