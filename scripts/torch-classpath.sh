#!/usr/bin/env bash
# Builds the torch module when it is missing or older than any source, and prints the classpath of its examples:
# torch/target/classes, the reactor modules' jars and the dependencies from ~/.m2 (libtorch, OpenBLAS, XChart, and
# test scope for slf4j-simple, which prints the data-wait warning; the library itself leaves the binding to its user).
# Usage: scripts/torch-classpath.sh
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cp_file="$root/torch/target/examples.classpath"
if [[ ! -f "$cp_file" ]] || [[ -n "$(find "$root" -path "$root/.git" -prune -o \( -name '*.java' -o -name 'pom.xml' \) -newer "$cp_file" -print -quit)" ]]; then
  echo "torch-classpath: building the torch module ..." >&2
  (cd "$root" && mvn -q -B -o -DskipTests -Dpinshard.skipPhotos=true package \
    org.apache.maven.plugins:maven-dependency-plugin:2.8:build-classpath -Dmdep.includeScope=test \
    -Dmdep.outputFile="$cp_file.deps" -pl torch -am >&2) || {
    echo "torch-classpath: the build failed (mvn -o needs the dependencies in ~/.m2; drop -o once to fetch them)" >&2
    exit 1; }
  echo "$root/torch/target/classes:$(cat "$cp_file.deps")" > "$cp_file"
fi
cat "$cp_file"
