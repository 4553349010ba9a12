"""The wheel's server start from a class-data-sharing archive (pinshard._java.archive_flags): the first run records
its classes, the next start dumps the archive in a detached process, later starts map it (the JVM says each class's
source); a corrupt archive, or one made for another jar build, does not break a start nor print a word. Real JVMs on
this checkout's jar (cli/target/pinshard.jar) and a dataset of scripts/test-python.sh (PINSHARD_TEST_DATASET); JDK 25
too where /usr/lib/jvm/temurin-25-jdk-amd64 exists."""

import glob
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
from unittest import mock

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from pinshard import _java  # noqa: E402

REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
JAR = os.path.join(REPO, "cli", "target", "pinshard.jar")
DATASET = os.environ.get("PINSHARD_TEST_DATASET")
JDK25 = "/usr/lib/jvm/temurin-25-jdk-amd64"


def await_state(condition, deadline_s=300.0):
    """Polls `condition` until it holds (a state, not a time: the deadline only ends a hung wait)."""
    end = time.monotonic() + deadline_s
    while not condition():
        if time.monotonic() > end:
            return False
        time.sleep(0.1)
    return True


class ArchiveSteps(unittest.TestCase):
    """The flags of each step, without a JVM: a fake java and jar."""

    def setUp(self):
        self.temp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.temp)
        self.jar = os.path.join(self.temp, "pinshard.jar")
        open(self.jar, "wb").close()
        self.java = _java.Java(sys.executable, 17, "PATH")
        self.environ = {"XDG_CACHE_HOME": self.temp, "HOME": "/nonexistent"}
        self.cds = os.path.join(self.temp, "pinshard", "cds")

    def flags(self, *args, environ=None, pid=4242):
        return _java.archive_flags(self.java, self.jar, list(args), ["-Xfoo"], environ=environ or self.environ,
                                   pid=pid)

    def test_a_first_serve_records_its_classes_under_the_pid_and_a_usage_run_or_pinshard_cds_0_does_not(self):
        self.assertEqual([], self.flags("serve", "--help"))
        self.assertEqual([], self.flags("serve", "data", environ=dict(self.environ, PINSHARD_CDS="0")))
        flags = self.flags("serve", "data", pid=os.getpid())
        listing = [f for f in flags if f.startswith("-XX:DumpLoadedClassList=")]
        self.assertEqual(1, len(listing), flags)
        path = listing[0].split("=", 1)[1]
        self.assertEqual(self.cds, os.path.dirname(path))
        self.assertTrue(os.path.basename(path).startswith("serve-") and path.endswith(".classlist.%d.tmp"
                                                                                      % os.getpid()), path)
        self.assertIn("-Dpinshard.cds.classList=" + path, flags)

    def test_recording_a_new_list_removes_the_subcommands_files_untouched_for_a_day(self):
        os.makedirs(self.cds)
        names = ("serve-pyold.jsa", "serve-pyold.classlist", "serve-pynew.jsa", "convert-pyold.jsa")
        for name in names:
            open(os.path.join(self.cds, name), "wb").close()
        two_days_ago = time.time() - 2 * 86400
        for name in ("serve-pyold.jsa", "serve-pyold.classlist", "convert-pyold.jsa"):
            os.utime(os.path.join(self.cds, name), (two_days_ago, two_days_ago))
        self.assertTrue(self.flags("serve", "data"))
        self.assertEqual(["convert-pyold.jsa", "serve-pynew.jsa"], sorted(os.listdir(self.cds)))

    def test_xdg_cache_home_is_taken_only_when_absolute(self):
        self.assertEqual(os.path.join(self.temp, "pinshard"), _java.cache_root(self.environ))
        self.assertEqual("/home/u/.cache/pinshard", _java.cache_root({"XDG_CACHE_HOME": "rel", "HOME": "/home/u"}))

    def test_a_dead_runs_list_is_put_in_place_a_failed_runs_and_a_dead_dump_go(self):
        os.makedirs(self.cds)
        dead = 2 ** 22 + 12345  # above pid_max's default: no such process
        names = {"serve-a.classlist.%d.tmp" % dead: b"java/lang/Object id: 0\n",
                 "serve-b.classlist.%d.tmp" % dead: b"java/lang/Object id: 0\n",
                 "serve-b.classlist.%d.tmp.discard" % dead: b"",
                 "serve-c.jsa.%d.tmp" % dead: b"half an archive",
                 "serve-d.classlist.%d.tmp" % os.getpid(): b"still being written"}
        for name, content in names.items():
            with open(os.path.join(self.cds, name), "wb") as f:
                f.write(content)
        self.flags("convert", "--check-options")
        self.assertEqual(["serve-a.classlist", "serve-d.classlist.%d.tmp" % os.getpid()],
                         sorted(os.listdir(self.cds)))


@unittest.skipUnless(DATASET and os.path.isfile(JAR), "needs cli/target/pinshard.jar and PINSHARD_TEST_DATASET "
                     "(scripts/test-python.sh sets it)")
