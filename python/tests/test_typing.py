"""The package type-checks under `mypy --strict` (Debian's python3-mypy): the Python side of the ring and the
server's options are typed, and a change that breaks a type fails here rather than in a user's checker."""

import os
import subprocess
import sys
import unittest

PACKAGE_ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


class StrictTyping(unittest.TestCase):
    def test_mypy_strict_finds_nothing(self) -> None:
        try:
            import mypy  # noqa: F401
        except ImportError:
            self.skipTest("mypy is not installed (Debian: apt-get install python3-mypy)")
        # Incremental, with its cache outside the checkout: a cold check reads torch's stubs (40-100 s on 2 cores), a
        # warm one only what changed (mypy compares each module's hash with the cache's).
        cache = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "pinshard",
                             "mypy-%d.%d" % sys.version_info[:2])
        done = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--cache-dir", cache, "pinshard"],
                              cwd=PACKAGE_ROOT, capture_output=True, text=True, timeout=600)
        self.assertEqual(0, done.returncode, done.stdout + done.stderr)
        self.assertIn("Success: no issues found", done.stdout)


if __name__ == "__main__":
    unittest.main()
