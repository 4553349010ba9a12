#!/usr/bin/env bash
# Prints, on one line, the JVM flags pinshard needs for a java: the root pom's pinshard.jvm.flags, plus
# pinshard.jvm.jdk24Flags when that java is JDK 24 or later (JDK 17 refuses them).
# Usage: scripts/jvm-flags.sh [--spark] [JAVA]   (default: $JAVA_HOME/bin/java, else java on the PATH)
# --spark adds pinshard.jvm.sparkFlags, the opens a JVM running Spark needs (scripts/bench-spark-convert.sh).
# The pom is the one home of the list: surefire reads the property, the JMH forks jmh's filtered
# jvm-flags.properties, and ./pinshard, jmh/run.sh and the other scripts this script.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
spark=0
if [[ "${1:-}" == "--spark" ]]; then spark=1; shift; fi
java_bin="${1:-${JAVA_HOME:+$JAVA_HOME/bin/}java}"
property() { sed -n "s:.*<$1>\(.*\)</$1>.*:\1:p" "$root/pom.xml" | head -n 1; }
flags="$(property pinshard.jvm.flags)"
if [[ -z "$flags" ]]; then
  echo "jvm-flags.sh: no pinshard.jvm.flags property in $root/pom.xml" >&2
  exit 1
fi
major="$("$java_bin" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')"
if [[ "${major%%.*}" -ge 24 ]]; then flags+=" $(property pinshard.jvm.jdk24Flags)"; fi
if [[ "$spark" == 1 ]]; then flags+=" $(property pinshard.jvm.sparkFlags)"; fi
echo "$flags"
