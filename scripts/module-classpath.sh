#!/usr/bin/env bash
# Prints the class path a script runs a module's code with: MODULE/target/classes (with --tests also
# MODULE/target/test-classes) and every dependency of the module's test scope, as the module's own build wrote them to
# MODULE/target/test.classpath (the maven-dependency-plugin execution the root pom binds to prepare-package, in each
# module whose pom declares the plugin: `grep -l maven-dependency-plugin */pom.xml`). So after `mvn verify` (or
# `mvn -DskipTests package`) this calls no Maven at all, and nothing it needs can be missing from ~/.m2: that build
# fetched it.
# When the file is missing or older than a source or pom, it builds with the goals verify runs,
# `mvn -DskipTests package -pl MODULE -am`, without -o (a fresh ~/.m2 fills as verify would fill it).
# Usage: scripts/module-classpath.sh [--tests] MODULE
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tests=false
if [[ "${1:-}" == "--tests" ]]; then tests=true; shift; fi
module="${1:?usage: scripts/module-classpath.sh [--tests] MODULE}"
target="$root/$module/target"
cp_file="$target/test.classpath"
[[ -f "$root/$module/pom.xml" ]] || { echo "module-classpath: no module $module in $root" >&2; exit 2; }
# Build outputs (target/, where annotation processors write .java files later in the same build) do not count.
stale() {
  [[ ! -f "$cp_file" ]] || [[ -n "$(find "$root" \( -path "$root/.git" -o -name target \) -prune -o \
    \( -name '*.java' -o -name 'pom.xml' -o -path '*/src/main/resources/*' \) -newer "$cp_file" -print -quit)" ]]
}
if stale; then
  echo "module-classpath: building $module (mvn -DskipTests package -pl $module -am) ..." >&2
  (cd "$root" && mvn -q -B -DskipTests -Dpinshard.skipPhotos=true package -pl "$module" -am >&2) || {
    echo "module-classpath: the build of $module failed (see above); \`mvn verify\` or \`mvn -DskipTests package\` writes $cp_file" >&2
    exit 1; }
  [[ -f "$cp_file" ]] || { echo "module-classpath: the build wrote no $cp_file (does $module/pom.xml declare maven-dependency-plugin?)" >&2; exit 1; }
fi
classes="$target/classes"
if $tests; then classes+=":$target/test-classes"; fi
echo "$classes:$(cat "$cp_file")"
