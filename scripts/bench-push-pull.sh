#!/usr/bin/env bash
# push and pull of a random raw dataset against s3proxy on 127.0.0.1 (the tests' S3TestServer, in-memory store),
# beside a local copy of the same files in the same run: MB/s of each and their ratios. The store holds the whole
# dataset in the heap, hence -Xmx.
# Usage: scripts/bench-push-pull.sh [--mib TOTAL] [--shard-mib S] [--threads N]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
mib=512 shard=64 threads=4
while [[ $# -gt 0 ]]; do
  case "$1" in
    --mib) mib="$2"; shift 2 ;;
    --shard-mib) shard="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    *) echo "usage: $0 [--mib TOTAL] [--shard-mib S] [--threads N]" >&2; exit 2 ;;
  esac
done
# The examples module's classes and test scope, as its build wrote them (no Maven after `mvn verify`).
classpath="$("$root/scripts/module-classpath.sh" examples)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# shellcheck disable=SC2046
java $("$root/scripts/jvm-flags.sh") -Xmx$((mib * 3 + 512))m \
  -cp "$classpath" \
  io.pinshard.examples.s3.PushPullBench "$mib" "$shard" "$threads" "$work"
