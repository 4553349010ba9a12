"""Build hook of the pinshard wheel (metadata: pyproject.toml). build_py adds, under pinshard/_jar/:
- pinshard.jar, the CLI's shaded jar (cli/target/pinshard.jar, or $PINSHARD_JAR), refused when missing or older
  than a main source or pom of the checkout (the rule ./pinshard rebuilds by);
- jvm-flags.json, the root pom's pinshard.jvm.* properties (their one home; scripts/jvm-flags.sh reads the same);
and under pinshard/_runtime/ the Java runtime $PINSHARD_RUNTIME names (made with jlink by scripts/build-wheel.sh, the
one way to build the wheel), tagging the wheel manylinux_2_NN_x86_64 for the newest glibc symbol version (GLIBC_2.NN)
the runtime's binaries need; and fails when pyproject's version is not the root pom's <version> less -SNAPSHOT. $PINSHARD_REPO names the
checkout when this folder is built from a copy (the acceptance test does)."""

import importlib.util
import json
import os
import re
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py
from wheel.bdist_wheel import bdist_wheel

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.environ.get("PINSHARD_REPO") or os.path.join(HERE, ".."))
RUNTIME = os.environ.get("PINSHARD_RUNTIME")


def _runtime():
    """The jlink-made Java runtime the wheel carries ($PINSHARD_RUNTIME), checked."""
    if not RUNTIME:
        raise SystemExit("the pinshard wheel brings its own Java runtime: build it with scripts/build-wheel.sh (it "
                         "makes the runtime with jlink and sets PINSHARD_RUNTIME), not with pip wheel alone")
    if not os.access(os.path.join(RUNTIME, "bin", "java"), os.X_OK):
        raise SystemExit("PINSHARD_RUNTIME is %s, which has no bin/java" % RUNTIME)
    return RUNTIME


def _manylinux_tag(runtime):
    """manylinux_2_NN_x86_64, NN the newest GLIBC_2.NN symbol version an ELF file of `runtime` needs (2.17 at least,
    manylinux2014's, which the jar's bytedeco natives are built for)."""
    newest = 17
    for folder, _, files in os.walk(runtime):
        for name in files:
            with open(os.path.join(folder, name), "rb") as f:
                if f.read(4) != b"\x7fELF":
                    continue
                for match in re.finditer(rb"GLIBC_2\.(\d+)", f.read()):
                    newest = max(newest, int(match.group(1)))
    return "manylinux_2_%d_x86_64" % newest


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
        runtime = os.path.join(self.build_lib, "pinshard", "_runtime")
        shutil.rmtree(runtime, ignore_errors=True)
        shutil.copytree(_runtime(), runtime, symlinks=False,  # jlink's legal/ notices are links: copied as files
                        ignore=shutil.ignore_patterns("pinshard-runtime.key"))


class PlatformWheel(bdist_wheel):
    """Tagged for the glibc the bundled runtime needs (the jar's natives are linux-x86_64 too)."""

    def finalize_options(self):
        if self.plat_name is None:
            self.plat_name = _manylinux_tag(_runtime())
        super().finalize_options()


setup(cmdclass={"build_py": BuildWithJar, "bdist_wheel": PlatformWheel})
