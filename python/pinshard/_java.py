"""Running the server jar: which JVM (JAVA_HOME, then the runtime the wheel brings, then `java` on the PATH; at least
Java 17), which flags (the root
pom's pinshard.jvm.* properties, copied into the wheel at build time by setup.py) and the `pinshard` console script.

Standard library only: setup.py loads this file to read the pom, and `pinshard --version` must not import torch.
"""

import hashlib
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ElementTree
from typing import Dict, Iterable, Iterator, List, Mapping, NamedTuple, Optional, Sequence

#: The oldest Java the server runs on (maven.compiler.release in the root pom).
MINIMUM_JAVA = 17
#: What to install on Debian or Ubuntu when no Java is found.
DEBIAN_PACKAGE = "openjdk-17-jre-headless"
#: The pom properties the package carries (see scripts/jvm-flags.sh, which reads the same ones).
FLAG_PROPERTIES = ("pinshard.jvm.flags", "pinshard.jvm.jdk24Flags", "pinshard.jvm.convertFlags",
                   "pinshard.jvm.cdsListFlags", "pinshard.jvm.cdsDumpFlags", "pinshard.jvm.cdsUseFlags")
#: The class-data-sharing flags (a wheel built before they were carried has none: it starts without an archive).
CDS_PROPERTIES = FLAG_PROPERTIES[3:]
#: Arguments that make a run print usage or check options: its classes are not the work's (./pinshard's list).
_USAGE_ARGS = frozenset(("-h", "--help", "-V", "--version", "--check-options"))
#: The JVM's first stderr line whenever jdk.incubator.vector is added: true and of no use to the user.
INCUBATOR_NOTICE = b"WARNING: Using incubator modules: jdk.incubator.vector\n"

_PACKAGE = os.path.dirname(os.path.abspath(__file__))
_CHECKOUT_POM = os.path.normpath(os.path.join(_PACKAGE, "..", "..", "pom.xml"))
PACKAGED_JAR = os.path.join(_PACKAGE, "_jar", "pinshard.jar")
PACKAGED_FLAGS = os.path.join(_PACKAGE, "_jar", "jvm-flags.json")
#: The Java runtime the wheel brings (jlink-made by scripts/build-wheel.sh; absent in a checkout).
PACKAGED_JAVA = os.path.join(_PACKAGE, "_runtime", "bin", "java")


class JavaNotFound(RuntimeError):
    """No usable Java: none found, or one older than MINIMUM_JAVA. The message says where it looked and what to
    install."""


class Java(NamedTuple):
    """A java executable, its major version and where it was found ("JAVA_HOME", "wheel" or "PATH")."""
    path: str
    major: int
    source: str


def _install_hint() -> str:
    return ("install Java %d or later (Debian/Ubuntu: `sudo apt-get install %s`) or point JAVA_HOME at one"
            % (MINIMUM_JAVA, DEBIAN_PACKAGE))


def java_major(java: str) -> int:
    """The major version of `java`: from its JDK's `release` file (no JVM start), else from the JVM itself."""
    home = os.path.dirname(os.path.dirname(os.path.realpath(java)))
    try:
        with open(os.path.join(home, "release"), encoding="utf-8", errors="replace") as release:
            for line in release:
                match = re.match(r'JAVA_VERSION="(\d+)(?:\.(\d+))?', line)
                if match:
                    major = int(match.group(1))
                    return int(match.group(2) or 0) if major == 1 else major  # "1.8.0" is Java 8
    except OSError:
        pass
    shown = subprocess.run([java, "-XshowSettings:properties", "-version"], stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60).stdout.decode("utf-8",
                                                                                                         "replace")
    match = re.search(r"java\.specification\.version = (?:1\.)?(\d+)", shown)
    if not match:
        raise JavaNotFound("%s did not say its version (java -XshowSettings:properties -version printed %r); %s"
                           % (java, shown[-300:], _install_hint()))
    return int(match.group(1))


