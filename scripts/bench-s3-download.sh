#!/usr/bin/env bash
# Benchmark of issue 28: CPU per GB of shard downloads for each HTTP client under the SDK (Apache, the JDK's
# HttpURLConnection, the CRT), side by side in one JVM, through ObjectDownload (the streamed cache's own loop: write as
# the body arrives, CRC32C on the same pass, fsync), from s3proxy in a JVM of its own (its CPU is not counted).
# The store holds the objects in its heap. Usage: scripts/bench-s3-download.sh [OBJECTS] [MIB] [ROUNDS] [WARMUP]
# [THREADS] [CLIENTS]   (defaults 8 32 6 2 4 apache,urlconnection,crt; a client NAME-cache runs the whole streamed-cache path over real shards, checks the checks alone). BENCH_S3_JAVA_OPTS adds flags to the client JVM.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
classpath="$("$root/scripts/module-classpath.sh" --tests s3)"
read -r -a flags <<< "$("$root/scripts/jvm-flags.sh" java)"
work="$(mktemp -d "${BENCH_DIR:-/var/tmp}/bench-s3-download.XXXXXX")"
server_pid=""
# shellcheck source=bench-s3-store.sh
source "$root/scripts/bench-s3-store.sh"
trap 'stop_s3_store; rm -rf "$work"' EXIT
start_s3_store "$work" "$classpath"
read -r -a extra <<< "${BENCH_S3_JAVA_OPTS:-}"
mkdir -p "$work/files"
java "${flags[@]}" ${extra[@]+"${extra[@]}"} -cp "$classpath" io.pinshard.s3.DownloadCpuBench \
  "$endpoint" "$work/files" "$@"
