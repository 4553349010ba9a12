#!/usr/bin/env bash
# Fetches Fashion-MNIST (Debian's dataset-fashion-mnist: 60,000 train + 10,000 test 28x28 grey product photos,
# 10 classes, gzip IDX files) into a cache folder, never into git, and converts each split to a pinshard dataset.
# Usage: scripts/fetch-fashion-mnist.sh [--png-only] [DEST]
#        (default DEST: ${PINSHARD_FASHION_MNIST:-${XDG_CACHE_HOME:-$HOME/.cache}/pinshard/fashion-mnist})
# Result: DEST/png/{train,test}/<k>-<class>/<n>.png (ImageFolder trees, also read by the PyTorch baseline) and
# DEST/{train,test}: pinshard datasets (shorter side 28, codec raw, labels from the folders). Prints DEST.
# --png-only stops after the PNG trees (the torch module's tests convert in-process, without ./pinshard).
# Quick once done (DEST/png/.complete, DEST/.complete). Exits 3 when the package cannot be downloaded.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
png_only=false
if [[ "${1:-}" == "--png-only" ]]; then png_only=true; shift; fi
dest="${1:-${PINSHARD_FASHION_MNIST:-${XDG_CACHE_HOME:-$HOME/.cache}/pinshard/fashion-mnist}}"
if [[ -f "$dest/.complete" ]]; then echo "$dest"; exit 0; fi
if [[ ! -f "$dest/png/.complete" ]]; then
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  (cd "$work" && apt-get download dataset-fashion-mnist >/dev/null 2>&1) || {
    echo "fetch-fashion-mnist: apt-get download dataset-fashion-mnist failed (no Debian mirror reachable?)" >&2; exit 3; }
  dpkg -x "$work"/dataset-fashion-mnist_*.deb "$work/x"
  idx="$work/x/usr/share/datasets/fashion-mnist"
  rm -rf "$dest/png"
  mkdir -p "$dest/png"
  for split in train t10k; do
    name="$split"; [[ "$split" == t10k ]] && name=test
    /usr/bin/python3 "$root/scripts/fashion_mnist_png.py" "$idx/$split-images-idx3-ubyte.gz" \
      "$idx/$split-labels-idx1-ubyte.gz" "$dest/png/$name" >&2
  done
  touch "$dest/png/.complete"
fi
if $png_only; then echo "$dest"; exit 0; fi
for name in train test; do
  # Resumable and idempotent: a finished dataset of the same conversion is left as it is.
  "$root/pinshard" convert "$dest/png/$name" -o "$dest/$name" --shorter-side 28 --codec raw --labels auto \
    --strict --progress none >&2
done
# Both splits must number the classes alike (the folders sort the same way; a missing class would shift them).
classes() { grep -o '"classes" : \[[^]]*\]' "$1/manifest.json"; }
if [[ "$(classes "$dest/train")" != "$(classes "$dest/test")" ]]; then
  echo "fetch-fashion-mnist: train and test have different class lists" >&2; exit 1
fi
touch "$dest/.complete"
echo "$dest"
