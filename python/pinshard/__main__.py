"""`python -m pinshard ARGS`: the pinshard command for where the venv's bin/ is not on the PATH (a script run with
the venv's python, `sys.executable -m pinshard` from Python): the wheel's jar on its Java, as the `pinshard` console
script runs it; in a checkout, its ./pinshard (or $PINSHARD_COMMAND). Standard library only: no torch is imported."""

import os
import sys

from . import _java


def main() -> int:
    if os.path.isfile(_java.PACKAGED_JAR) and not os.environ.get("PINSHARD_COMMAND"):
        return _java.main()
    command = _java.pinshard_command(*sys.argv[1:])
    os.execvp(command[0], command)
    return 1  # not reached


if __name__ == "__main__":
    sys.exit(main())
