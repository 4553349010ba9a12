#!/usr/bin/env bash
# What checking every payload's CRC32C costs the loader, per codec, in one run: `pinshard bench` with
# --crc never and --crc always, alternated ROUNDS times on the same datasets, median of each.
# Usage: scripts/bench-crc.sh [--seconds S] [--workers N] [--rounds R] [--copies C] [--codecs "raw lz4 jpeg"]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds=6 workers=2 rounds=3 copies=24 codecs="raw lz4 jpeg"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --workers) workers="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --copies) copies="$2"; shift 2 ;;
    --codecs) codecs="$2"; shift 2 ;;
    *) echo "usage: $0 [--seconds S] [--workers N] [--rounds R] [--copies C] [--codecs \"raw lz4 jpeg\"]" >&2; exit 2 ;;
  esac
done
data="$("$root/scripts/prepare-bench-data.sh" "$copies")"
cd "$root"
results="$(mktemp)"
for round in $(seq "$rounds"); do
  for codec in $codecs; do
    for crc in never always; do
      echo "round $round: $codec, --crc $crc ..." >&2
      ./pinshard bench "$data/$codec" --batch 256 --crop 224 --workers "$workers" --seconds "$seconds" \
        --crc "$crc" --json 2>/dev/null | sed "s/^{/{\"codec\":\"$codec\",\"crc\":\"$crc\",/" >> "$results"
    done
  done
done
/usr/bin/python3 - "$results" <<'PY'
import json, statistics, sys
rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
print("| codec | images/s, CRC never (median) | images/s, CRC always (median) | cost (medians) | cost per round |"
      " default (--crc auto) |")
print("|---|---:|---:|---:|---|---|")
for codec in dict.fromkeys(r["codec"] for r in rows):
    runs = {crc: [r["images_per_s"] for r in rows if r["codec"] == codec and r["crc"] == crc]
            for crc in ("never", "always")}
    rate = {crc: statistics.median(values) for crc, values in runs.items()}
    cost = 100 * (1 - rate["always"] / rate["never"])
    rounds = ", ".join(f"{100 * (1 - a / n):.1f}" for n, a in zip(runs["never"], runs["always"]))
    print(f'| {codec} | {rate["never"]:.0f} | {rate["always"]:.0f} | {cost:.1f} % | {rounds} % '
          f'| {"not checked" if codec == "raw" else "checked"} |')
PY
rm -f "$results"
