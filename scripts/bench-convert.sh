#!/usr/bin/env bash
# Benchmark (not a test): pinshard convert --codec jpeg with 1 and 2 workers against Pillow in one process
# (scripts/pillow_convert.py: draft + LANCZOS + JPEG q90, the same reducing gap), on two sets of real photos:
# the project's (scripts/fetch-photos.sh, which the tests use) and one no test sees (scripts/fetch-unseen-photos.sh).
# The three jobs alternate ROUNDS times per set; the table gives each job's median CPU seconds (user+sys, the
# evidence on a shared machine) and median and best wall seconds, the ratios against Pillow and the two goals of
# issue 13: 2 workers >= 1.5x Pillow in wall time, and per core (1 worker's CPU) at least Pillow's speed.
# Usage: scripts/bench-convert.sh [REPEAT] [ROUNDS]   (REPEAT symlinked copies of each photo, default 2; ROUNDS default 3)
# Env: BENCH_DIR (scratch, default /tmp/pinshard-bench), GAP (reducing gap, default 2), SETS ("project unseen").
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
repeat="${1:-2}"
rounds="${2:-3}"
gap="${GAP:-2}"
work="${BENCH_DIR:-/tmp/pinshard-bench}"
rm -rf "$work" && mkdir -p "$work"
"$root/pinshard" --version >/dev/null  # build the jar outside the timings

