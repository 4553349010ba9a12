#!/usr/bin/env bash
# What the S3 cache's checks cost (docs/streaming.md, "What is checked when"): core-seconds per GB on one thread,
# shards in the page cache, for a whole-file CRC32C pass, an install (copy + CRC32C + every check + rename), a reuse
# (size, mtime, inode, header and footer CRCs) and verify --no-decode of a cached copy (io.pinshard.s3.CacheCheckBench).
# Usage: scripts/bench-cache-check.sh [SHARDS] [ROUNDS]   (defaults 64 shards of 16 MiB = 1 GiB, 5 rounds)
# Needs about 2 x SHARDS x 16 MiB free under ${BENCH_DIR:-/var/tmp}.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
classpath="$("$root/scripts/module-classpath.sh" --tests s3)"
read -r -a flags <<< "$("$root/scripts/jvm-flags.sh" java)"
work="$(mktemp -d "${BENCH_DIR:-/var/tmp}/bench-cache-check.XXXXXX")"
trap 'rm -rf "$work"' EXIT
java "${flags[@]}" -cp "$classpath" io.pinshard.s3.CacheCheckBench "$work" "$@"
