#!/usr/bin/env bash
# Prints, on one line, the JVM flags pinshard needs for a java: the root pom's pinshard.jvm.flags, plus
# pinshard.jvm.jdk24Flags when that java is JDK 24 or later (JDK 17 refuses them).
# Usage: scripts/jvm-flags.sh [--spark] [JAVA] [--command NAME]
#                             [--cds-list LIST | --cds-dump LIST FILE | --cds-use FILE | --cds-auto FILE]
#                             [--classpath CP]
#   --spark     adds pinshard.jvm.sparkFlags, the opens a JVM running Spark needs (scripts/bench-spark-convert.sh)
#   JAVA        default: $JAVA_HOME/bin/java, else java on the PATH
#   --command   the pinshard subcommand: convert adds pinshard.jvm.convertFlags
#   --cds-*     pinshard.jvm.cdsListFlags (record the classes the run loads in LIST),
#               pinshard.jvm.cdsDumpFlags (dump the class-data-sharing archive FILE of the classes in LIST) or
#               pinshard.jvm.cdsUseFlags (map FILE); @LIST@ and @ARCHIVE@ replaced by LIST and FILE
#   --cds-auto  an archive the JVM keeps itself, for a JVM no launcher of ours starts (a Spark job's): JDK 19 and
#               later pinshard.jvm.cdsAutoFlags (map FILE, written at exit when missing or stale); JDK 17
#               pinshard.jvm.cdsUseFlags when FILE exists, else pinshard.jvm.cdsAtExitFlags (write FILE at exit)
#   --classpath the class path the JVM will run with: with a --cds-* option, a folder on it leaves the class-data
#               flags out, saying so on stderr (the JVM takes an archive over jar files only: with a folder on the
#               path a Spark job that had succeeded ended with "Error occurred during initialization of VM")
# The pom is the one home of the list: surefire reads the property, the JMH forks jmh's filtered
# jvm-flags.properties, and ./pinshard, jmh/run.sh and the other scripts this script.
# Called at every ./pinshard start: no more processes than it needs (readlink, one sed over the pom).
set -euo pipefail
script="${BASH_SOURCE[0]}"
[[ "$script" == */* ]] || script="./$script"
root="$(cd "${script%/*}/.." && pwd)"
spark=0
if [[ "${1:-}" == "--spark" ]]; then spark=1; shift; fi
java_bin="${JAVA_HOME:+$JAVA_HOME/bin/}java"
if [[ $# -gt 0 && "$1" != --* ]]; then java_bin="$1"; shift; fi
command="" cds_flags="" archive="" list="" classpath=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --command) command="$2"; shift 2;;
    --cds-list) cds_flags=pinshard.jvm.cdsListFlags; list="$2"; shift 2;;
    --cds-dump) cds_flags=pinshard.jvm.cdsDumpFlags; list="$2"; archive="$3"; shift 3;;
    --cds-use) cds_flags=pinshard.jvm.cdsUseFlags; archive="$2"; shift 2;;
    --cds-auto) cds_flags=auto; archive="$2"; shift 2;;
    --classpath) classpath="$2"; shift 2;;
    *) echo "jvm-flags.sh: unknown argument $1" >&2; exit 2;;
  esac
done
# Every pinshard.jvm.* property of the root pom, read once (the first of each name counts).
declare -A properties=()
while IFS= read -r line; do
  name="${line%%=*}"
  [[ -n "${properties[$name]+set}" ]] || properties[$name]="${line#*=}"
done < <(sed -n 's:.*<\(pinshard\.jvm\.[A-Za-z0-9]*\)>\(.*\)</\1>.*:\1=\2:p' "$root/pom.xml")
flags="${properties[pinshard.jvm.flags]-}"
if [[ -z "$flags" ]]; then
  echo "jvm-flags.sh: no pinshard.jvm.flags property in $root/pom.xml" >&2
  exit 1
fi
# The JDK's release file says its version without starting a JVM (a tenth of a CPU second per call).
java_real="$(readlink -f "$(command -v "$java_bin")")"
release="${java_real%/*/*}/release"
major=""
if [[ -f "$release" && -r "$release" ]]; then
  while IFS= read -r line; do
    if [[ "$line" =~ ^JAVA_VERSION=\"([0-9]*) ]]; then major="${BASH_REMATCH[1]}"; break; fi
  done < "$release"
fi
if [[ -z "$major" ]]; then
  major="$("$java_bin" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')"
fi
if [[ "${major%%.*}" -ge 24 ]]; then flags+=" ${properties[pinshard.jvm.jdk24Flags]-}"; fi
if [[ "$cds_flags" == auto ]]; then  # JDK 17 has no -XX:+AutoCreateSharedArchive (and refuses to start with it)
  if [[ "${major%%.*}" -ge 19 ]]; then cds_flags=pinshard.jvm.cdsAutoFlags
  elif [[ -f "$archive" ]]; then cds_flags=pinshard.jvm.cdsUseFlags
  else cds_flags=pinshard.jvm.cdsAtExitFlags; fi
fi
if [[ "$spark" == 1 ]]; then flags+=" ${properties[pinshard.jvm.sparkFlags]-}"; fi
if [[ "$command" == convert ]]; then flags+=" ${properties[pinshard.jvm.convertFlags]-}"; fi
if [[ -n "$cds_flags" && -n "$classpath" ]]; then
  IFS=: read -r -a entries <<< "$classpath"
  for entry in "${entries[@]}"; do
    if [[ -d "$entry" ]]; then
      echo "jvm-flags.sh: no class-data archive: $entry on the class path is a folder (the archive takes jar files" \
        "only; scripts/spark-jars.sh makes a folder of jars to pass as 'DIR/*')" >&2
      cds_flags=""
      break
    fi
  done
fi
if [[ -n "$cds_flags" ]]; then
  cds="${properties[$cds_flags]-}"
  cds="${cds//@ARCHIVE@/"$archive"}"
  flags+=" ${cds//@LIST@/"$list"}"
fi
echo "$flags"
