#!/usr/bin/env bash
# Benchmark (not a test) of issue 27: Dataset.open, Loader.open, time to the first batch, RSS and heap after open,
# against records and shards. Synthetic 8x8x3 raw records written by the real writer (ScaleBench write: 192 payload
# bytes, ~240 bytes per record on disk with index entry, key and alignment); each measurement is a fresh JVM
# (ScaleBench measure: a cold and a warm line from one JVM), run twice, the second process (page cache warm) reported.
# The warm line also has each order's epoch plan figures: memory, prepare per epoch, look-up per position, CPU per
# epoch over all ranks. Every reported line is appended to RESULTS, and the chart of all of RESULTS's warm lines (each
# cost against records and against shards, log axes: ScaleChart) is written to CHART at the end.
# Usage: scripts/bench-scale.sh [SIZES]   SIZES: space-separated RECORDS:SHARDS pairs
#   (default "1000000:1000 1000000:10000 1000000:100000 10000000:1000 10000000:10000")
# Env: BENCH_DIR (scratch, default /tmp/scale/sizes; each dataset is deleted after it is measured unless KEEP=1),
#   ORDER (loader order, default quasi-random), RESULTS (default $BENCH_DIR/scale-results.txt, appended to),
#   CHART (default $BENCH_DIR/scale.png).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="${BENCH_DIR:-/tmp/scale/sizes}"
order="${ORDER:-quasi-random}"
results="${RESULTS:-$work/scale-results.txt}"
chart="${CHART:-$work/scale.png}"
sizes="${1:-1000000:1000 1000000:10000 1000000:100000 10000000:1000 10000000:10000}"
classpath="$("$root/scripts/module-classpath.sh" --tests loader)"
read -r -a flags <<< "$("$root/scripts/jvm-flags.sh" java)"
bench() { java "${flags[@]}" -cp "$classpath" io.pinshard.loader.ScaleBench "$@" 2> >(grep -v 'incubator modules' >&2); }
mkdir -p "$work"
echo "vm.max_map_count $(cat /proc/sys/vm/max_map_count 2>/dev/null || echo unknown)"
for size in $sizes; do
  records="${size%%:*}" shards="${size##*:}"
  dir="$work/r$records-s$shards"
  [[ -f "$dir/manifest.json" ]] || { rm -rf "$dir"; bench write "$dir" "$records" "$shards"; }
  echo "disk $(du -sh "$dir" | cut -f1) for $records records in $(find "$dir" -name '*.pinshard' | wc -l) shards" | tee -a "$results"
  bench measure "$dir" "$order" >/dev/null  # a first process warms the page cache
  bench measure "$dir" "$order" | tee -a "$results"
  [[ "${KEEP:-0}" == 1 ]] || rm -rf "$dir"
done
bench chart "$results" "$chart"
