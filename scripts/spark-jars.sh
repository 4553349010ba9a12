#!/usr/bin/env bash
# Fills DIR with the jars a Spark convert job runs from (docs/convert.md, "spark-submit"): the spark module's jar, the
# pinshard jars it needs and every library of its class path, Spark's own included, as jar files only (a class-data
# archive takes classes from jar files alone: a folder on the class path made the job end with "Error occurred
# during initialization of VM"). Links into the build's output and ~/.m2 by default; --copy for a folder that can
# travel (hundreds of MB). Builds the spark module when stale (scripts/module-classpath.sh).
# Usage: scripts/spark-jars.sh [--copy] [DIR]   (default DIR: jars/ in the current directory; prints DIR)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
copy=false
if [[ "${1:-}" == "--copy" ]]; then copy=true; shift; fi
dest="${1:-jars}"
classpath="$("$root/scripts/module-classpath.sh" spark)"
version="$(sed -n 's:^  <version>\(.*\)</version>.*:\1:p' "$root/pom.xml" | head -n 1)"
spark_jar="$root/spark/target/pinshard-spark-$version.jar"
[[ -f "$spark_jar" ]] || { echo "spark-jars: no $spark_jar (mvn -DskipTests package -pl spark -am builds it)" >&2; exit 1; }
mkdir -p "$dest"
IFS=: read -r -a entries <<< "$classpath"
for entry in "$spark_jar" "${entries[@]}"; do
  [[ "$entry" == *.jar && -f "$entry" ]] || continue  # spark/target/classes: its jar above stands for it
  if [[ "$copy" == true ]]; then cp -f "$entry" "$dest/"; else ln -sf "$entry" "$dest/"; fi
done
echo "$dest"
