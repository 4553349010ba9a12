#!/usr/bin/env bash
# Streaming from object storage vs a warm local copy, in one run: the loader over the photos' jpeg dataset
# (scripts/prepare-bench-data.sh, re-sharded into SHARDS shards with the payloads copied as they are), quasi-random
# order, from an S3 server on loopback (s3proxy, started and stopped by the benchmark) into a cold cache limited
# to a quarter of the dataset, alternated ROUNDS times with the same loader over the local copy (warm in the page
# cache). Prints images/s per epoch and the bytes fetched per epoch against the dataset's size.
# Usage: scripts/bench-s3.sh [--rounds R] [--epochs E] [--shards S] [--workers N] [--copies C]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
rounds=3 epochs=3 shards=16 workers=2 copies=24
while [[ $# -gt 0 ]]; do
  case "$1" in
    --rounds) rounds="$2"; shift 2 ;;
    --epochs) epochs="$2"; shift 2 ;;
    --shards) shards="$2"; shift 2 ;;
    --workers) workers="$2"; shift 2 ;;
    --copies) copies="$2"; shift 2 ;;
    *) echo "usage: $0 [--rounds R] [--epochs E] [--shards S] [--workers N] [--copies C]" >&2; exit 2 ;;
  esac
done
data="$("$root/scripts/prepare-bench-data.sh" "$copies")"
cd "$root"
cp_file="$root/s3/target/bench.classpath"
echo "bench-s3: building the s3 module and its test classes ..." >&2
mvn -q -B -o -DskipTests -Dpinshard.skipPhotos=true package \
  org.apache.maven.plugins:maven-dependency-plugin:2.8:build-classpath -Dmdep.includeScope=test \
  -Dmdep.outputFile="$cp_file" -pl s3 -am >&2
read -r -a flags <<< "$("$root/scripts/jvm-flags.sh" java)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
java "${flags[@]}" -cp "$root/s3/target/test-classes:$root/s3/target/classes:$(cat "$cp_file")" \
  io.pinshard.s3.S3StreamBench "$data/jpeg" "$work" "$shards" "$rounds" "$epochs" "$workers"
