#!/usr/bin/env bash
# Streaming from object storage vs a warm local copy, side by side: the loader over the photos' jpeg dataset
# (scripts/prepare-bench-data.sh, re-sharded into SHARDS shards with the payloads copied as they are), quasi-random
# order, from an S3 server on loopback (s3proxy, started and stopped by the benchmark) into a cold cache limited
# to a quarter of the dataset. PAIRS pairs (default 10), each the local copy (warm in the page cache) and the
# streamed dataset over a new, empty cache, each timed from Loader.open to the end of one epoch, the order
# alternating; then one streamed run of EPOCHS epochs for the bytes fetched per epoch, and pairs of epochs over a
# filled cache against local. Prints each pair's ratio, their median and pooled ratio, and where the CPU went.
# --repeat R: each record R times (default 16: 15,744 records, 509 MB, in about 16 shards (17 with the rounding) of
# ~30 MB; with 4, shards of 7 MB made the SDK's per-request cost, still being compiled by the JIT, a third of the
# downloads' CPU). Shards must hold more than the ring's in-flight batches, which stay held past the limit.
# --store-cpu C runs the store in a JVM of its own on CPU C, and --loader-cpu L pins the loader's JVM (both
# sources) to CPUs L (taskset lists): the store then stands for one on another host, off the loader's cores.
# BENCH_S3_JAVA_OPTS adds flags to the loader's JVM.
# Usage: scripts/bench-s3.sh [--pairs P] [--epochs E] [--shards S] [--workers N] [--copies C] [--repeat R]
#                            [--store-cpu C] [--loader-cpu L]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
pairs=10 epochs=3 shards=16 workers=2 copies=24 repeat=16 store_cpu='' loader_cpu=''
while [[ $# -gt 0 ]]; do
  case "$1" in
    --pairs) pairs="$2"; shift 2 ;;
    --epochs) epochs="$2"; shift 2 ;;
    --shards) shards="$2"; shift 2 ;;
    --workers) workers="$2"; shift 2 ;;
    --copies) copies="$2"; shift 2 ;;
    --repeat) repeat="$2"; shift 2 ;;
    --store-cpu) store_cpu="$2"; shift 2 ;;
    --loader-cpu) loader_cpu="$2"; shift 2 ;;
    *) echo "usage: $0 [--pairs P] [--epochs E] [--shards S] [--workers N] [--copies C] [--repeat R] [--store-cpu C] [--loader-cpu L]" >&2; exit 2 ;;
  esac
done
data="$("$root/scripts/prepare-bench-data.sh" "$copies")"
cd "$root"
# The examples module's classes and test scope, as its build wrote them (no Maven after `mvn verify`).
classpath="$("$root/scripts/module-classpath.sh" examples)"
read -r -a flags <<< "$("$root/scripts/jvm-flags.sh" java)"
work="$(mktemp -d)"
server_pid=""
# shellcheck source=bench-s3-store.sh
source "$root/scripts/bench-s3-store.sh"
trap 'stop_s3_store; rm -rf "$work"' EXIT
endpoint=""
if [[ -n "$store_cpu" ]]; then
  start_s3_store "$work" "$classpath" taskset -c "$store_cpu"
fi
pin=()
[[ -n "$loader_cpu" ]] && pin=(taskset -c "$loader_cpu")
read -r -a extra <<< "${BENCH_S3_JAVA_OPTS:-}"  # e.g. -Xlog:gc:file=/tmp/gc.log
${pin[@]+"${pin[@]}"} java "${flags[@]}" ${extra[@]+"${extra[@]}"} -cp "$classpath" \
  io.pinshard.examples.s3.S3StreamBench "$data/jpeg" "$work" "$shards" "$pairs" "$epochs" "$workers" "$repeat" $endpoint
