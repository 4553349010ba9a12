"""Build hook of the pinshard wheel (metadata: pyproject.toml). build_py adds, under pinshard/_jar/:
- pinshard.jar, the CLI's shaded jar (cli/target/pinshard.jar, or $PINSHARD_JAR), refused when missing or older
  than a main source or pom of the checkout (the rule ./pinshard rebuilds by);
- jvm-flags.json, the root pom's pinshard.jvm.* properties (their one home; scripts/jvm-flags.sh reads the same).
and fails when pyproject's version is not the root pom's <version> less -SNAPSHOT. $PINSHARD_REPO names the
checkout when this folder is built from a copy (the acceptance test does)."""

import importlib.util
import json
import os
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.environ.get("PINSHARD_REPO") or os.path.join(HERE, ".."))


def _java_module():
    spec = importlib.util.spec_from_file_location("pinshard_java_for_build", os.path.join(HERE, "pinshard", "_java.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _stale_source(jar):
    """A main source or pom newer than the jar, or None."""
    built = os.path.getmtime(jar)
    for folder, dirs, files in os.walk(REPO):
        dirs[:] = [d for d in dirs if d not in (".git", "target", "node_modules", "python")]
        in_main = os.sep + os.path.join("src", "main") in folder + os.sep
        for name in files:
            path = os.path.join(folder, name)
            if (name == "pom.xml" or in_main) and os.path.getmtime(path) > built:
                return path
    return None


class BuildWithJar(build_py):
    def run(self):
        super().run()
        java = _java_module()
        pom = os.path.join(REPO, "pom.xml")
        maven = java.pom_version(pom)
        if maven.replace("-SNAPSHOT", "") != self.distribution.get_version():
            raise SystemExit("python/pyproject.toml says version %s, the root pom %s: make them the same"
                             % (self.distribution.get_version(), maven))
        jar = os.environ.get("PINSHARD_JAR") or os.path.join(REPO, "cli", "target", "pinshard.jar")
        if not os.path.isfile(jar):
            raise SystemExit("%s is missing: build it first with ./pinshard --version (or mvn -B -DskipTests "
                             "package -pl cli -am)" % jar)
        stale = None if os.environ.get("PINSHARD_JAR") else _stale_source(jar)
        if stale:
            raise SystemExit("%s is older than %s: rebuild it with ./pinshard --version" % (jar, stale))
        target = os.path.join(self.build_lib, "pinshard", "_jar")
        os.makedirs(target, exist_ok=True)
        shutil.copyfile(jar, os.path.join(target, "pinshard.jar"))
        with open(os.path.join(target, "jvm-flags.json"), "w", encoding="utf-8") as f:
            json.dump(java.pom_properties(pom), f, indent=1)


setup(cmdclass={"build_py": BuildWithJar})
