"""JVM discovery, the JVM flags and the version of the package (pinshard._java, pyproject.toml): no server needed.
Fake JDKs are folders with a bin/java script and a release file, so each rule is checked without installing one."""

import os
import re
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from pinshard import _java  # noqa: E402

REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def fake_jdk(root, version, release=True):
    """A JDK folder whose java prints `version` as the JVM does for -XshowSettings:properties."""
    os.makedirs(os.path.join(root, "bin"))
    java = os.path.join(root, "bin", "java")
    with open(java, "w") as f:
        f.write("#!/bin/sh\necho '    java.specification.version = %s' >&2\n" % version)
    os.chmod(java, 0o755)
    if release:
        with open(os.path.join(root, "release"), "w") as f:
            f.write('IMPLEMENTOR="test"\nJAVA_VERSION="%s"\n' % version)
    return java


class FindJava(unittest.TestCase):
    def setUp(self):
        self.temp = tempfile.TemporaryDirectory()
        self.addCleanup(self.temp.cleanup)
        self.empty_path = os.path.join(self.temp.name, "empty-bin")
        os.makedirs(self.empty_path)

    def test_none_found_names_java_home_path_the_minimum_and_the_debian_package(self):
        with self.assertRaises(_java.JavaNotFound) as raised:
            _java.find_java({"PATH": self.empty_path})
        message = str(raised.exception)
        for part in ("JAVA_HOME is not set", "no java on the PATH (%s)" % self.empty_path, "Java 17 or later",
                     "apt-get install openjdk-17-jre-headless"):
            self.assertIn(part, message)

    def test_java_home_without_java_is_an_error_naming_it(self):
        home = os.path.join(self.temp.name, "not-a-jdk")
        os.makedirs(home)
        fake_jdk(os.path.join(self.temp.name, "jdk17"), "17.0.2")
        with self.assertRaises(_java.JavaNotFound) as raised:
            _java.find_java({"JAVA_HOME": home, "PATH": os.path.join(self.temp.name, "jdk17", "bin")})
        self.assertIn("JAVA_HOME is %s, which has no bin/java" % home, str(raised.exception))
        self.assertIn("openjdk-17-jre-headless", str(raised.exception))

    def test_too_old_a_java_is_refused_with_its_version_and_where_it_came_from(self):
        java = fake_jdk(os.path.join(self.temp.name, "jdk11"), "11.0.20")
        with self.assertRaises(_java.JavaNotFound) as raised:
            _java.find_java({"JAVA_HOME": os.path.join(self.temp.name, "jdk11")})
        self.assertIn("%s (from JAVA_HOME) is Java 11" % java, str(raised.exception))
        self.assertIn("Java 17 or later", str(raised.exception))

    def test_java_8_written_as_one_dot_eight_is_too_old(self):
        fake_jdk(os.path.join(self.temp.name, "jdk8"), "1.8.0_392")
        with self.assertRaises(_java.JavaNotFound) as raised:
            _java.find_java({"PATH": os.path.join(self.temp.name, "jdk8", "bin")})
        self.assertIn("(from PATH) is Java 8", str(raised.exception))

    def test_java_home_wins_over_the_path(self):
        java = fake_jdk(os.path.join(self.temp.name, "jdk21"), "21.0.1")
        fake_jdk(os.path.join(self.temp.name, "jdk17"), "17.0.2")
        found = _java.find_java({"JAVA_HOME": os.path.join(self.temp.name, "jdk21"),
                                 "PATH": os.path.join(self.temp.name, "jdk17", "bin")})
        self.assertEqual(_java.Java(java, 21, "JAVA_HOME"), found)

    def test_the_wheels_runtime_comes_after_java_home_and_before_the_path(self):
        bundled = fake_jdk(os.path.join(self.temp.name, "wheel", "_runtime"), "17.0.15")
        home = fake_jdk(os.path.join(self.temp.name, "jdk21"), "21.0.1")
        fake_jdk(os.path.join(self.temp.name, "jdk25"), "25")
        path = os.path.join(self.temp.name, "jdk25", "bin")
        self.assertEqual(_java.Java(bundled, 17, "wheel"), _java.find_java({"PATH": path}, packaged=bundled))
        self.assertEqual(_java.Java(home, 21, "JAVA_HOME"),
                         _java.find_java({"JAVA_HOME": os.path.dirname(os.path.dirname(home)), "PATH": path},
                                         packaged=bundled))

    def test_a_too_old_java_home_beside_the_wheels_runtime_says_unsetting_it_is_the_fix(self):
        bundled = fake_jdk(os.path.join(self.temp.name, "wheel", "_runtime"), "17.0.15")
        fake_jdk(os.path.join(self.temp.name, "jdk11"), "11.0.20")
        with self.assertRaises(_java.JavaNotFound) as raised:
            _java.find_java({"JAVA_HOME": os.path.join(self.temp.name, "jdk11")}, packaged=bundled)
        self.assertIn("is Java 11 (unset it to use the Java this pinshard package brings)", str(raised.exception))

    def test_without_a_release_file_the_jvm_says_its_version(self):
        java = fake_jdk(os.path.join(self.temp.name, "jre"), "25", release=False)
        self.assertEqual(_java.Java(java, 25, "PATH"),
                         _java.find_java({"PATH": os.path.join(self.temp.name, "jre", "bin")}))


class JvmFlags(unittest.TestCase):
    """The package's flags come from the root pom, as scripts/jvm-flags.sh's do: both print the same."""

    def script(self, java, *args):
        return subprocess.run([os.path.join(REPO, "scripts", "jvm-flags.sh"), java] + list(args), check=True,
                              stdout=subprocess.PIPE).stdout.decode().split()

    def test_the_flags_are_those_of_scripts_jvm_flags_sh_for_17_24_and_convert(self):
        with tempfile.TemporaryDirectory() as temp:
            for version, command in (("17.0.2", ""), ("25", ""), ("17.0.2", "convert"), ("25", "convert")):
                java = fake_jdk(os.path.join(temp, version + command), version)
                expected = self.script(java, "--command", command) if command else self.script(java)
                self.assertEqual(expected, _java.jvm_flags(int(version.split(".")[0]), command),
                                 "Java %s, command %r" % (version, command))
        self.assertIn("--add-modules=jdk.incubator.vector", _java.jvm_flags(17))

    def test_the_package_version_is_the_poms_without_snapshot(self):
        with open(os.path.join(REPO, "python", "pyproject.toml"), encoding="utf-8") as f:
            version = re.search(r'^version = "([^"]+)"', f.read(), re.M).group(1)
        self.assertEqual(_java.pom_version(os.path.join(REPO, "pom.xml")).replace("-SNAPSHOT", ""), version)


if __name__ == "__main__":
    unittest.main()
