#!/usr/bin/env bash
# Benchmark (not a test): pinshard convert of N tiny 16x16 PNGs with --shard-size 1KiB, so every record is its own
# shard (issue 27: the journal, manifest and merge must cost O(1) per shard published). Each shard file's mtime is
# the moment it was published, so the shard rates at the start and at the end of the run come from the finished
# dataset itself, with nothing sampling the directory while it runs.
# Usage: scripts/bench-many-shards.sh [N] [JAR]   (N default 10000; JAR default this checkout's cli/target/pinshard.jar,
#   built first; give another build's jar to compare, e.g. main's)
# Env: BENCH_DIR (scratch, default /tmp/scale/many-shards), WINDOW (shards per rate window, default N/10).
# Prints: jar, shards, wall seconds, shards/s over the first and the last WINDOW shards, journal-free end state.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
n="${1:-10000}"
jar="${2:-}"
work="${BENCH_DIR:-/tmp/scale/many-shards}"
window="${WINDOW:-$((n / 10))}"
if [[ -z "$jar" ]]; then
  "$root/pinshard" --version >/dev/null  # builds the jar when it is stale
  jar="$root/cli/target/pinshard.jar"
fi
input="$work/in-$n"
if [[ ! -f "$input/.complete" ]]; then
  rm -rf "$input" && mkdir -p "$input"
  (cd / && /usr/bin/python3 "$root/scripts/tiny_pngs.py" "$input" "$n")
  touch "$input/.complete"
fi
out="$work/out-$n"
rm -rf "$out"
read -r -a flags <<< "$("$root/scripts/jvm-flags.sh" java --command convert)"
start="$(date +%s.%N)"
java "${flags[@]}" -jar "$jar" convert "$input" -o "$out" --codec raw --shorter-side 16 --shard-size 1KiB \
  --progress none >/dev/null 2>"$work/stderr.txt" || { echo "bench-many-shards: convert failed:" >&2; cat "$work/stderr.txt" >&2; exit 1; }
end="$(date +%s.%N)"
shards="$(find "$out" -maxdepth 1 -name '*.pinshard' | wc -l)"
[[ "$shards" -eq "$n" ]] || { echo "bench-many-shards: expected $n shards (one record each), found $shards" >&2; exit 1; }
[[ ! -e "$out/convert-journal.json" ]] || { echo "bench-many-shards: the journal outlived the finished run" >&2; exit 1; }
find "$out" -maxdepth 1 -name '*.pinshard' -printf '%T@\n' | sort -n | awk -v w="$window" -v n="$n" \
  -v wall="$(awk -v a="$start" -v b="$end" 'BEGIN {print b - a}')" -v jar="$jar" '
  { t[NR] = $1 }
  END {
    first = (w - 1) / (t[w] - t[1]); last = (w - 1) / (t[n] - t[n - w + 1])
    printf "jar %s\nshards %d, wall %.1f s, publishing %.1f s\n", jar, n, wall, t[n] - t[1]
    printf "shards/s: first %d shards %.0f, last %d shards %.0f (last/first %.2f)\n", w, first, w, last, last / first
  }'
echo "manifest.json: $(stat -c %s "$out/manifest.json") bytes"
