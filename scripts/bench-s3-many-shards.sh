#!/usr/bin/env bash
# Benchmark of issue 27: push, push again and the streamed open of a dataset of SHARDS one-record shards (16x16 raw
# pixels, written by the real writer) against s3proxy on 127.0.0.1 in a JVM of its own (in-memory store), with the
# LIST, HEAD, GET and PUT requests of each step counted by a counting interceptor in the SDK client, per shard, and the
# time. Everything it makes (the local dataset, the cache, the store) is deleted at the end.
# Usage: scripts/bench-s3-many-shards.sh [SHARDS] [PUSH_THREADS]   (defaults 100000 16)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
classpath="$("$root/scripts/module-classpath.sh" --tests s3)"
read -r -a flags <<< "$("$root/scripts/jvm-flags.sh" java)"
work="$(mktemp -d "${BENCH_DIR:-/var/tmp}/bench-s3-many-shards.XXXXXX")"
server_pid=""
# shellcheck source=bench-s3-store.sh
source "$root/scripts/bench-s3-store.sh"
trap 'stop_s3_store; rm -rf "$work"' EXIT
BENCH_S3_STORE_HEAP="${BENCH_S3_STORE_HEAP:-3g}" start_s3_store "$work" "$classpath"
java "${flags[@]}" -Xmx2g -cp "$classpath" io.pinshard.s3.ManyShardsS3Bench "$endpoint" "$work" "$@" 2>&1 \
  | grep -v '^SLF4J'
echo "disk: $(du -sh "$work" | cut -f1) under $work while it ran (deleted now)"
