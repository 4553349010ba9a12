#!/usr/bin/env bash
# Benchmark (not a test) of what record fields cost the loader, two ways, each alternated in one run:
#  1. the image path on a dataset WITHOUT fields: this checkout's ./pinshard against an older checkout's launcher
#     (OLD=DIR, a checkout from before fields existed) on the same dataset: goal < 5 % slower;
#  2. the field path on a dataset WITH fields: `bench --fields FIELDS` against the same bench without --fields.
# Prints images/s and heap bytes per batch of every run, and the ratios of the medians.
# Usage: OLD=/path/to/old/checkout scripts/bench-fields.sh PLAIN_DATASET [FIELDS_DATASET FIELDS] [ROUNDS] [SECONDS]
#   e.g. OLD=/tmp/b30 scripts/bench-fields.sh ~/.cache/pinshard/bench-320-x8-rst2/raw \
#        ~/.cache/pinshard/fashion-mnist-captions/train caption 3 8
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
plain="${1:?a dataset without fields}"
with_fields="${2:-}"
fields="${3:-}"
rounds="${4:-3}"
seconds="${5:-8}"
old="${OLD:?OLD=DIR: a checkout from before fields (its ./pinshard is the baseline)}"
common=(--workers 2 --seconds "$seconds" --json)
run() { # label, launcher, args...
  local label="$1" launcher="$2"; shift 2
  local json
  json="$("$launcher" bench "$@" "${common[@]}" 2>/dev/null | tail -1)"
  python3 -c 'import json,sys; j=json.loads(sys.argv[2]); print("%s %.0f %.1f" % (sys.argv[1], j["images_per_s"], j["heap_bytes_per_batch"]))' \
    "$label" "$json"
}
"$root/pinshard" --version >/dev/null
"$old/pinshard" --version >/dev/null
results="$(mktemp)"
for round in $(seq 1 "$rounds"); do
  run old-plain "$old/pinshard" "$plain" | tee -a "$results"
  run new-plain "$root/pinshard" "$plain" | tee -a "$results"
  if [[ -n "$with_fields" ]]; then
    run new-no-fields "$root/pinshard" "$with_fields" --crop 28 --batch 256 | tee -a "$results"
    run new-with-fields "$root/pinshard" "$with_fields" --crop 28 --batch 256 --fields "$fields" | tee -a "$results"
  fi
  echo "round $round done, load $(cut -d' ' -f1 /proc/loadavg)"
done
python3 - "$results" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    label, rate, heap = line.split()
    runs.setdefault(label, []).append((float(rate), float(heap)))
med = {k: statistics.median(r for r, _ in v) for k, v in runs.items()}
print("| run | images/s (median) | heap B/batch (max) | runs |")
print("|---|---|---|---|")
for k, v in runs.items():
    print("| %s | %.0f | %.1f | %s |" % (k, med[k], max(h for _, h in v), ", ".join("%.0f" % r for r, _ in v)))
print("image path, new / old: %.3f" % (med["new-plain"] / med["old-plain"]))
if "new-with-fields" in med:
    print("field path, with / without --fields: %.3f" % (med["new-with-fields"] / med["new-no-fields"]))
PY
rm -f "$results"
