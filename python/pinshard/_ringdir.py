"""The ring directory and the opening of ring files (docs/RING.md, §9): where a bare ring name lies, and the owner,
mode and type checks both sides make. Part of `pinshard.client`, which re-exports the public names."""

import errno
import os
import stat
import tempfile
from typing import Mapping, Optional, Tuple, Union

PathLike = Union[str, "os.PathLike[str]"]


class RingError(RuntimeError):
    """The ring cannot be used: not a ring, another version, refused command, server failure."""


_TYPE_NAMES = {stat.S_IFDIR: "a directory", stat.S_IFREG: "a regular file", stat.S_IFIFO: "a FIFO",
               stat.S_IFLNK: "a symbolic link", stat.S_IFSOCK: "a socket", stat.S_IFCHR: "a character device",
               stat.S_IFBLK: "a block device"}


def _describe(info: os.stat_result) -> str:
    """What lstat/fstat says, as RingDirectory.Attributes.describe() says it on the Java side."""
    kind = _TYPE_NAMES.get(stat.S_IFMT(info.st_mode), "a file of type 0%o" % stat.S_IFMT(info.st_mode))
    return "%s owned by uid %d with mode 0%o" % (kind, info.st_uid, stat.S_IMODE(info.st_mode))


def _is_private_directory(info: os.stat_result) -> bool:
    """Whether lstat's `info` is a directory of this user with mode 0700: no one else can create names in it."""
    return stat.S_ISDIR(info.st_mode) and info.st_uid == os.geteuid() and stat.S_IMODE(info.st_mode) == 0o700


def is_own_regular_file(info: os.stat_result) -> bool:
    """Whether lstat's or fstat's `info` is a regular file of this user (what a ring of ours must at least be)."""
    return stat.S_ISREG(info.st_mode) and info.st_uid == os.geteuid()


def ring_directory(environ: Optional[Mapping[str, str]] = None) -> str:
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


def ensure_ring_directory(directory: Optional[str] = None) -> str:
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


def resolve_ring(ring: PathLike) -> str:
    """The path of ring `ring` as `pinshard serve --ring` resolves it: a bare name (no "/") lies in the ring
    directory, anything else is taken as given."""
    ring = os.fspath(ring)
    if "/" not in ring:
        if ring in ("", ".", ".."):
            raise RingError("%r is not a ring file name" % ring)
        return os.path.join(ensure_ring_directory(), ring)
    return os.path.abspath(ring)


def _open_ring_file(path: str, flags: int, accept_other_user: bool) -> Tuple[int, os.stat_result]:
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
