"""Whether the server process lives. Part of `pinshard.client`, which re-exports the names."""

import os

from ._ringdir import RingError


class ServerGone(RingError):
    """The server process died or stopped answering while the client used its ring."""


def _process_alive(pid: int) -> bool:
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