class ArchiveOfARealJvm(unittest.TestCase):
    def setUp(self):
        self.temp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.temp)
        self.jar = os.path.join(self.temp, "pinshard.jar")  # a copy: its build (mtime) is changed below
        shutil.copy2(JAR, self.jar)
        self.cds = os.path.join(self.temp, "pinshard", "cds")

    def run_verify(self, java, extra_opts=""):
        """`pinshard verify DATASET` the wheel's way; (flags, completed process)."""
        environ = {"XDG_CACHE_HOME": self.temp, "PINSHARD_JAVA_OPTS": extra_opts}
        with mock.patch.dict(os.environ, environ):
            os.environ.pop("PINSHARD_CDS", None)
            command = _java.java_command(["verify", DATASET], java=java, jar=self.jar)
        done = subprocess.run(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              timeout=600)
        self.assertEqual(0, done.returncode, done.stderr.decode(errors="replace"))
        return command, done

    def archives(self):
        return glob.glob(os.path.join(self.cds, "verify-*.jsa"))

    def check(self, java_path):
        java = _java.Java(java_path, _java.java_major(java_path), "PATH")
        first, _ = self.run_verify(java)
        self.assertTrue(any(f.startswith("-XX:DumpLoadedClassList=") for f in first), first)
        self.assertEqual(1, len(glob.glob(os.path.join(self.cds, "verify-*.classlist"))),
                         "the JVM put its class list in place as it exited: %s" % os.listdir(self.cds))
        second, _ = self.run_verify(java)  # starts the dump
        self.assertFalse(any("SharedArchiveFile" in f for f in second), second)
        self.assertTrue(await_state(lambda: self.archives() and not glob.glob(os.path.join(self.cds, "*.tmp"))),
                        "the detached dump put the archive in place: %s" % os.listdir(self.cds))
        third, done = self.run_verify(java, "-Xlog:class+load=info")
        self.assertIn("-XX:SharedArchiveFile=" + self.archives()[0], third)
        loaded = [line for line in done.stdout.decode(errors="replace").splitlines()
                  if "io.pinshard.cli.VerifyCommand " in line]
        self.assertEqual(1, len(loaded), "VerifyCommand loaded once")
        self.assertIn("source: shared objects file", loaded[0], "pinshard's classes come from the archive")

        archive = self.archives()[0]
        os.chmod(archive, 0o644)
        with open(archive, "r+b") as f:  # corrupt: the header's bytes overwritten
            f.write(os.urandom(4096))
        self.check_start_without_archive(java, archive)
        with open(archive, "wb") as f:  # truncated to nothing
            pass
        self.check_start_without_archive(java, archive)

        # Another jar build's archive under this build's name: the JVM sees the jar's changed mtime and ignores it.
        shutil.rmtree(self.cds)
        self.run_verify(java)
        self.run_verify(java)
        self.assertTrue(await_state(lambda: self.archives() and not glob.glob(os.path.join(self.cds, "*.tmp"))))
        old = self.archives()[0]
        stat = os.stat(self.jar)
        os.utime(self.jar, ns=(stat.st_atime_ns, stat.st_mtime_ns + 5 * 10 ** 9))
        with mock.patch.dict(os.environ, {"XDG_CACHE_HOME": self.temp}):
            recording = _java.archive_flags(java, self.jar, ["verify"], _java.jvm_flags(java.major, "verify"),
                                            pid=2 ** 22 + 4321)
        new = recording[0].split("=", 1)[1].replace(".classlist.%d.tmp" % (2 ** 22 + 4321), ".jsa")
        self.assertNotEqual(old, new)
        shutil.copy(old, new)
        self.check_start_without_archive(java, new)

    def check_start_without_archive(self, java, archive):
        command, done = self.run_verify(java, "-Xlog:class+load=info")
        self.assertIn("-XX:SharedArchiveFile=" + archive, command)
        out = done.stdout.decode(errors="replace")
        loaded = [line for line in out.splitlines() if "io.pinshard.cli.VerifyCommand " in line]
        self.assertEqual(1, len(loaded), out[-2000:])
        self.assertNotIn("shared objects file", loaded[0], "a class of the jar, not of the unusable archive")
        said = [line for line in done.stderr.decode(errors="replace").splitlines() + out.splitlines()
                if "[class,load]" not in line and any(w in line.lower() for w in ("cds", "sharing", "shared", "archive"))]
        self.assertEqual([], said, "no word of the archive")

    def test_jdk_17_or_the_path_java(self):
        self.check(_java.find_java().path)

    @unittest.skipUnless(os.path.isfile(os.path.join(JDK25, "bin", "java")), "no JDK 25 at " + JDK25)
    def test_jdk_25(self):
        self.check(os.path.join(JDK25, "bin", "java"))


if __name__ == "__main__":
    unittest.main()
