#!/usr/bin/env bash
# Benchmark (not a test): pinshard convert on real photographs with 1 and 2 workers against Pillow in
# one process, in the same run, interleaved ROUNDS times; the table shows the best (least disturbed)
# round of each job and its CPU time, because a shared machine's load makes single runs noisy.
# Usage: scripts/bench-convert.sh [REPEAT] [ROUNDS]   (REPEAT copies of the cached photos, default 2; ROUNDS default 3)
# Env: PINSHARD_PHOTOS (photo cache), BENCH_DIR (scratch, default /tmp/pinshard-bench), GAP (reducing gap, default 2).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
repeat="${1:-2}"
rounds="${2:-3}"
gap="${GAP:-2}"
photos="$("$root/scripts/fetch-photos.sh")"
work="${BENCH_DIR:-/tmp/pinshard-bench}"
rm -rf "$work" && mkdir -p "$work/in"
# REPEAT copies of every photo as symlinks (the page cache holds one copy: this measures CPU, not disk).
find "$photos" -type f \( -iname '*.jpg' -o -iname '*.png' \) | sort | while read -r f; do
  class="$(basename "$(dirname "$f")")"
  mkdir -p "$work/in/$class"
  for i in $(seq 1 "$repeat"); do ln -s "$f" "$work/in/$class/copy$i-$(basename "$f")"; done
done
count="$(find "$work/in" -type l | wc -l)"
mb_in="$(find -L "$work/in" -type f -printf '%s\n' | awk '{s+=$1} END {printf "%.1f", s/1e6}')"
"$root/pinshard" --version >/dev/null  # build the jar outside the timings
cat "$photos"/*/* >/dev/null            # warm the page cache
results="$work/results.txt"
: >"$results"
TIMEFORMAT='%R %U %S'
measure() { # name, command...
  local name="$1"; shift
  local t
  t="$( { time "$@" >/dev/null 2>&1; } 2>&1 )"
  echo "$name $t" >>"$results"
}
for round in $(seq 1 "$rounds"); do
  measure pillow /usr/bin/python3 "$root/scripts/pillow_convert.py" "$work/in" "$work/pillow.bin" --reducing-gap "$gap"
  for codec in jpeg auto; do
    for workers in 1 2; do
      out="$work/out-$codec-$workers"
      rm -rf "$out"
      measure "pinshard-$codec-w$workers" "$root/pinshard" convert "$work/in" -o "$out" --workers "$workers" \
        --codec "$codec" --reducing-gap "$gap" --progress none
    done
  done
  # The same --codec jpeg job with libjpeg-turbo's M/8 decode turned off: OpenCV's 1/2-1/4-1/8 (the before).
  rm -rf "$work/out-jpeg-opencv-2"
  PINSHARD_JAVA_OPTS="${PINSHARD_JAVA_OPTS:-} -Dpinshard.jpeg.decoder=opencv" measure pinshard-jpeg-opencv-w2 \
    "$root/pinshard" convert "$work/in" -o "$work/out-jpeg-opencv-2" --workers 2 --codec jpeg --reducing-gap "$gap" \
    --progress none
done
echo "inputs: $count images, $mb_in MB ($repeat x the $(find "$photos" -type f \( -iname '*.jpg' -o -iname '*.png' \) | wc -l) photos of $photos:"
echo "JPEG and PNG, 1080x1920 to 5120x2880), shorter side 320, reducing gap $gap, $(nproc) cores, $(java -version 2>&1 | head -1),"
echo "Pillow $(/usr/bin/python3 -c 'import PIL; print(PIL.__version__)'), load average at the end: $(cut -d' ' -f1-3 /proc/loadavg); best of $rounds interleaved rounds."
echo
echo "| job | workers | best wall s | images/s | median wall s | CPU s (user+sys) | images per CPU s | MB out | vs Pillow (best wall) |"
echo "|---|---|---|---|---|---|---|---|---|"
pillow_best="$(awk '$1=="pillow" {print $2}' "$results" | sort -g | head -1)"
for name in pillow pinshard-jpeg-w1 pinshard-jpeg-w2 pinshard-auto-w1 pinshard-auto-w2 pinshard-jpeg-opencv-w2; do
  best_line="$(awk -v n="$name" '$1==n' "$results" | sort -k2 -g | head -1)"
  median="$(awk -v n="$name" '$1==n {print $2}' "$results" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')"
  read -r _ real user sys <<<"$best_line"
  case "$name" in
    pillow) label="Pillow: draft + LANCZOS + JPEG q90, one process"; workers=1; size="$(stat -c %s "$work/pillow.bin")";;
    pinshard-jpeg-opencv-w2) label="pinshard convert --codec jpeg, -Dpinshard.jpeg.decoder=opencv"; workers=2
       size="$(du -sb "$work/out-jpeg-opencv-2" | cut -f1)";;
    *) codec="${name#pinshard-}"; codec="${codec%-w*}"; workers="${name##*-w}"
       label="pinshard convert --codec $codec"; size="$(du -sb "$work/out-$codec-$workers" | cut -f1)";;
  esac
  awk -v l="$label" -v w="$workers" -v r="$real" -v u="$user" -v s="$sys" -v m="$median" -v c="$count" -v b="$size" -v p="$pillow_best" \
    'BEGIN {printf "| %s | %s | %.1f | %.2f | %.1f | %.1f | %.2f | %.1f | %.2fx |\n", l, w, r, c/r, m, u+s, c/(u+s), b/1e6, p/r}'
done
echo
for codec in jpeg auto; do
  if diff -r "$work/out-$codec-1" "$work/out-$codec-2" >/dev/null; then
    echo "--codec $codec: 1 and 2 workers wrote byte-identical datasets"
  else
    echo "--codec $codec: 1 and 2 workers DIFFER"
  fi
done
echo "Wall time is the whole process (JVM or interpreter start included). Command: scripts/bench-convert.sh $repeat $rounds"
