#!/usr/bin/env bash
# Loader throughput against PyTorch's DataLoader on the same real photos, in one run.
# Usage: scripts/bench-loader.sh [--seconds S] [--workers N] [--copies C] [--runs LIST]
#   --runs: comma-separated pinshard runs among raw,lz4,jpeg,jpeg:no-cut,jpeg:opencv-decode,raw:opencv (default:
#   those) and raw:avx2 (the vector kernel held to 256-bit vectors, -Dpinshard.vector.bits=256)
#   Prepares (once, scripts/prepare-bench-data.sh) the cached photos at shorter side 320 as raw, lz4 and jpeg
#   pinshard datasets plus the same JPEG files in an ImageFolder tree, then runs `pinshard bench` (batch 256, crop 224) on each codec
#   (and raw once more with --resampler opencv, the fallback; jpeg once more with -Dpinshard.jpeg.cut=false and
#   once with -Dpinshard.jpeg.decoder=opencv)
#   and torchvision RandomResizedCrop + RandomHorizontalFlip + PILToTensor through DataLoader, and prints a
#   markdown table. PyTorch runs first and last (its rate moved 15-20 % between runs on the 2-core VM): the ratios
#   are against the mean of the two, and both rows are printed. Needs /usr/bin/python3 with python3-torch and
#   python3-torchvision.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds=10 workers=2 copies=24 runs="raw,lz4,jpeg,jpeg:no-cut,jpeg:opencv-decode,raw:opencv"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --workers) workers="$2"; shift 2 ;;
    --copies) copies="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    *) echo "usage: $0 [--seconds S] [--workers N] [--copies C] [--runs LIST]" >&2; exit 2 ;;
  esac
done
data="$("$root/scripts/prepare-bench-data.sh" "$copies")"
cd "$root"
/usr/bin/python3 -c "import torch, torchvision" 2>/dev/null || { echo "bench-loader: /usr/bin/python3 lacks torch/torchvision (apt-get install python3-torch python3-torchvision)" >&2; exit 3; }
results="$(mktemp)"
pytorch() {  # one DataLoader run, labelled $1
  echo "pytorch ($1) ..." >&2
  /usr/bin/python3 scripts/bench_torch_loader.py "$data/jpeg-files" --batch 256 --crop 224 --workers "$workers" \
    --seconds "$seconds" | sed "s/\"loader\": *\"pytorch\"/\"loader\": \"pytorch-$1\"/" >> "$results"
}
pytorch first
# jpeg:opencv-decode is the jpeg shards with libjpeg-turbo's region/scaled decode turned off (OpenCV decodes);
# jpeg:no-cut keeps libjpeg-turbo's region decode but not the restart-interval cut (every interval decoded).
echo "load average before: $(cat /proc/loadavg)" >&2
for run in ${runs//,/ }; do
  codec="${run%%:*}" resampler="auto" label="pinshard-$codec" java_opts="${PINSHARD_JAVA_OPTS:-}"
  if [[ "$run" == *:opencv-decode ]]; then
    label="pinshard-$codec-opencv-decode" java_opts="$java_opts -Dpinshard.jpeg.decoder=opencv"
  elif [[ "$run" == *:avx2 ]]; then  # the vector kernel on 256-bit vectors where the CPU has 512-bit ones
    label="pinshard-$codec-avx2" java_opts="$java_opts -Dpinshard.vector.bits=256"
  elif [[ "$run" == *:no-cut ]]; then
    label="pinshard-$codec-no-cut" java_opts="$java_opts -Dpinshard.jpeg.cut=false"
  elif [[ "$run" == *:* ]]; then resampler="${run#*:}" label="pinshard-$codec-$resampler"; fi
  echo "pinshard bench $codec (resampler $resampler${java_opts:+, $java_opts}) ..." >&2
  PINSHARD_JAVA_OPTS="$java_opts" ./pinshard bench "$data/$codec" --batch 256 --crop 224 --workers "$workers" \
    --seconds "$seconds" --resampler "$resampler" --json 2>/dev/null | sed "s/^{/{\"loader\":\"$label\",/" >> "$results"
done
pytorch last
echo "load average after: $(cat /proc/loadavg)" >&2
/usr/bin/python3 - "$results" <<'PY'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
torch_rows = [r["images_per_s"] for r in rows if r["loader"].startswith("pytorch")]
base = sum(torch_rows) / len(torch_rows)
print(f"PyTorch DataLoader: {' and '.join(f'{v:.0f}' for v in torch_rows)} images/s (first, last); x PyTorch is "
      f"against their mean, {base:.0f}")
print("| loader | resampler | images/s | MB/s out | x PyTorch | heap B/batch | workers | batch | crop |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
for r in rows:
    heap = f'{r["heap_bytes_per_batch"]:.0f}' if "heap_bytes_per_batch" in r else "n/a"
    print(f'| {r["loader"]} | {r.get("resampler", "-")} | {r["images_per_s"]:.0f} | {r["mb_per_s"]:.0f} '
          f'| {r["images_per_s"] / base:.1f} | {heap} '
          f'| {r["workers"]} | {r["batch"]} | {r["crop"]} |')
PY
rm -f "$results"
