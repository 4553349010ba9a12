#!/usr/bin/env bash
# yuv420 against raw and jpeg on the same real photos, in one run (issue 41): `pinshard bench` on each codec's dataset,
# rounds alternated (each round starts one codec later), medians of images/s, whole-process CPU s per 1,000 images,
# heap bytes per batch, and each dataset's bytes on disk.
# Usage: scripts/bench-yuv420.sh [--seconds S] [--workers N] [--rounds R] [--copies C] [--memory-limit SIZE]
#   --memory-limit SIZE (e.g. 768M): run every bench inside a memory cgroup of that size (page cache included), so a
#   dataset larger than it does not fit: its shards are evicted from the page cache first (posix_fadvise DONTNEED),
#   then every epoch reads them from disk again. Needs systemd-run (cgroup v2) or a writable cgroup v1 memory folder
#   (a child of this shell's own); says so and stops when neither is there. Without it the page cache is hot (the
#   runs read every dataset once before measuring).
# The datasets are the photos at shorter side 320 (scripts/prepare-bench-data.sh, in a folder of their own:
# PINSHARD_BENCH_DATA, default ~/.cache/pinshard/bench-yuv420-xC).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds=8 workers=2 rounds=3 copies=24 memory_limit="" codecs="raw yuv420 jpeg"
while [[ $# -gt 0 ]]; do  # --name VALUE sets the variable of that name (dashes as underscores)
  name="${1#--}" && name="${name//-/_}"
  [[ $# -ge 2 && " seconds workers rounds copies memory_limit codecs " == *" $name "* ]] || {
    echo "usage: $0 [--seconds S] [--workers N] [--rounds R] [--copies C] [--memory-limit SIZE] [--codecs LIST]" >&2
    exit 2
  }
  printf -v "$name" '%s' "$2" && shift 2
done
limit="$memory_limit"
export PINSHARD_BENCH_DATA="${PINSHARD_BENCH_DATA:-${XDG_CACHE_HOME:-$HOME/.cache}/pinshard/bench-yuv420-x$copies}"
data="$("$root/scripts/prepare-bench-data.sh" "$copies")"
cd "$root"
./pinshard --version >/dev/null  # builds the jar now, not inside the first measured run

evict() {  # drops the dataset's shards from the page cache
  /usr/bin/python3 - "$1" <<'PY'
import os, sys
for name in os.listdir(sys.argv[1]):
    if name.endswith(".pinshard"):
        fd = os.open(os.path.join(sys.argv[1], name), os.O_RDONLY)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        os.close(fd)
PY
}

group=""  # the cgroup v1 folder this script made (removed at exit), when systemd-run cannot make a scope
limited() {  # runs "$@" in a memory cgroup of $limit bytes
  if [[ -z "$group" ]]; then
    systemd-run --quiet --scope -p MemoryMax="$limit" -p MemorySwapMax=0 "$@"
    return
  fi
  (echo "$BASHPID" > "$group/cgroup.procs" && exec "$@")
}

if [[ -n "$limit" ]] && ! { command -v systemd-run >/dev/null \
    && systemd-run --quiet --scope -p MemoryMax="$limit" true 2>/dev/null; }; then
  own="$(sed -n 's/^[0-9]*:memory:\(.*\)$/\1/p' /proc/self/cgroup)"
  if [[ -n "$own" ]] && mkdir "/sys/fs/cgroup/memory$own/pinshard-bench-$$" 2>/dev/null; then
    group="/sys/fs/cgroup/memory$own/pinshard-bench-$$"
    trap 'rmdir "$group" 2>/dev/null || true' EXIT
    echo "$limit" > "$group/memory.limit_in_bytes"
  else
    echo "bench-yuv420: no memory cgroup can be made here (no systemd-run scope, no writable cgroup v1 memory" \
      "folder): the dataset-larger-than-memory case cannot be measured on this machine" >&2
    exit 3
  fi
fi

results="$(mktemp)"
read -r -a order <<< "$codecs"
echo "load average before: $(cat /proc/loadavg)" >&2
for round in $(seq "$rounds"); do
  n=${#order[@]}
  for i in $(seq 0 $((n - 1))); do
    codec="${order[$(( (i + round - 1) % n ))]}"
    echo "round $round: $codec${limit:+ (memory limit $limit)} ..." >&2
    run=(./pinshard bench "$data/$codec" --batch 256 --crop 224 --workers "$workers" --seconds "$seconds" --json)
    if [[ -n "$limit" ]]; then
      evict "$data/$codec"
      limited "${run[@]}" 2>/dev/null | sed "s/^{/{\"codec\":\"$codec\",/" >> "$results"
    else
      "${run[@]}" 2>/dev/null | sed "s/^{/{\"codec\":\"$codec\",/" >> "$results"
    fi
  done
done
echo "load average after: $(cat /proc/loadavg)" >&2
/usr/bin/python3 - "$results" "$data" "${limit:-none}" <<'PY'
import json, os, statistics, sys
rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
data, limit = sys.argv[2], sys.argv[3]
def disk(codec):
    folder = os.path.join(data, codec)
    return sum(os.path.getsize(os.path.join(folder, n)) for n in os.listdir(folder) if n.endswith(".pinshard"))
codecs = list(dict.fromkeys(r["codec"] for r in rows))
raw = {}
print(f"memory limit: {limit}; {rows[0]['records']} records; medians of {len([r for r in rows if r['codec'] == codecs[0]])} alternated rounds")
print("| codec | images/s (median) | per round | vs raw | CPU s / 1,000 images | heap B/batch | disk | vs raw |")
print("|---|---:|---|---:|---:|---:|---:|---:|")
for codec in ["raw"] + [c for c in codecs if c != "raw"]:
    mine = [r for r in rows if r["codec"] == codec]
    if not mine:
        continue
    rate = statistics.median(r["images_per_s"] for r in mine)
    cpu = statistics.median(r["cpu_s_per_1000_images"] for r in mine)
    heap = max(r["heap_bytes_per_batch"] for r in mine)
    size = disk(codec)
    raw.setdefault("rate", rate)
    raw.setdefault("size", size)
    rounds = ", ".join("%.0f" % r["images_per_s"] for r in mine)
    print(f"| {codec} | {rate:,.0f} | {rounds} | {rate / raw['rate']:.2f}x "
          f"| {cpu:.3f} | {heap:.1f} | {size / 1e6:,.0f} MB | {size / raw['size']:.2f}x |")
PY
rm -f "$results"
