"""Runs a command on a pseudo-terminal of a given width, as a user's terminal runs it: the command leads its own
session and process group with the pty as its controlling terminal. With --signal NAME --after REGEX, once the
terminal shows REGEX (a state, never a time) it sends the signal to the whole process group, as Ctrl-C (SIGINT) at a
terminal does. Copies everything the terminal showed to stdout (bytes as they came, carriage returns included) and
ends with the command's exit status (128 + N when signal N ended it); exit 125 when REGEX never showed.
Usage: pty_run.py [--columns N] [--signal INT|TERM --after REGEX] -- COMMAND ARGS..."""

import argparse
import errno
import fcntl
import os
import pty
import re
import signal
import struct
import sys
import termios


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--columns", type=int, default=80)
    parser.add_argument("--signal")
    parser.add_argument("--after")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    pid, fd = pty.fork()
    if pid == 0:
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 24, args.columns, 0, 0))
        # A terminal's shell starts commands with the default dispositions; one started from a background job of a
        # script (`cmd &`) inherits SIGINT and SIGQUIT ignored, and the JVM keeps an ignored SIGINT ignored.
        for name in ("SIGINT", "SIGQUIT", "SIGTERM"):
            signal.signal(getattr(signal, name), signal.SIG_DFL)
        os.execvp(command[0], command)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, args.columns, 0, 0))
    pattern = re.compile(args.after.encode()) if args.after else None
    seen = b""
    signalled = False
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError as e:  # EIO: every process holding the terminal is gone
            if e.errno != errno.EIO:
                raise
            break
        if not chunk:
            break
        sys.stdout.buffer.write(chunk)
        sys.stdout.buffer.flush()
        if pattern is not None and not signalled:
            seen += chunk
            if pattern.search(seen):
                os.killpg(pid, getattr(signal, "SIG" + args.signal))
                signalled = True
    _, status = os.waitpid(pid, 0)
    if pattern is not None and not signalled:
        sys.stderr.write("pty_run: the terminal never showed %r\n" % args.after)
        return 125
    return os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status)


if __name__ == "__main__":
    sys.exit(main())
