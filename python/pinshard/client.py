"""The client side of the shared ring: maps the file `pinshard serve` writes and hands out torch tensors that view
its slots (no copy). Protocol and memory-ordering contract: docs/RING.md."""

import errno
import fcntl
import mmap
import os
import platform
import stat
import tempfile
import threading
import time
import warnings

import numpy as np
import torch

from . import _layout as L

#: The ring versions this client reads.
SUPPORTED_VERSIONS = (4,)
# The pixels block's element types, (DLPack type code, bits) -> torch dtype (docs/RING.md, "Pixels").
_PIXEL_DTYPES = {(L.DTYPE_CODE_UINT, 8): torch.uint8, (L.DTYPE_CODE_FLOAT, 32): torch.float32,
                 (L.DTYPE_CODE_FLOAT, 16): torch.float16, (L.DTYPE_CODE_BFLOAT, 16): torch.bfloat16}
_PIXEL_LAYOUTS = {L.LAYOUT_NHWC: "NHWC", L.LAYOUT_NCHW: "NCHW"}
# Record field types (docs/fields.md) -> numpy dtype of their elements; None: byte strings.
_FIELD_DTYPES = {"utf8": None, "bytes": None, "json": None, "int32": "<i4", "int64": "<i8", "float32": "<f4"}
_FIELD_NAME = __import__("re").compile(r"[A-Za-z_][A-Za-z0-9_.-]{0,63}\Z")


class RingError(RuntimeError):
    """The ring cannot be used: not a ring, another version, refused command, server failure."""


_TYPE_NAMES = {stat.S_IFDIR: "a directory", stat.S_IFREG: "a regular file", stat.S_IFIFO: "a FIFO",
               stat.S_IFLNK: "a symbolic link", stat.S_IFSOCK: "a socket", stat.S_IFCHR: "a character device",
               stat.S_IFBLK: "a block device"}


def _describe(info):
    """What lstat/fstat says, as RingDirectory.Attributes.describe() says it on the Java side."""
    kind = _TYPE_NAMES.get(stat.S_IFMT(info.st_mode), "a file of type 0%o" % stat.S_IFMT(info.st_mode))
    return "%s owned by uid %d with mode 0%o" % (kind, info.st_uid, stat.S_IMODE(info.st_mode))


def _is_private_directory(info):
    """Whether lstat's `info` is a directory of this user with mode 0700: no one else can create names in it."""
    return stat.S_ISDIR(info.st_mode) and info.st_uid == os.geteuid() and stat.S_IMODE(info.st_mode) == 0o700


def is_own_regular_file(info):
    """Whether lstat's or fstat's `info` is a regular file of this user (what a ring of ours must at least be)."""
    return stat.S_ISREG(info.st_mode) and info.st_uid == os.geteuid()


def ring_directory(environ=None):
    """This user's ring directory (docs/RING.md, §9): $XDG_RUNTIME_DIR/pinshard when XDG_RUNTIME_DIR is a directory
    of this user with mode 0700, else /dev/shm/pinshard-UID. Not created: see `ensure_ring_directory`. The Java side
    (io.pinshard.serve.RingDirectory) decides the same way, so a bare ring name means one file to both."""
    environ = os.environ if environ is None else environ
    runtime = environ.get("XDG_RUNTIME_DIR")
    if runtime and runtime.startswith("/"):
        try:
            info = os.lstat(runtime)
            if _is_private_directory(info):
                return os.path.join(runtime, "pinshard")
        except OSError:
            pass
    base = "/dev/shm" if os.path.isdir("/dev/shm") else tempfile.gettempdir()
    return os.path.join(base, "pinshard-%d" % os.geteuid())


def ensure_ring_directory(directory=None):
    """Creates the ring directory (mode 0700) if missing and checks, with lstat, that it is a directory of this user
    with mode 0700 (another user may have made it first); returns it or raises RingError naming owner and mode."""
    directory = ring_directory() if directory is None else directory
    try:
        os.mkdir(directory, 0o700)
    except FileExistsError:
        pass
    try:
        info = os.lstat(directory)
    except OSError as e:
        raise RingError("ring directory %s cannot be checked: %s" % (directory, e))
    if not _is_private_directory(info):
        raise RingError("ring directory %s is %s, not a directory of uid %d with mode 0700: another user may have "
                        "made it; refusing to use it (remove it, or set XDG_RUNTIME_DIR to a directory of yours with "
                        "mode 0700)" % (directory, _describe(info), os.geteuid()))
    return directory


def resolve_ring(ring):
    """The path of ring `ring` as `pinshard serve --ring` resolves it: a bare name (no "/") lies in the ring
    directory, anything else is taken as given."""
    ring = os.fspath(ring)
    if "/" not in ring:
        if ring in ("", ".", ".."):
            raise RingError("%r is not a ring file name" % ring)
        return os.path.join(ensure_ring_directory(), ring)
    return os.path.abspath(ring)