def find_java(environ: Optional[Mapping[str, str]] = None, packaged: str = PACKAGED_JAVA) -> Java:
    """The java to run: $JAVA_HOME/bin/java when JAVA_HOME is set (the override, as ./pinshard takes it: a JAVA_HOME
    without a java is an error, not a reason to take another one), else the runtime the wheel brings (`packaged`),
    else `java` on the PATH; it must be Java 17 or later."""
    environ = os.environ if environ is None else environ
    home = environ.get("JAVA_HOME")
    bundled = os.path.isfile(packaged) and os.access(packaged, os.X_OK)
    unset = " (unset it to use the Java this pinshard package brings)" if bundled else ""
    if home:
        java, source = os.path.join(home, "bin", "java"), "JAVA_HOME"
        if not (os.path.isfile(java) and os.access(java, os.X_OK)):
            raise JavaNotFound("pinshard needs Java %d or later: JAVA_HOME is %s, which has no bin/java%s; unset "
                               "JAVA_HOME or %s" % (MINIMUM_JAVA, home, unset, _install_hint()))
    elif bundled:
        java, source = packaged, "wheel"
    else:
        found, source = shutil.which("java", path=environ.get("PATH", os.defpath)), "PATH"
        if found is None:
            raise JavaNotFound("pinshard needs Java %d or later and found none: JAVA_HOME is not set and there is no "
                               "java on the PATH (%s); %s" % (MINIMUM_JAVA, environ.get("PATH", ""), _install_hint()))
        java = found
    major = java_major(java)
    if major < MINIMUM_JAVA:
        raise JavaNotFound("pinshard needs Java %d or later: %s (from %s) is Java %d%s; %s"
                           % (MINIMUM_JAVA, java, source, major, unset if source == "JAVA_HOME" else "",
                              _install_hint()))
    return Java(java, major, source)


def pom_properties(pom: str, names: Sequence[str] = FLAG_PROPERTIES) -> Dict[str, str]:
    """The `names` properties of a Maven pom (one home of the JVM flags: the root pom)."""
    root = ElementTree.parse(pom).getroot()
    namespace = root.tag[:root.tag.index("}") + 1] if root.tag.startswith("{") else ""
    properties = root.find(namespace + "properties")
    found = {}
    for name in names:
        element = properties.find(namespace + name) if properties is not None else None
        if element is None or element.text is None:
            raise ValueError("%s has no <%s> property" % (pom, name))
        found[name] = element.text.strip()
    return found


def pom_version(pom: str) -> str:
    """The pom's own <version>."""
    root = ElementTree.parse(pom).getroot()
    namespace = root.tag[:root.tag.index("}") + 1] if root.tag.startswith("{") else ""
    version = root.find(namespace + "version")
    if version is None or version.text is None:
        raise ValueError("%s has no <version>" % pom)
    return version.text.strip()


def flag_properties() -> Dict[str, str]:
    """The JVM flag properties: the wheel's copy, else this checkout's root pom."""
    if os.path.isfile(PACKAGED_FLAGS):
        with open(PACKAGED_FLAGS, encoding="utf-8") as f:
            properties: Dict[str, str] = json.load(f)
        return properties
    return pom_properties(_CHECKOUT_POM)


def jvm_flags(major: int, subcommand: str = "", properties: Optional[Mapping[str, str]] = None) -> List[str]:
    """The flags scripts/jvm-flags.sh prints for a Java `major` and a subcommand (no class-data-sharing archive)."""
    properties = flag_properties() if properties is None else properties
    line = properties["pinshard.jvm.flags"]
    if major >= 24:
        line += " " + properties["pinshard.jvm.jdk24Flags"]
    if subcommand == "convert":
        line += " " + properties["pinshard.jvm.convertFlags"]
    return line.split()


def cache_root(environ: Optional[Mapping[str, str]] = None) -> str:
    """pinshard's cache folder, by the rule ./pinshard and the JVM (ImageCollection.defaultCacheRoot) follow:
    $XDG_CACHE_HOME/pinshard when that is an absolute path, else $HOME/.cache/pinshard."""
    environ = os.environ if environ is None else environ
    xdg = environ.get("XDG_CACHE_HOME", "")
    if xdg.startswith("/"):
        return os.path.join(xdg, "pinshard")
    home = environ.get("HOME", "")
    return os.path.join(home if home.startswith("/") else os.path.expanduser("~"), ".cache", "pinshard")


def _template(line: str, **values: str) -> List[str]:
    """A pom flag line split into arguments, @NAME@ replaced by values[NAME] in each (a path with blanks stays one
    argument)."""
    out = []
    for word in line.split():
        for name, value in values.items():
            word = word.replace("@%s@" % name, value)
        out.append(word)
    return out


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # someone else's process
    return True


def _put_finished_class_lists_in_place(folder: str) -> None:
    """./pinshard's put_finished_class_lists_in_place: a `NAME.classlist.PID.tmp` of a process that is gone (killed
    before its JVM's exit hook renamed it) becomes `NAME.classlist` unless that run failed (its `.discard`), and any
    other temporary file of a dead pid (an archive dump killed midway) goes."""
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        if not name.endswith(".tmp"):
            continue
        pid = name[:-4].rsplit(".", 1)[-1]
        if not pid.isdigit():
            continue
        path = os.path.join(folder, name)
        try:
            info = os.stat(path)
            if _alive(int(pid)) and time.time() - info.st_mtime < 86400:
                continue  # still running (a pid reused for a day is taken for dead)
            if ".classlist." in name and not os.path.exists(path + ".discard") and info.st_size > 0:
                os.replace(path, path[:-len("." + pid + ".tmp")])
        except OSError:
            pass
        for leftover in (path, path + ".discard"):
            try:
                os.unlink(leftover)
            except OSError:
                pass