# link_set NAME PHOTOS: REPEAT copies of every photo as symlinks (the page cache holds one: this measures CPU, not disk).
link_set() {
  local name="$1" photos="$2"
  mkdir -p "$work/$name"
  find "$photos" -type f \( -iname '*.jpg' -o -iname '*.jpeg' -o -iname '*.png' \) | sort | while read -r f; do
    local class
    class="$(basename "$(dirname "$f")")"
    mkdir -p "$work/$name/$class"
    for i in $(seq 1 "$repeat"); do ln -s "$f" "$work/$name/$class/copy$i-$(basename "$f")"; done
  done
  cat "$photos"/*/* >/dev/null  # warm the page cache
}
sets=()
for set in ${SETS:-project unseen}; do
  case "$set" in
    project) photos="$("$root/scripts/fetch-photos.sh")";;
    unseen) photos="$("$root/scripts/fetch-unseen-photos.sh")";;
    *) echo "bench-convert: unknown set $set (project, unseen)" >&2; exit 2;;
  esac
  link_set "$set" "$photos"
  sets+=("$set")
  echo "$set: $(find "$work/$set" -type l | wc -l) images ($repeat x the photos of $photos: $(find "$photos" -type f -iname '*.jp*g' | wc -l) JPEG, $(find "$photos" -type f -iname '*.png' | wc -l) PNG), $(find -L "$work/$set" -type f -printf '%s\n' | awk '{s+=$1} END {printf "%.1f", s/1e6}') MB"
done
# One convert first, so that the launcher's class-data-sharing archive for this jar exists before the timings.
# It converts a JPEG and a PNG, so that the archive holds the classes of both paths.
mkdir -p "$work/warm/a"
for pattern in '*.jpg' '*.png'; do
  first="$(find "$work" -type l -iname "$pattern" | sort | sed -n 1p)"
  [[ -n "$first" ]] && ln -s "$(readlink "$first")" "$work/warm/a/"
done
"$root/pinshard" convert "$work/warm" -o "$work/warm-out" --progress none >/dev/null

results="$work/results.txt"
: >"$results"
measure() { # set, job, command...
  local set="$1" job="$2"; shift 2
  local load
  load="$(cut -d' ' -f1 /proc/loadavg)"
  /usr/bin/time -f '%e %U %S' -o "$work/time.txt" "$@" >/dev/null 2>"$work/stderr.txt" || {
    echo "bench-convert: $job on $set failed:" >&2; cat "$work/stderr.txt" >&2; exit 1; }
  read -r wall user sys <"$work/time.txt"
  echo "$set $job $wall $(awk -v u="$user" -v s="$sys" 'BEGIN {print u + s}') $load" >>"$results"
}
for round in $(seq 1 "$rounds"); do
  for set in "${sets[@]}"; do
    # Rotate the order each round: no job always runs after the same one.
    jobs=(pillow w1 w2)
    for k in $(seq 0 $(( (round - 1) % 3 ))); do [[ $k -gt 0 ]] && jobs=("${jobs[@]:1}" "${jobs[0]}"); done
    for job in "${jobs[@]}"; do
      case "$job" in
        pillow) measure "$set" pillow /usr/bin/python3 "$root/scripts/pillow_convert.py" "$work/$set" "$work/pillow-$set.bin" \
                  --reducing-gap "$gap";;
        w*) out="$work/out-$set-$job"; rm -rf "$out"
            measure "$set" "$job" "$root/pinshard" convert "$work/$set" -o "$out" --workers "${job#w}" --codec jpeg \
              --reducing-gap "$gap" --progress none;;
      esac
    done
  done
done

median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
column() { awk -v s="$1" -v j="$2" -v c="$3" '$1==s && $2==j {print $c}' "$results"; }
echo
echo "$(nproc) cores, $(java -version 2>&1 | sed -n 1p), Pillow $(/usr/bin/python3 -c 'import PIL; print(PIL.__version__)'),"\
  "shorter side 320, JPEG q90, reducing gap $gap, $rounds rounds per job (order rotated), load average at the runs' starts"\
  "$(awk '{print $5}' "$results" | sort -g | sed -n 1p)-$(awk '{print $5}' "$results" | sort -g | tail -1)."
echo
echo "| set | job | images | median CPU s | median wall s | best wall s | images/s (median wall) | Pillow CPU / job CPU | Pillow wall / job wall |"
echo "|---|---|---|---|---|---|---|---|---|"
for set in "${sets[@]}"; do
  count="$(find "$work/$set" -type l | wc -l)"
  pillow_cpu="$(column "$set" pillow 4 | median)"
  pillow_wall="$(column "$set" pillow 3 | median)"
  for job in pillow w1 w2; do
    cpu="$(column "$set" "$job" 4 | median)"
    wall="$(column "$set" "$job" 3 | median)"
    best="$(column "$set" "$job" 3 | sort -g | sed -n 1p)"
    case "$job" in
      pillow) label="Pillow, one process";;
      *) label="pinshard convert --codec jpeg --workers ${job#w}";;
    esac
    awk -v s="$set" -v l="$label" -v n="$count" -v c="$cpu" -v w="$wall" -v b="$best" -v pc="$pillow_cpu" -v pw="$pillow_wall" \
      'BEGIN {printf "| %s | %s | %d | %.2f | %.2f | %.2f | %.1f | %.2fx | %.2fx |\n", s, l, n, c, w, b, n / w, pc / c, pw / w}'
  done
done
echo
for set in "${sets[@]}"; do
  w1_cpu="$(column "$set" w1 4 | median)"
  w2_wall="$(column "$set" w2 3 | median)"
  pillow_cpu="$(column "$set" pillow 4 | median)"
  pillow_wall="$(column "$set" pillow 3 | median)"
  awk -v s="$set" -v a="$pillow_wall" -v b="$w2_wall" -v c="$pillow_cpu" -v d="$w1_cpu" 'BEGIN {
    printf "%s: 2 workers %.2fx Pillow in wall time (goal 1.5x: %s); per core (1 worker CPU) %.2fx Pillow (goal 1.0x: %s)\n",
      s, a / b, (a / b >= 1.5 ? "met" : "NOT met"), c / d, (c / d >= 1.0 ? "met" : "NOT met")}'
  if diff -r "$work/out-$set-w1" "$work/out-$set-w2" >/dev/null; then
    echo "$set: 1 and 2 workers wrote byte-identical datasets"
  else
    echo "$set: 1 and 2 workers DIFFER"
  fi
done
echo "Wall and CPU are whole processes (JVM or interpreter start included); wall time needs a quiet machine"\
  "(load average under ~1.5 on 2 cores) to show the second worker. Command: scripts/bench-convert.sh $repeat $rounds"
