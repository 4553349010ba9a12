#!/usr/bin/env bash
# pinshard's PinshardDataset (raw and jpeg shards) against WebDataset, MosaicML Streaming (MDS, jpeg and ndarray
# columns), LitData (optimize() output, jpeg and ndarray) and PyTorch's DataLoader over the JPEG files, side by side
# in one run: the same 320-px photos (scripts/prepare-bench-data.sh, COPIES copies of each), batch 256,
# RandomResizedCrop 224 + flip, float32 NCHW normalised tensors, 2 CPU workers each. R alternated rounds (each
# round starts with the next loader), medians: images/s, CPU s per 1,000 images (all processes), peak RSS and PSS
# of all processes, time to first batch, and each format's conversion time. Driver: scripts/bench_peers.py.
# Usage: scripts/bench-peers.sh [--rounds R] [--seconds S] [--copies C] [--loaders a,b,...] [--json FILE]
#
# The peers are not part of this repository. Their sources are extracted at run time from git mirrors into
# ~/.cache/pinshard/peers (PINSHARD_PEERS_MIRRORS, default /work/.mirror: webdataset+webdataset,
# mosaicml+streaming, Lightning-AI+litData, Lightning-AI+utilities). Where no mirror exists, install them instead:
#   pip install webdataset mosaicml-streaming litdata     (then this script uses the installed packages)
# Debian packages they need besides python3-torch/numpy/pil: python3-torchvision python3-braceexpand
# python3-filelock python3-tqdm python3-brotli python3-catalogue python3-boto3 python3-packaging python3-xxhash
# python3-zstd python3-psutil python3-snappy (checked below; Streaming's MDS reader imports snappy).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
rounds=3 seconds=10 copies=25 loaders="" json=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --rounds) rounds="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    --copies) copies="$2"; shift 2 ;;
    --loaders) loaders="$2"; shift 2 ;;
    --json) json="$2"; shift 2 ;;
    *) echo "usage: $0 [--rounds R] [--seconds S] [--copies C] [--loaders a,b,...] [--json FILE]" >&2; exit 2 ;;
  esac
done
missing=()
for module in torch torchvision numpy PIL braceexpand filelock tqdm brotli catalogue boto3 packaging xxhash zstd psutil \
    snappy; do
  (cd / && /usr/bin/python3 -c "import $module" 2>/dev/null) || missing+=("$module")
done
if [[ ${#missing[@]} -gt 0 ]]; then
  echo "bench-peers: /usr/bin/python3 lacks: ${missing[*]} (Debian: apt-get install python3-torch python3-torchvision python3-braceexpand python3-filelock python3-tqdm python3-brotli python3-catalogue python3-boto3 python3-packaging python3-xxhash python3-zstd python3-psutil python3-snappy)" >&2
  exit 3
fi
mirrors="${PINSHARD_PEERS_MIRRORS:-/work/.mirror}"
peers="${PINSHARD_PEERS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pinshard/peers}"
mkdir -p "$peers"
# name in the cache, mirror, folder inside the repository
for spec in "webdataset webdataset+webdataset src" "streaming mosaicml+streaming streaming" \
            "litdata Lightning-AI+litData src" "lightning-utilities Lightning-AI+utilities src"; do
  read -r name mirror folder <<< "$spec"
  git_dir="$mirrors/$mirror/repo"
  if [[ -d "$git_dir" ]]; then
    commit="$(git --git-dir="$git_dir" rev-parse HEAD)"
    if [[ "$(cat "$peers/$name/.commit" 2>/dev/null)" != "$commit" ]]; then
      rm -rf "$peers/$name" && mkdir -p "$peers/$name"
      git --git-dir="$git_dir" archive HEAD "$folder" | tar -x -C "$peers/$name"
      echo "$commit" > "$peers/$name/.commit"
    fi
    echo "bench-peers: $name from $mirror at ${commit:0:12}" >&2
  else
    echo "bench-peers: no mirror $git_dir: $name must be pip-installed (pip install webdataset mosaicml-streaming litdata)" >&2
  fi
done
data="$("$root/scripts/prepare-bench-data.sh" "$copies")"
"$root/pinshard" --version >/dev/null  # builds the jar when needed
work="$data/peers"
echo "bench-peers: the machine is shared: loads from other processes during the run show up as noise (load: $(cut -d' ' -f1-3 /proc/loadavg))" >&2
cd /  # the checkout's torch/ folder would shadow the torch package
args=(race --data "$data" --work "$work" --peers "$peers" --rounds "$rounds" --seconds "$seconds")
[[ -z "$loaders" ]] || args+=(--loaders "$loaders")
[[ -z "$json" ]] || args+=(--json "$json")
/usr/bin/python3 "$root/scripts/bench_peers.py" "${args[@]}"
echo "load after the run: $(cut -d' ' -f1-3 /proc/loadavg)"