# The detached archive dump: lowest priority, into ARCHIVE.PID.tmp, renamed into place when the JVM succeeded.
# A list the JVM could not dump from (two servers of one process wrote it at once) goes: the next start records anew.
_DUMP = """import os, subprocess, sys
archive, listing, placeholder, command = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
tmp = "%s.%d.tmp" % (archive, os.getpid())
try:
    os.nice(19)
    if subprocess.call([w.replace(placeholder, tmp) for w in command], stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) == 0:
        os.replace(tmp, archive)
    else:
        os.unlink(listing)
finally:
    if os.path.exists(tmp):
        os.unlink(tmp)
"""


def _start_archive_dump(java: Java, jar: str, flags: List[str], dump: str, listing: str, archive: str) -> None:
    """Dumps `archive` from the class list `listing` in a detached process (./pinshard's start_archive_dump), unless
    one is being written."""
    folder, prefix = os.path.split(archive)
    if any(n.startswith(prefix + ".") and n.endswith(".tmp") for n in os.listdir(folder)) or not sys.executable:
        return
    placeholder = archive + ".PID.tmp"
    command = [java.path] + flags + _template(dump, LIST=listing, ARCHIVE=placeholder) + ["-cp", jar]
    try:
        subprocess.Popen([sys.executable, "-c", _DUMP, archive, listing, placeholder] + command, stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
                         close_fds=True)
    except OSError:
        pass  # no archive yet: the next start tries again


def _remove_older_builds(folder: str, subcommand: str) -> None:
    """The lists and archives of this subcommand untouched for a day (other jar builds or JDKs: ./pinshard's `find
    -mtime +0 -delete`), so that upgrades do not pile up archives of ~30 MB."""
    day_ago = time.time() - 86400
    for name in os.listdir(folder):
        if name.startswith(subcommand + "-") and not name.endswith(".tmp"):
            path = os.path.join(folder, name)
            try:
                if os.stat(path).st_mtime < day_ago:
                    os.unlink(path)
            except OSError:
                pass


def archive_flags(java: Java, jar: str, args: Sequence[str], flags: Sequence[str],
                  properties: Optional[Mapping[str, str]] = None, environ: Optional[Mapping[str, str]] = None,
                  pid: Optional[int] = None) -> List[str]:
    """The class-data-sharing flags of a server start, as ./pinshard gives them: one archive per JDK, jar build, flag
    line and subcommand in `cache_root()/cds` (PINSHARD_CDS=0: none), in three steps, none at a JVM's exit:
    1. a first run records the classes it loads into `NAME.classlist.PID.tmp` (PID this process's, which the JVM's
       own for the `pinshard` console script, which execs; the JVM renames it to `NAME.classlist` as it exits, or
       drops it when the command failed), and removes this subcommand's files untouched for a day (older builds);
    2. the next start dumps `NAME.jsa` from it in a detached process at the lowest priority (temp file, renamed when
       whole: two first servers cannot leave a half archive) and runs without;
    3. later starts map it. An archive the JVM cannot use (corrupt, another JDK's or jar's) is ignored by the JVM
       (-Xshare:auto, its messages off): the start goes on without it.
    """
    environ = os.environ if environ is None else environ
    properties = flag_properties() if properties is None else properties
    if environ.get("PINSHARD_CDS", "1") == "0" or any(name not in properties for name in CDS_PROPERTIES):
        return []
    subcommand = args[0] if args and re.fullmatch(r"[a-z]+", args[0]) else "none"
    folder = os.path.join(cache_root(environ), "cds")
    try:
        os.makedirs(folder, exist_ok=True)
        _put_finished_class_lists_in_place(folder)
        real = os.path.realpath(java.path)
        java_info, jar_info = os.stat(real), os.stat(jar)
    except OSError:
        return []
    identity = "%s %d %d %s %d %d %s" % (real, java_info.st_size, java_info.st_mtime_ns, os.path.abspath(jar),
                                         jar_info.st_size, jar_info.st_mtime_ns, " ".join(flags))
    stem = os.path.join(folder, "%s-py%s" % (subcommand, hashlib.sha256(identity.encode()).hexdigest()[:12]))
    archive, listing = stem + ".jsa", stem + ".classlist"
    if os.path.isfile(archive):
        return _template(properties["pinshard.jvm.cdsUseFlags"], ARCHIVE=archive)
    if os.path.isfile(listing):
        _start_archive_dump(java, jar, list(flags), properties["pinshard.jvm.cdsDumpFlags"], listing, archive)
        return []
    if subcommand == "none" or any(arg in _USAGE_ARGS for arg in args):
        return []  # a usage or --check-options run would record the usage's classes, not the work's
    recording = "%s.classlist.%d.tmp" % (stem, os.getpid() if pid is None else pid)
    if os.path.exists(recording):
        return []  # another server of this process records it
    _remove_older_builds(folder, subcommand)
    return (_template(properties["pinshard.jvm.cdsListFlags"], LIST=recording)
            + ["-Dpinshard.cds.classList=" + recording])


