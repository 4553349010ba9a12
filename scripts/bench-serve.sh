#!/usr/bin/env bash
# PyTorch fed by pinshard serve vs PyTorch's own DataLoader, and the bridge's cost, in one run.
# Usage: scripts/bench-serve.sh [--seconds S] [--rounds R] [--steps N] [--workers W] [--copies C] [--loader-only]
#   1. loader alone: `pinshard bench raw` vs the Python client over `pinshard serve raw` (take + release only),
#      same options (batch 256, crop 224, W workers), R alternated rounds: images/s, median ratio (goal >= 90 %).
#   2. a training loop (tiny CNN at crop 224, batch 256, N steps after 3 warm-up steps) fed by
#      (a) torch DataLoader, W worker processes, PIL decode + RandomResizedCrop + flip over the 320-px JPEG files
#      (b) the Python client over `pinshard serve` with W worker threads on the raw shards of the same photos;
#      then the same with a no-op step: images/s and data-wait % for each.
#   Datasets: scripts/prepare-bench-data.sh. Needs /usr/bin/python3 with python3-torch and python3-torchvision.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds=8 rounds=3 steps=40 workers=2 copies=24 train=1
while [[ $# -gt 0 ]]; do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --steps) steps="$2"; shift 2 ;;
    --workers) workers="$2"; shift 2 ;;
    --copies) copies="$2"; shift 2 ;;
    --loader-only) train=0; shift ;;
    *) echo "usage: $0 [--seconds S] [--rounds R] [--steps N] [--workers W] [--copies C] [--loader-only]" >&2; exit 2 ;;
  esac
done
data="$("$root/scripts/prepare-bench-data.sh" "$copies")"
cd "$root"
/usr/bin/python3 -c "import torch, torchvision" 2>/dev/null || { echo "bench-serve: /usr/bin/python3 lacks torch/torchvision (apt-get install python3-torch python3-torchvision)" >&2; exit 3; }
results="$(mktemp)"
trap 'rm -f "$results"' EXIT
export PINSHARD_COMMAND="[\"$root/pinshard\"]"
for ((r = 1; r <= rounds; r++)); do
  echo "round $r/$rounds: pinshard bench, then the Python client over pinshard serve ..." >&2
  ./pinshard bench "$data/raw" --batch 256 --crop 224 --workers "$workers" --seconds "$seconds" --json 2>/dev/null \
    | sed "s/^{/{\"row\":\"bench\",\"round\":$r,/" >> "$results"
  /usr/bin/python3 scripts/bench_serve.py loader "$data/raw" --workers "$workers" --seconds "$seconds" \
    | sed "s/^{/{\"row\":\"client\",\"round\":$r,/" >> "$results"
done
for mode in "" "--noop"; do
  [[ "$train" == 1 ]] || break
  echo "training loop${mode:+ ($mode)}: DataLoader, then pinshard serve ..." >&2
  /usr/bin/python3 scripts/bench_serve.py train pytorch "$data/jpeg-files" --workers "$workers" --steps "$steps" $mode \
    | sed 's/^{/{"row":"train",/' >> "$results"
  /usr/bin/python3 scripts/bench_serve.py train pinshard "$data/raw" --workers "$workers" --steps "$steps" $mode \
    | sed 's/^{/{"row":"train",/' >> "$results"
done
/usr/bin/python3 - "$results" <<'PY'
import json, statistics, sys
rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
bench = [r for r in rows if r["row"] == "bench"]
client = [r for r in rows if r["row"] == "client"]
print("| round | pinshard bench images/s | Python client over serve images/s | client / bench | bridge CPU / server CPU | bridge CPU, % of one core | tensors inside the ring |")
print("|---:|---:|---:|---:|---:|---:|---|")
ratios, bridge = [], []
for b, c in zip(bench, client):
    ratios.append(c["images_per_s"] / b["images_per_s"])
    bridge.append(c["bridge_cpu_pct_of_workers"])
    print(f'| {b["round"]} | {b["images_per_s"]:.0f} | {c["images_per_s"]:.0f} | {100 * ratios[-1]:.1f} % '
          f'| {bridge[-1]:.1f} % | {100 * (c["client_cpu_s"] + c["control_cpu_s"]) / c["seconds"]:.1f} % '
          f'| {c["zero_copy"]} |')
print(f"\nmedian client / bench: {100 * statistics.median(ratios):.1f} % (goal >= 90 %); median bridge CPU "
      f"(the Python client + the server's control thread) / the rest of the server's CPU: "
      f"{statistics.median(bridge):.1f} %\n")
print("| loop | fed by | steps | images/s | data-wait % | step ms (no wait) |")
print("|---|---|---:|---:|---:|---:|")
for r in rows:
    if r["row"] == "train":
        print(f'| {r["mode"]} | {r["loader"]} | {r["steps"]} | {r["images_per_s"]:.0f} | {r["data_wait_pct"]:.1f} '
              f'| {r["step_ms"]:.1f} |')
PY