def _open_ring_file(path, flags, accept_other_user):
    """Opens `path` without following a link or blocking on a FIFO and checks, on the open file, that it is a regular
    file of this user with mode 0600 (or, with `accept_other_user`, of any user). Returns (fd, fstat)."""
    try:
        fd = os.open(path, flags | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise RingError("%s does not exist: is `pinshard serve` running with --ring %s?" % (path, path))
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise RingError("%s is a symbolic link: a ring is opened only by its own name (O_NOFOLLOW)" % path)
        raise RingError("%s cannot be opened: %s" % (path, e))
    try:
        info = os.fstat(fd)
        mine = info.st_uid == os.geteuid()
        if not stat.S_ISREG(info.st_mode) or (not mine and not accept_other_user) \
                or (mine and stat.S_IMODE(info.st_mode) != 0o600):
            raise RingError("%s is %s, not a regular file of uid %d with mode 0600: refusing it (a ring of another "
                            "user's server needs Ring(..., accept_other_user=True))" % (path, _describe(info),
                                                                                       os.geteuid()))
        return fd, info
    except BaseException:
        os.close(fd)
        raise


class ServerGone(RingError):
    """The server process died or stopped answering while the client used its ring."""


def _process_alive(pid):
    """Whether process `pid` exists and is not a zombie."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # exists, another user's
    try:
        with open("/proc/%d/stat" % pid, "rb") as f:
            state = f.read().rsplit(b")", 1)[1].split()[0]
        return state not in (b"Z", b"X")
    except (OSError, IndexError):
        return True  # no /proc: trust kill(0)


class Batch:
    """One batch in a ring slot. `images` is a tensor in the ring's pixel format (`Ring.dtype`, `Ring.layout`: uint8
    [N, H, W, C] unless the server was asked for another, e.g. float32 [N, C, H, W] normalised with `Ring.mean` and
    `Ring.std`) and `labels` an int32 [N] tensor, both viewing the slot's memory; `ids` the int64 record numbers. Unpacks as `images, labels`. The memory is the
    server's again after `release()`: do not use the tensors past it (copy what you keep).

    `fields` holds the record fields the server was asked to carry (`pinshard serve --fields ...`), by name: text
    (utf8, json) as a list of `str` per batch, bytes as a list of `bytes`, a fixed-length numeric field as one
    [N, length] tensor viewing the slot, a variable-length one as a list of N 1-D tensors viewing the slot (boxes:
    [k, 4] each, already moved through the sample's crop and flip)."""

    __slots__ = ("images", "labels", "ids", "fields", "epoch", "index", "slot", "sequence", "_ring", "_released")

    def __init__(self, ring, slot, sequence, epoch, index, images, labels, ids, fields=None):
        self._ring = ring
        self.slot = slot
        self.sequence = sequence
        self.epoch = epoch
        self.index = index
        self.images = images
        self.labels = labels
        self.ids = ids
        self.fields = fields if fields is not None else {}
        self._released = False

    def __iter__(self):
        return iter((self.images, self.labels))

    def __len__(self):
        return 2

    def __getitem__(self, i):
        return (self.images, self.labels)[i]

    def release(self):
        """Gives the slot back to the server. Idempotent."""
        if not self._released:
            self._released = True
            self._ring._release(self.slot, self.sequence)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.release()

    def __repr__(self):
        return "Batch(epoch=%d, index=%d, size=%d, slot=%d)" % (self.epoch, self.index, self.images.shape[0],
                                                                 self.slot)


class Ring:
    """A client attached to a `pinshard serve` ring. One client per ring at a time (an flock on the file).

    >>> with Ring("train.ring") as ring:   # `pinshard serve DIR --ring train.ring`: in this user's ring directory
    ...     for images, labels in ring.epoch(0):
    ...         step(images, labels)

    `path` is a bare name (in `ring_directory()`) or a path. The file must be a regular file of this user with mode
    0600, opened without following links or blocking; a ring whose file or server belongs to another user is refused
    unless `accept_other_user=True` (docs/RING.md, §9.0). A truncated or overwritten ring raises `RingError`
    naming the slot and field instead of crashing, stalling or handing out out-of-range labels.

    `pin_memory=True` registers the whole mapping with CUDA (cudaHostRegister through torch's cudart), so
    `images.to("cuda", non_blocking=True)` copies from page-locked memory; without a GPU `pinned` stays False and
    `pin_reason` says why.
    """

    def __init__(self, path, pin_memory=False, attach_timeout=30.0, server_timeout=2.0, process=None,
                 accept_other_user=False):
        self.path = resolve_ring(path)
        self.accept_other_user = accept_other_user
        self.server_timeout = server_timeout
        self.pinned = False
        self.pin_reason = "pin_memory was not asked for"
        self._process = process  # a subprocess.Popen when we launched the server: poll() sees a zombie at once
        self._closed = True
        self._held = {}
        self._stream = None
        self._epoch = None
        self._last_consumed = None
        self._fd = None
        fd, info = _open_ring_file(self.path, os.O_RDWR, accept_other_user)
        try:
            self._map(fd, info)
        finally:
            os.close(fd)  # mmap keeps its own duplicate
        # The flock lives on an open file description of its own: mmap's duplicate shares the first one, and it
        # outlives close() while a tensor still views the ring, which must not keep the next client out. It is
        # also the descriptor fstat'ed before each batch (a truncated ring would kill this process by SIGBUS).
        try:
            self._fd, _ = _open_ring_file(self.path, os.O_RDONLY, accept_other_user)
        except BaseException:
            self._unmap()
            raise
        try:
            self._check_same_file(self._fd)
            self._check_server_user()
            self._lock(self._fd)
            self._check_server(starting=True)
            self._closed = False
            self._attach(attach_timeout)
            if pin_memory:
                self._pin()
        except BaseException:
            self._closed = True
            self._unmap()
            raise

    # ---- opening ----

    def _map(self, fd, info):
        size = info.st_size
        self._inode = (info.st_dev, info.st_ino)
        if size < L.slots_offset(1):  # the smallest ring: one slot header and one page of slot data
            raise RingError("%s is not a pinshard ring (%d bytes: too short)" % (self.path, size))
        self._mm = mmap.mmap(fd, size, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
        self._map_checked(size)

    def _map_checked(self, size):
        """Views of the mapping `self._mm` of `size` bytes, after checking the header against the file."""
        if self._mm[:8] != L.MAGIC:
            raise RingError("%s is not a pinshard ring (no \"PINSRING\" magic)" % self.path)
        self._u8 = np.frombuffer(self._mm, dtype=np.uint8)
        control = L.slots_offset(1)  # at least the header, server, client blocks and one slot header
        self._i32 = np.frombuffer(self._mm, dtype="<i4", count=control // 4)
        self._i64 = np.frombuffer(self._mm, dtype="<i8", count=control // 8)
        version = self._int(L.VERSION_OFFSET)
        if version not in SUPPORTED_VERSIONS:
            if version > max(SUPPORTED_VERSIONS):
                raise RingError("%s is a version %d ring; this client reads versions %s: the server is newer than "
                                "the client, update python/pinshard" % (self.path, version, SUPPORTED_VERSIONS))
            raise RingError("%s is a version %d ring; this client reads versions %s: the client is newer than the "
                            "server, update pinshard (the Java side)" % (self.path, version, SUPPORTED_VERSIONS))
        self.slots = self._int(L.SLOT_COUNT_OFFSET)
        file_length = self._long(L.FILE_LENGTH_OFFSET)
        self._slots_offset = self._long(L.SLOTS_OFFSET_OFFSET)
        self._stride = self._long(L.SLOT_STRIDE_OFFSET)
        self.capacity = self._int(L.CAPACITY_OFFSET)
        self.height = self._int(L.HEIGHT_OFFSET)
        self.width = self._int(L.WIDTH_OFFSET)
        self.channels = self._int(L.CHANNELS_OFFSET)
        self._read_pixels()
        geometry_ok = (file_length == size and 1 <= self.slots <= L.MAX_SLOTS
                       and self._slots_offset == L.slots_offset(self.slots)
                       and self._int(L.HEADER_LENGTH_OFFSET) == self._slots_offset
                       and self._stride > 0 and self._stride % L.PAGE == 0
                       and self._slots_offset + self.slots * self._stride == file_length
                       and self.capacity >= 1 and self.height >= 1 and self.width >= 1 and self.channels == 3
                       and self.capacity * self.image_bytes <= self._stride)
        if not geometry_ok:
            raise RingError("%s has an inconsistent header (%d slots of stride %d from %d in %d bytes, file %d bytes)"
                            % (self.path, self.slots, self._stride, self._slots_offset, file_length, size))
        self._i32 = np.frombuffer(self._mm, dtype="<i4", count=self._slots_offset // 4)
        self._i64 = np.frombuffer(self._mm, dtype="<i8", count=self._slots_offset // 8)
        self.batches_per_epoch = self._long(L.BATCHES_PER_EPOCH_OFFSET)
        self.samples_per_epoch = self._long(L.SAMPLES_PER_EPOCH_OFFSET)
        self.records = self._long(L.RECORDS_OFFSET)
        self.seed = self._long(L.SEED_OFFSET)
        self.rank = self._int(L.RANK_OFFSET)
        self.world_size = self._int(L.WORLD_SIZE_OFFSET)
        self.server_pid = self._long(L.SERVER_PID_OFFSET)
        self.classes = self._int(L.CLASS_COUNT_OFFSET)
        if self.classes < 0:
            raise RingError("%s has an inconsistent header (CLASS_COUNT %d)" % (self.path, self.classes))
        self.field_layout = self._read_fields()
        self._size = size
        self.eval_mode = bool(self._int(L.FLAGS_OFFSET) & L.FLAG_EVAL)
        if platform.machine() not in ("x86_64", "AMD64"):
            warnings.warn("pinshard's pure-Python ring client relies on x86-64 ordering (TSO); on %s see "
                          "docs/RING.md, 'ARM64'" % platform.machine())

    def _read_pixels(self):
        """The pixels block: `dtype` (torch), `layout` ("NHWC" or "NCHW"), `mean` and `std` (3 floats each: what the
        server normalised with; 0 and 1 for none) and `image_bytes`."""
        code, bits, layout = (self._int(L.DTYPE_CODE_OFFSET), self._int(L.DTYPE_BITS_OFFSET),
                              self._int(L.LAYOUT_OFFSET))
        f64 = np.frombuffer(self._mm, dtype="<f8", count=6, offset=L.MEAN_OFFSET)
        self.mean, self.std = tuple(float(v) for v in f64[:3]), tuple(float(v) for v in f64[3:])
        if ((code, bits) not in _PIXEL_DTYPES or layout not in _PIXEL_LAYOUTS
                or not all(np.isfinite(f64)) or not all(s > 0 for s in self.std)):
            raise RingError("%s has an unknown pixel format: DTYPE %d/%d bits, LAYOUT %d, mean %s, std %s"
                            % (self.path, code, bits, layout, self.mean, self.std))
        self.dtype, self.layout = _PIXEL_DTYPES[(code, bits)], _PIXEL_LAYOUTS[layout]
        self.image_bytes = self.height * self.width * self.channels * (bits // 8)

    def _images(self, images_at, size):
        """The slot's images as a tensor viewing the mapping: `dtype`, [N, H, W, C] or [N, C, H, W]."""
        flat = torch.from_numpy(self._u8[images_at:images_at + size * self.image_bytes])
        if self.dtype != torch.uint8:
            flat = flat.view(self.dtype)
        if self.layout == "NCHW":
            return flat.view(size, self.channels, self.height, self.width)
        return flat.view(size, self.height, self.width, self.channels)

    def _check_same_file(self, fd):
        info = os.fstat(fd)
        if (info.st_dev, info.st_ino) != self._inode:
            raise RingError("%s was replaced while it was being opened: try again" % self.path)

    def _check_server_user(self):
        """The server must run as this user, as the file's owner does (unless `accept_other_user`)."""
        if self.accept_other_user:
            return
        try:
            uid = os.stat("/proc/%d" % self.server_pid).st_uid
        except OSError:
            return  # no such process (the liveness check reports it) or no /proc
        if uid != os.geteuid():
            raise RingError("the server of %s (pid %d) runs as uid %d, not as this user (uid %d): refusing to attach "
                            "(Ring(..., accept_other_user=True) to accept it)" % (self.path, self.server_pid, uid,
                                                                                  os.geteuid()))

    def _lock(self, fd):
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            if e.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                raise RingError("another client (pid %d) is attached to %s: one client per ring (DDP: one server "
                                "and one ring per rank)" % (self._long(L.CLIENT_PID_OFFSET), self.path))
            raise

    def _attach(self, timeout):
        self._session = (int.from_bytes(os.urandom(8), "little") >> 2) | 1
        self._command = max(self._long(L.COMMAND_OFFSET), self._long(L.ACK_COMMAND_OFFSET))
        self._put_long(L.CLIENT_PID_OFFSET, os.getpid())
        self._put_int(L.CLIENT_VERSION_OFFSET, L.VERSION)
        self._put_long(L.SESSION_OFFSET, self._session)  # last: the server reads the fields above after it
        self._await(lambda: self._long(L.ATTACHED_SESSION_OFFSET) == self._session, timeout, "to attach")
        self._beat = threading.Event()
        self._beater = threading.Thread(target=self._heartbeat, name="pinshard-ring-heartbeat", daemon=True)
        self._beater.start()

    def _heartbeat(self):
        beat = 0
        while not self._beat.wait(0.1):
            beat += 1
            try:
                if self._shrunk():
                    return  # truncated: a store would be SIGBUS; the next batch taken reports it
                self._put_long(L.CLIENT_HEARTBEAT_OFFSET, beat)
            except (ValueError, TypeError, OSError):
                return  # unmapped under us by close()

    def _pin(self):
        if not torch.cuda.is_available():
            self.pin_reason = "no CUDA device (torch.cuda.is_available() is False): the ring stays pageable"
            return
        cudart = torch.cuda.cudart()
        result = cudart.cudaHostRegister(self._base(), len(self._mm), 0)
        code = int(getattr(result, "value", result))
        if code != 0:
            self.pin_reason = "cudaHostRegister failed with error %d" % code
            return
        self.pinned = True
        self.pin_reason = "registered with cudaHostRegister"

    # ---- reading fields ----

    def _int(self, offset):
        return int(self._i32[offset >> 2])

    def _long(self, offset):
        return int(self._i64[offset >> 3])

    def _put_int(self, offset, value):
        self._i32[offset >> 2] = value

    def _put_long(self, offset, value):
        # One aligned 8-byte store (numpy's typed assignment): single-copy atomic on x86-64 and ARM64.
        self._i64[offset >> 3] = value

    def _base(self):
        """Address of the mapping's first byte."""
        return self._u8.ctypes.data

    def address_range(self):
        """(start, end) addresses of the mapping: every tensor this client hands out lies inside."""
        return self._base(), self._base() + len(self._mm)

    def message(self):
        length = self._int(L.MESSAGE_OFFSET)
        length = max(0, min(length, L.MESSAGE_MAX_BYTES))
        start = L.MESSAGE_OFFSET + 4
        return bytes(self._mm[start:start + length]).decode("utf-8", "replace")

    # ---- liveness ----

    def _check_server(self, starting=False):
        status = self._int(L.STATUS_OFFSET)
        if status == L.STATUS_FAILED:
            raise ServerGone("the server of %s failed: %s" % (self.path, self.message()))
        if status == L.STATUS_STOPPED:
            raise ServerGone("the server of %s has stopped" % self.path)
        dead = not _process_alive(self.server_pid)
        if self._process is not None and self._process.poll() is not None:
            dead = True
        if dead:
            self._unlink_if_orphaned()
            raise ServerGone("the server of %s (pid %d) is gone: it was killed or crashed; the ring was removed"
                             % (self.path, self.server_pid))
        if starting:
            self._beat_seen = (self._long(L.HEARTBEAT_OFFSET), time.monotonic())
            return
        beat, seen = self._beat_seen
        now = time.monotonic()
        current = self._long(L.HEARTBEAT_OFFSET)
        if current != beat:
            self._beat_seen = (current, now)
        elif now - seen > self.server_timeout:
            raise ServerGone("the server of %s (pid %d) has not beaten its heartbeat for %.1f s"
                             % (self.path, self.server_pid, now - seen))

    def _unlink_if_orphaned(self):
        """A killed server cannot unlink its ring: the client does, if the path still names the file it mapped."""
        try:
            info = os.lstat(self.path)
            if (info.st_dev, info.st_ino) == self._inode:
                os.unlink(self.path)
        except OSError:
            pass

    def _await(self, done, timeout, what, check=None):
        """Polls `done()`: a few checks, then sleeps from 50 us doubling to 1 ms (a waiting client costs ~1 % of a
        core; the server keeps filling other slots meanwhile), checking the server (and `check()`) every 0.1 s.
        Returns seconds."""
        started = time.monotonic()
        if done():
            return 0.0
        next_check = started + 0.1
        pause = 0.0
        while not done():
            if pause:
                time.sleep(pause)
            pause = min(0.001, pause * 2 if pause else 0.00005)
            now = time.monotonic()
            if now >= next_check:
                self._check_server()
                if check is not None:
                    check()
                if timeout is not None and now - started > timeout:
                    raise RingError("timed out after %.0f s waiting %s on %s" % (timeout, what, self.path))
                next_check = now + 0.1
        return time.monotonic() - started

    # ---- epochs ----

    def epoch(self, epoch, auto_release=True):
        """Batches of epoch `epoch` from its first; see `Epoch`."""
        return self._opened(Epoch(self, self._start(L.COMMAND_EPOCH, epoch, 0), auto_release))

    def resume(self, state, auto_release=True):
        """Batches left in the epoch of `state` (a dict from `state()`, e.g. out of a checkpoint)."""
        for key, mine in (("seed", self.seed), ("worldSize", self.world_size), ("rank", self.rank)):
            if int(state[key]) != mine:
                raise RingError("state %r was saved with %s %s; this server has %s %s" % (state, key, state[key], key,
                                                                                           mine))
        return self._opened(Epoch(self, self._start(L.COMMAND_RESUME, int(state["epoch"]),
                                                    int(state["batchesConsumed"])), auto_release))

    def state(self):
        """Where training stands, as the loader's LoaderState JSON: resuming from it continues with the next
        batch after the last one handed out."""
        if self._last_consumed is None:
            raise RingError("no batch has been handed out yet")
        epoch, consumed = self._last_consumed
        return {"epoch": epoch, "batchesConsumed": consumed, "seed": self.seed, "worldSize": self.world_size,
                "rank": self.rank}

    def _start(self, kind, epoch, start_batch):
        self._ensure_open()
        if self._epoch is not None:
            self._epoch.close()  # a loop left with `break` still holds its last auto-released batch
        if self._held:
            raise RingError("%d batches of the previous epoch are still held: release them before starting epoch %d"
                            % (len(self._held), epoch))
        if epoch < 0 or start_batch < 0:
            raise RingError("epoch and start batch must be >= 0: %d, %d" % (epoch, start_batch))
        self._command += 1
        self._put_int(L.COMMAND_KIND_OFFSET, kind)
        self._put_int(L.COMMAND_EPOCH_OFFSET, epoch)
        self._put_long(L.COMMAND_START_BATCH_OFFSET, start_batch)
        self._put_long(L.COMMAND_OFFSET, self._command)  # last: the server reads the arguments after it
        command = self._command
        self._await(lambda: self._long(L.ACK_COMMAND_OFFSET) == command, 60.0, "for the server to start epoch %d"
                    % epoch)
        if self._int(L.ACK_RESULT_OFFSET) != L.RESULT_OK:
            raise RingError("%s: %s" % (self.path, self.message()))
        stream = (command, self._int(L.STREAM_EPOCH_OFFSET), self._long(L.STREAM_FIRST_SEQUENCE_OFFSET),
                  self._long(L.STREAM_START_BATCH_OFFSET), self._long(L.STREAM_BATCHES_OFFSET))
        self._stream = stream
        return stream

    def _opened(self, epoch):
        self._epoch = epoch
        return epoch

    def _take(self, stream, k, guess):
        """Batch k of `stream`; returns (Batch, seconds waited)."""
        command, epoch, first, start_batch, count = stream
        if self._stream is not stream:
            raise RingError("epoch %d was superseded by a later epoch() or resume() on this ring" % epoch)
        sequence = first + k
        found = [guess]

        def published():
            self._check_size()  # before every look at the slot headers: a page cut off is SIGBUS
            s = found[0]
            if self._long(L.slot_header_offset(s) + L.SLOT_SEQUENCE_OFFSET) == sequence:
                return True
            for s in range(self.slots):
                if self._long(L.slot_header_offset(s) + L.SLOT_SEQUENCE_OFFSET) == sequence:
                    found[0] = s
                    return True
            return False

        waited = self._await(published, None, "for batch %d of epoch %d" % (start_batch + k, epoch),
                             lambda: self._check_stream(sequence))
        slot = found[0]
        header = L.slot_header_offset(slot)
        # Seqlock-style: the header fields read below belong to `sequence` if SEQUENCE still says so afterwards.
        stream_of = self._long(header + L.SLOT_STREAM_OFFSET)
        index = self._long(header + L.SLOT_INDEX_OFFSET)
        batch_epoch = self._int(header + L.SLOT_EPOCH_OFFSET)
        size = self._int(header + L.SLOT_SIZE_OFFSET)
        images_at = self._long(header + L.SLOT_IMAGES_OFFSET)
        labels_at = self._long(header + L.SLOT_LABELS_OFFSET)
        ids_at = self._long(header + L.SLOT_IDS_OFFSET)
        if self._long(header + L.SLOT_SEQUENCE_OFFSET) != sequence or stream_of != command:
            raise RingError("slot %d of %s changed while it was read (the server reclaimed it: was this client "
                            "stalled longer than the server's --client-timeout?)" % (slot, self.path))
        self._check_slot(slot, size, images_at, labels_at, ids_at)
        if batch_epoch != epoch or not start_batch <= index < start_batch + count or index != start_batch + k:
            raise RingError("%s: slot %d's EPOCH %d / INDEX %d are not batch %d of epoch %d (sequence %d): the slot "
                            "header was overwritten" % (self.path, slot, batch_epoch, index, start_batch + k, epoch,
                                                        sequence))
        self._check_size()
        images = self._images(images_at, size)
        labels = torch.from_numpy(self._check_labels(slot, labels_at, size))
        ids = torch.from_numpy(self._u8[ids_at:ids_at + 8 * size].view("<i8"))
        fields = self._field_values(slot, images_at, size) if self.field_layout else None
        batch = Batch(self, slot, sequence, batch_epoch, index, images, labels, ids, fields)
        self._held[slot] = sequence
        self._last_consumed = (batch_epoch, index + 1)
        return batch, waited

    def _read_fields(self):
        """The fields block (docs/RING.md, "Fields"): one checked entry per FIELD_COUNT, each inside every slot."""
        count = self._int(L.FIELD_COUNT_OFFSET)
        block = L.fields_block_offset(self.slots)
        length = int(self._u8[block:block + 4].view("<i4")[0])
        if not (0 <= count <= L.MAX_FIELDS and 0 <= length <= L.FIELDS_JSON_MAX_BYTES and (count == 0) == (length == 0)):
            raise RingError("%s has an inconsistent fields block: FIELD_COUNT %d, %d bytes of description"
                            % (self.path, count, length))
        if count == 0:
            return []
        import json
        text = bytes(self._u8[block + L.FIELDS_JSON_OFFSET:block + L.FIELDS_JSON_OFFSET + length])
        try:
            entries = json.loads(text.decode("utf-8"))
        except ValueError as e:
            raise RingError("%s's fields block is not a JSON list of fields: %s" % (self.path, e))
        if not isinstance(entries, list) or len(entries) != count:
            raise RingError("%s has an inconsistent fields block: FIELD_COUNT %d, %s entries"
                            % (self.path, count, len(entries) if isinstance(entries, list) else "no"))
        names = set()
        for e in entries:
            ok = (isinstance(e, dict) and isinstance(e.get("name"), str) and _FIELD_NAME.match(e["name"])
                  and e["name"] not in names and e.get("type") in _FIELD_DTYPES
                  and all(isinstance(e.get(k), int) and not isinstance(e.get(k), bool)
                          for k in ("length", "stride", "lengths", "values"))
                  and isinstance(e.get("boxes"), bool))
            if ok:
                ok = (e["length"] >= 0 and e["stride"] >= 1 and e["stride"] % 8 == 0
                      and 0 <= e["lengths"] <= self._stride - 4 * self.capacity and e["lengths"] % 4 == 0
                      and 0 <= e["values"] <= self._stride - self.capacity * e["stride"] and e["values"] % 8 == 0
                      and (not e["boxes"] or e["type"] == "float32"))
            if not ok:
                raise RingError("%s's fields block has an impossible field (slots of %d bytes, %d samples): %r"
                                % (self.path, self._stride, self.capacity, e))
            names.add(e["name"])
        return entries

    def _field_values(self, slot, start, size):
        """The batch's fields by name, each sample's length checked against the field's room and type."""
        out = {}
        for e in self.field_layout:
            lengths = self._u8[start + e["lengths"]:start + e["lengths"] + 4 * size].view("<i4")
            dtype = _FIELD_DTYPES[e["type"]]
            width = 1 if dtype is None else np.dtype(dtype).itemsize
            low, high = (int(lengths.min()), int(lengths.max())) if size else (0, 0)
            if low < 0 or high > e["stride"] or any(int(n) % width for n in lengths):
                raise RingError("%s: slot %d's field %s has a length outside 0..%d or not whole %d-byte elements: "
                                "the slot was overwritten" % (self.path, slot, e["name"], e["stride"], width))
            values = start + e["values"]
            stride = e["stride"]
            if dtype is None:
                raw = [bytes(self._u8[values + i * stride:values + i * stride + int(lengths[i])]) for i in range(size)]
                out[e["name"]] = raw if e["type"] == "bytes" else [b.decode("utf-8", "replace") for b in raw]
            elif e["length"] and low == high == e["length"] * width:
                matrix = self._u8[values:values + size * stride].view(dtype).reshape(size, stride // width)
                out[e["name"]] = torch.from_numpy(matrix[:, :e["length"]])
            else:
                row = []
                for i in range(size):
                    at = values + i * stride
                    view = torch.from_numpy(self._u8[at:at + int(lengths[i])].view(dtype))
                    row.append(view.view(-1, 4) if e["boxes"] else view)
                out[e["name"]] = row
        return out

    def _check_slot(self, slot, size, images_at, labels_at, ids_at):
        start = self._slots_offset + slot * self._stride
        end = start + self._stride
        element = self.image_bytes // (self.height * self.width * self.channels)
        for name, at, length, align in (("images", images_at, size * self.image_bytes, element),
                                        ("labels", labels_at, 4 * size, 4), ("sample ids", ids_at, 8 * size, 8)):
            if not 1 <= size <= self.capacity or at < start or at > end - length or at % align:
                raise RingError("%s: slot %d's %s (%d samples at %d) lie outside the slot [%d, %d)"
                                % (self.path, slot, name, size, at, start, end))

    def _check_labels(self, slot, labels_at, size):
        """The slot's labels as an int32 array, each checked: -1 (none) or in 0..CLASS_COUNT-1."""
        label_array = self._u8[labels_at:labels_at + 4 * size].view("<i4")
        low, high = int(label_array.min()), int(label_array.max())
        if low < -1 or (self.classes > 0 and high >= self.classes):
            bad = low if low < -1 else high
            raise RingError("%s: slot %d holds label %d, outside -1..%d (CLASS_COUNT %d): the slot was overwritten"
                            % (self.path, slot, bad, self.classes - 1, self.classes))
        return label_array

    def _check_size(self):
        """The file must still be as long as when it was mapped: touching a page past a truncation is SIGBUS, which
        kills a Python process without a message. Checked (one fstat) before each batch is handed out and before
        each heartbeat store; a truncation after the check can still kill the process (docs/RING.md, §9.1)."""
        size = os.fstat(self._fd).st_size
        if size < self._size:
            raise RingError("ring file %s truncated by another process: %d of its %d bytes are left; stopping before "
                            "a read of a lost page kills this process (SIGBUS)" % (self.path, size, self._size))

    def _shrunk(self):
        try:
            return os.fstat(self._fd).st_size < self._size
        except (OSError, TypeError):
            return True

    def _check_stream(self, sequence):
        """Bounds the wait for `sequence` by what garbage cannot fake for long: this session still attached, no slot
        ahead of PUBLISHED, and a PUBLISHED at or past `sequence` meaning some slot holds it."""
        self._check_size()
        seqs = [self._long(L.slot_header_offset(s) + L.SLOT_SEQUENCE_OFFSET) for s in range(self.slots)]
        published = self._long(L.PUBLISHED_OFFSET)  # after the slots: the server stores it after each SEQUENCE
        if self._long(L.ATTACHED_SESSION_OFFSET) != self._session:
            raise RingError("the server of %s no longer serves this client (ATTACHED_SESSION %d, ours %d): was this "
                            "client stalled longer than --client-timeout?" % (self.path,
                                                                              self._long(L.ATTACHED_SESSION_OFFSET),
                                                                              self._session))
        for slot, value in enumerate(seqs):
            if value < 0 or value > published:
                raise RingError("%s: slot %d's SEQUENCE %d is past PUBLISHED %d: the slot header was overwritten"
                                % (self.path, slot, value, published))
        if published >= sequence and sequence not in seqs:
            raise RingError("%s: sequence %d was published (PUBLISHED %d) but no slot header holds it: the slot "
                            "headers were overwritten" % (self.path, sequence, published))

    def _release(self, slot, sequence):
        if self._closed or self._held.get(slot) != sequence:
            return
        del self._held[slot]
        if self._shrunk():
            return  # the store would be SIGBUS; the next batch taken reports the truncation
        # A plain store: on x86-64 (TSO) it is not reordered before this thread's earlier reads of the slot.
        self._put_long(L.slot_header_offset(slot) + L.SLOT_RELEASED_OFFSET, sequence)

    def release_all(self):
        """Releases every batch this client holds."""
        for slot, sequence in list(self._held.items()):
            self._release(slot, sequence)

    def _ensure_open(self):
        if self._closed:
            raise RingError("the client of %s is closed" % self.path)

    # ---- closing ----

    def close(self):
        """Releases held slots, detaches (the server then waits for the next client) and unmaps. Tensors still
        alive keep the mapping until they go."""
        if self._closed:
            return
        self._closed = True
        self._held.clear()
        try:
            self._beat.set()
            self._beater.join()
            if not self._shrunk():
                self._put_long(L.SESSION_OFFSET, 0)
        finally:
            if self.pinned:
                torch.cuda.cudart().cudaHostUnregister(self._base())
                self.pinned = False
            self._unmap()

    def _unmap(self):
        for name in ("_u8", "_i32", "_i64"):
            if hasattr(self, name):
                delattr(self, name)
        mm = getattr(self, "_mm", None)
        if mm is not None:
            try:
                mm.close()
            except BufferError:
                pass  # a tensor still views the ring: the mapping goes with the last one
        if getattr(self, "_fd", None) is not None:
            os.close(self._fd)  # drops the flock (the mapping may live on in tensors)
            self._fd = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        if not getattr(self, "_closed", True):
            try:
                self.close()
            except Exception:
                pass


class Epoch:
    """One epoch (or the rest of one) as an iterator of `Batch`es, each unpacking to `images, labels`. With
    `auto_release` (the default) a batch is released when the loop asks for the next one or ends; without it the
    trainer calls `batch.release()` (at most `ring.slots` may be held). Records `wait_seconds` (time spent waiting
    for the server) and `batches_taken`."""

    def __init__(self, ring, stream, auto_release=True):
        self._ring = ring
        self._stream = stream
        self._auto = auto_release
        self._k = 0
        self._previous = None
        self._guess = 0
        self.epoch = stream[1]
        self.start_batch = stream[3]
        self.batches = stream[4]
        self.wait_seconds = 0.0
        self.batches_taken = 0

    def __len__(self):
        return self.batches

    def __iter__(self):
        return self

    def __next__(self):
        if self._auto and self._previous is not None:
            self._previous.release()
            self._previous = None
        if self._k >= self.batches:
            raise StopIteration
        batch, waited = self._ring._take(self._stream, self._k, self._guess)
        self._guess = (batch.slot + 1) % self._ring.slots
        self._k += 1
        self.wait_seconds += waited
        self.batches_taken += 1
        if self._auto:
            self._previous = batch
        return batch

    def close(self):
        if self._previous is not None:
            self._previous.release()
            self._previous = None


def check_ring_file(path, accept_other_user=False):
    """Checks the ring file at `path` as a client does, without attaching: the header against the file, then every
    published slot (SEQUENCE != 0): SEQUENCE not past PUBLISHED, sizes and offsets inside the slot, labels in range.
    Raises RingError naming the file, the slot and the field; returns the number of published slots. Runs over the
    ring test vectors (serve/test-vectors) in the tests."""
    ring = Ring.__new__(Ring)
    ring.path, ring._closed, ring._fd = os.path.abspath(os.fspath(path)), True, None
    fd, info = _open_ring_file(ring.path, os.O_RDONLY, accept_other_user)
    try:
        if info.st_size < L.slots_offset(1):
            raise RingError("%s is not a pinshard ring (%d bytes: too short)" % (ring.path, info.st_size))
        ring._mm = mmap.mmap(fd, info.st_size, mmap.MAP_SHARED, mmap.PROT_READ)
        ring._map_checked(info.st_size)
        published = ring._long(L.PUBLISHED_OFFSET)
        count = 0
        for slot in range(ring.slots):
            header = L.slot_header_offset(slot)
            sequence = ring._long(header + L.SLOT_SEQUENCE_OFFSET)
            if sequence == 0:
                continue
            if sequence < 0 or sequence > published:
                raise RingError("%s: slot %d's SEQUENCE %d is past PUBLISHED %d: the slot header was overwritten"
                                % (ring.path, slot, sequence, published))
            size = ring._int(header + L.SLOT_SIZE_OFFSET)
            labels_at = ring._long(header + L.SLOT_LABELS_OFFSET)
            ring._check_slot(slot, size, ring._long(header + L.SLOT_IMAGES_OFFSET), labels_at,
                             ring._long(header + L.SLOT_IDS_OFFSET))
            ring._check_labels(slot, labels_at, size)
            if ring.field_layout:
                ring._field_values(slot, ring._long(header + L.SLOT_IMAGES_OFFSET), size)
            count += 1
        return count
    finally:
        os.close(fd)
        ring._unmap()


def Batches(path, epoch=0, state=None, **ring_options):
    """Generator over one epoch of the ring at `path` (attach, iterate, detach): `for images, labels in
    pinshard.Batches(path)`."""
    with Ring(path, **ring_options) as ring:
        batches = ring.resume(state) if state is not None else ring.epoch(epoch)
        try:
            for batch in batches:
                yield batch
        finally:
            batches.close()