def java_command(args: Sequence[str] = (), java: Optional[Java] = None, jar: Optional[str] = None) -> List[str]:
    """`java FLAGS ARCHIVE-FLAGS $PINSHARD_JAVA_OPTS -jar JAR ARGS`, the wheel's equivalent of ./pinshard ARGS
    (`archive_flags`: the subcommand's class-data-sharing archive); `jar` by default the wheel's."""
    jar = PACKAGED_JAR if jar is None else jar
    if not os.path.isfile(jar):
        raise FileNotFoundError("pinshard: %s is missing: this pinshard package was not installed from a wheel "
                                "(in a checkout run ./pinshard)" % jar)
    java = find_java() if java is None else java
    subcommand = args[0] if args and re.fullmatch(r"[a-z]+", args[0]) else ""
    flags = jvm_flags(java.major, subcommand)
    return ([java.path] + flags + archive_flags(java, jar, args, flags)
            + os.environ.get("PINSHARD_JAVA_OPTS", "").split() + ["-jar", jar] + list(args))


def pinshard_command(*args: str) -> List[str]:
    """How to run `pinshard ARGS`: $PINSHARD_COMMAND (a JSON list or a shell line) + ARGS, else the wheel's jar on
    the JVM `find_java` picks (installed from a wheel), else this checkout's ./pinshard script, else
    `pinshard` on the PATH."""
    configured = os.environ.get("PINSHARD_COMMAND")
    if configured:
        base: List[str] = json.loads(configured) if configured.lstrip().startswith("[") else shlex.split(configured)
        return base + list(args)
    if os.path.isfile(PACKAGED_JAR):
        return java_command(list(args))  # the JVM's flags depend on the subcommand, args[0]
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "pinshard")
    if os.path.isfile(script):
        return [os.path.normpath(script)] + list(args)
    return ["pinshard"] + list(args)


def drop_incubator_notice(chunks: Iterable[bytes]) -> Iterator[bytes]:
    """`chunks` of a JVM's stderr (lines or reads of any size) as they come, less a first line that is
    INCUBATOR_NOTICE."""
    head = b""
    chunks = iter(chunks)
    for chunk in chunks:
        head += chunk
        if len(head) >= len(INCUBATOR_NOTICE) or b"\n" in head:
            break
    if head.startswith(INCUBATOR_NOTICE):
        head = head[len(INCUBATOR_NOTICE):]
    if head:
        yield head
    yield from chunks


def _filter_stderr(read_end: int) -> None:
    """The forked filter: copies the JVM's stderr through, less a first line that is the incubator notice."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C stops the JVM; this copies its last words, then EOF
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # and so does a `kill -TERM -PGID` of the whole group
    with os.fdopen(read_end, "rb", buffering=0) as pipe:
        for chunk in drop_incubator_notice(iter(lambda: pipe.read(65536), b"")):
            os.write(2, chunk)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """The `pinshard` console script: execs the JVM (so the PID a caller holds is the JVM's, as with ./pinshard),
    its stderr through a forked filter that drops the incubator notice."""
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        command = java_command(args)
    except (JavaNotFound, FileNotFoundError) as e:
        print(e, file=sys.stderr)  # each message starts with "pinshard needs" or names the missing jar
        return 1
    sys.stdout.flush()
    sys.stderr.flush()
    read_end, write_end = os.pipe()
    if os.fork() == 0:
        try:
            os.close(write_end)
            os.close(0)
            os.close(1)
            _filter_stderr(read_end)
        finally:
            os._exit(0)
    os.close(read_end)
    os.dup2(write_end, 2)
    os.close(write_end)
    os.execv(command[0], command)
    return 1  # not reached


if __name__ == "__main__":
    sys.exit(main())
