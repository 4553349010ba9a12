#!/usr/bin/env bash
# Benchmark (not a test) of issue 27: convert N one-record shards (16x16 PNGs, --shard-size 1KiB) as 100 parts
# (--part i/100, two at a time), merge them, and time the merge, the merged manifest (size, parse and open through
# inspect) and verify. Usage: scripts/bench-merge-parts.sh [N]   (default 100000). Env: BENCH_DIR (default /tmp/scale/merge100).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="${BENCH_DIR:-/tmp/scale/merge100}"
n="${1:-100000}"
mkdir -p "$work"
input="$work/in-$n"
if [[ ! -f "$input/.complete" ]]; then
  rm -rf "$input" && mkdir -p "$input"
  (cd / && /usr/bin/python3 "$root/scripts/tiny_pngs.py" "$input" "$n")
  touch "$input/.complete"
fi
echo "inputs ready $(date -u +%T)"
rm -rf "$work/parts" "$work/merged" && mkdir -p "$work/parts"
start=$(date +%s.%N)
for i in $(seq 0 99); do echo $i; done | xargs -P 2 -I{} "$root/pinshard" convert "$input" -o "$work/parts/p{}" --part {}/100 \
  --codec raw --shorter-side 16 --shard-size 1KiB --progress none > /dev/null
end=$(date +%s.%N)
echo "100 parts of $n records converted in $(awk -v a=$start -v b=$end 'BEGIN{printf "%.1f", b-a}') s, $(find "$work/parts" -name '*.pinshard' | wc -l) shards"
/usr/bin/time -f "merge: %e s wall, %U s user, %M KB max RSS" "$root/pinshard" merge -o "$work/merged" "$work"/parts/p* | tail -2
echo "merged manifest: $(stat -c %s "$work/merged/manifest.json") bytes, $(find "$work/merged" -name '*.pinshard' | wc -l) shards"
/usr/bin/time -f "inspect (manifest parse + open of every shard): %e s wall, %M KB max RSS" "$root/pinshard" inspect "$work/merged" | head -5
/usr/bin/time -f "verify: %e s wall" "$root/pinshard" verify "$work/merged" 2>&1 | tail -2
