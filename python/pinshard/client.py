"""The client side of the shared ring: maps the file `pinshard serve` writes and hands out torch tensors that view
its slots (no copy). Protocol and memory-ordering contract: docs/RING.md."""

import errno
import fcntl
import os
import threading
import time
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterator, Mapping, Optional, Tuple

import torch

from . import _layout as L
from ._batch import Batch, Epoch, Stream
from ._fields import _FIELD_DTYPES, _FIELD_NAME
from ._process import ServerGone, _process_alive
from ._ring import SUPPORTED_VERSIONS, RingView, _PIXEL_DTYPES, _PIXEL_LAYOUTS, check_ring_file
from ._ringdir import (PathLike, RingError, _describe, _is_private_directory, _open_ring_file, ensure_ring_directory,
                       is_own_regular_file, resolve_ring, ring_directory)

if TYPE_CHECKING:
    import subprocess

__all__ = ["Batch", "Batches", "Epoch", "Ring", "RingError", "SUPPORTED_VERSIONS", "ServerGone", "check_ring_file",
           "ensure_ring_directory", "is_own_regular_file", "resolve_ring", "ring_directory"]


class Ring(RingView):
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

    def __init__(self, path: PathLike, pin_memory: bool = False, attach_timeout: Optional[float] = 30.0,
                 server_timeout: float = 2.0, process: Optional["subprocess.Popen[Any]"] = None,
                 accept_other_user: bool = False) -> None:
        self.path = resolve_ring(path)
        self.accept_other_user = accept_other_user
        self.server_timeout = server_timeout
        self.pinned = False
        self.pin_reason = "pin_memory was not asked for"
        self._process = process  # a subprocess.Popen when we launched the server: poll() sees a zombie at once
        self._closed = True
        self._held: Dict[int, int] = {}
        self._stream: Optional[Stream] = None
        self._epoch: Optional[Epoch] = None
        self._last_consumed: Optional[Tuple[int, int]] = None
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


    def _check_same_file(self, fd: int) -> None:
        info = os.fstat(fd)
        if (info.st_dev, info.st_ino) != self._inode:
            raise RingError("%s was replaced while it was being opened: try again" % self.path)

    def _check_server_user(self) -> None:
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

    def _lock(self, fd: int) -> None:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            if e.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                raise RingError("another client (pid %d) is attached to %s: one client per ring (DDP: one server "
                                "and one ring per rank)" % (self._long(L.CLIENT_PID_OFFSET), self.path))
            raise

    def _attach(self, timeout: Optional[float]) -> None:
        self._session = (int.from_bytes(os.urandom(8), "little") >> 2) | 1
        self._command = max(self._long(L.COMMAND_OFFSET), self._long(L.ACK_COMMAND_OFFSET))
        self._put_long(L.CLIENT_PID_OFFSET, os.getpid())
        self._put_int(L.CLIENT_VERSION_OFFSET, L.VERSION)
        self._put_long(L.SESSION_OFFSET, self._session)  # last: the server reads the fields above after it
        self._await(lambda: self._long(L.ATTACHED_SESSION_OFFSET) == self._session, timeout, "to attach")
        self._beat = threading.Event()
        self._beater = threading.Thread(target=self._heartbeat, name="pinshard-ring-heartbeat", daemon=True)
        self._beater.start()

    def _heartbeat(self) -> None:
        beat = 0
        while not self._beat.wait(0.1):
            beat += 1
            try:
                if self._shrunk():
                    return  # truncated: a store would be SIGBUS; the next batch taken reports it
                self._put_long(L.CLIENT_HEARTBEAT_OFFSET, beat)
            except (ValueError, TypeError, OSError):
                return  # unmapped under us by close()

    def _pin(self) -> None:
        if not torch.cuda.is_available():
            self.pin_reason = "no CUDA device (torch.cuda.is_available() is False): the ring stays pageable"
            return
        cudart = torch.cuda.cudart()  # type: ignore[no-untyped-call]  # torch 1.13 leaves cudart() unannotated
        result = cudart.cudaHostRegister(self._base(), len(self._mm), 0)
        code = int(getattr(result, "value", result))
        if code != 0:
            self.pin_reason = "cudaHostRegister failed with error %d" % code
            return
        self.pinned = True
        self.pin_reason = "registered with cudaHostRegister"

    # ---- liveness ----

    def _check_server(self, starting: bool = False) -> None:
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

    def _unlink_if_orphaned(self) -> None:
        """A killed server cannot unlink its ring: the client does, if the path still names the file it mapped."""
        try:
            info = os.lstat(self.path)
            if (info.st_dev, info.st_ino) == self._inode:
                os.unlink(self.path)
        except OSError:
            pass

    def _await(self, done: Callable[[], bool], timeout: Optional[float], what: str,
               check: Optional[Callable[[], None]] = None) -> float:
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

    def epoch(self, epoch: int, auto_release: bool = True) -> Epoch:
        """Batches of epoch `epoch` from its first; see `Epoch`."""
        return self._opened(Epoch(self, self._start(L.COMMAND_EPOCH, epoch, 0), auto_release))

    def resume(self, state: Mapping[str, Any], auto_release: bool = True) -> Epoch:
        """Batches left in the epoch of `state` (a dict from `state()`, e.g. out of a checkpoint)."""
        for key, mine in (("seed", self.seed), ("worldSize", self.world_size), ("rank", self.rank)):
            if int(state[key]) != mine:
                raise RingError("state %r was saved with %s %s; this server has %s %s" % (state, key, state[key], key,
                                                                                           mine))
        return self._opened(Epoch(self, self._start(L.COMMAND_RESUME, int(state["epoch"]),
                                                    int(state["batchesConsumed"])), auto_release))

    def state(self) -> Dict[str, int]:
        """Where training stands, as the loader's LoaderState JSON: resuming from it continues with the next
        batch after the last one handed out."""
        if self._last_consumed is None:
            raise RingError("no batch has been handed out yet")
        epoch, consumed = self._last_consumed
        return {"epoch": epoch, "batchesConsumed": consumed, "seed": self.seed, "worldSize": self.world_size,
                "rank": self.rank}

    def _start(self, kind: int, epoch: int, start_batch: int) -> Stream:
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

    def _opened(self, epoch: Epoch) -> Epoch:
        self._epoch = epoch
        return epoch

    def _take(self, stream: Stream, k: int, guess: int) -> Tuple[Batch, float]:
        """Batch k of `stream`; returns (Batch, seconds waited)."""
        command, epoch, first, start_batch, count = stream
        if self._stream is not stream:
            raise RingError("epoch %d was superseded by a later epoch() or resume() on this ring" % epoch)
        sequence = first + k
        found = [guess]

        def published() -> bool:
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

    def _check_stream(self, sequence: int) -> None:
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

    def _release(self, slot: int, sequence: int) -> None:
        if self._closed or self._held.get(slot) != sequence:
            return
        del self._held[slot]
        if self._shrunk():
            return  # the store would be SIGBUS; the next batch taken reports the truncation
        # A plain store: on x86-64 (TSO) it is not reordered before this thread's earlier reads of the slot.
        self._put_long(L.slot_header_offset(slot) + L.SLOT_RELEASED_OFFSET, sequence)

    def release_all(self) -> None:
        """Releases every batch this client holds."""
        for slot, sequence in list(self._held.items()):
            self._release(slot, sequence)

    def _ensure_open(self) -> None:
        if self._closed:
            raise RingError("the client of %s is closed" % self.path)

    # ---- closing ----

    def close(self) -> None:
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
                torch.cuda.cudart().cudaHostUnregister(self._base())  # type: ignore[no-untyped-call]  # as in _pin
                self.pinned = False
            self._unmap()

    def __enter__(self) -> "Ring":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        if not getattr(self, "_closed", True):
            try:
                self.close()
            except Exception:
                pass



def Batches(path: PathLike, epoch: int = 0, state: Optional[Mapping[str, Any]] = None,
            **ring_options: Any) -> Iterator[Batch]:
    """Generator over one epoch of the ring at `path` (attach, iterate, detach): `for images, labels in
    pinshard.Batches(path)`."""
    with Ring(path, **ring_options) as ring:
        batches = ring.resume(state) if state is not None else ring.epoch(epoch)
        try:
            for batch in batches:
                yield batch
        finally:
            batches.close()
