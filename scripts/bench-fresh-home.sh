#!/usr/bin/env bash
# A PyTorch user's first hour, timed: from `git clone` to the first training batch, as the README's PyTorch part
# says, in an empty home (no ~/.m2, no pinshard caches, no venv). Stages: clone; scripts/build-wheel.sh (its first
# `./pinshard` build downloads every Maven dependency into the empty home); a venv and `pip install` of the wheel;
# the photographs (scripts/fetch-photos.sh, from Debian's mirror); `pinshard convert` of them with the wheel's own
# CLI; the README's loop until its first batch. Prints one line per stage and the total. Needs what the README's
# install line installs, network to Maven Central and a Debian mirror, and a few GB in TMPDIR.
# Usage: scripts/bench-fresh-home.sh [REPOSITORY]   (default: this checkout; a URL works too)
set -euo pipefail
source="${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
home="$(mktemp -d "${TMPDIR:-/tmp}/pinshard-fresh-home.XXXXXX")"
trap 'chmod -R u+w "$home" 2>/dev/null; rm -rf "$home"' EXIT
export HOME="$home" XDG_CACHE_HOME="$home/.cache"
unset PINSHARD_COMMAND PINSHARD_JAVA_OPTS PINSHARD_PHOTOS MAVEN_OPTS
# Maven's local repository follows the JVM's user.home (the passwd entry), not $HOME: point it into the empty home.
export MAVEN_OPTS="-Dmaven.repo.local=$home/.m2/repository"

start=$(date +%s.%N)
last=$start
stage() {
  local now
  now=$(date +%s.%N)
  printf '%-52s %8.1f s\n' "$1" "$(echo "$now - $last" | bc)"
  last=$now
}

git clone -q "$source" "$home/pinshard"
cd "$home/pinshard"
stage "git clone"
scripts/build-wheel.sh >"$home/build-wheel.log" 2>&1 || { tail -n 30 "$home/build-wheel.log" >&2; exit 1; }
wheel="$(ls dist/pinshard-*.whl)"
stage "scripts/build-wheel.sh (Maven downloads included)"
/usr/bin/python3 -m venv --system-site-packages "$home/venv"
"$home/venv/bin/pip" install -q "$wheel"
stage "venv + pip install the wheel"
photos="$(scripts/fetch-photos.sh)"
stage "scripts/fetch-photos.sh"
(cd "$home" && "$home/venv/bin/pinshard" convert "$photos" -o "$home/pets" --progress none >/dev/null)
stage "pinshard convert (the wheel's CLI)"
"$home/venv/bin/python" - "$home/pets" <<'PY'
import sys, time
import torch
from pinshard.torch import PinshardDataset

ds = PinshardDataset(sys.argv[1], batch_size=8, crop=224, workers=2, seed=42, device="cpu",
                     mean=(0.485, 0.456, 0.406), std=(0.229, 0.224, 0.225),
                     jitter={"brightness": 0.4, "contrast": 0.4, "saturation": 0.4, "hue": 0.1}, grayscale=0.1)
started = time.monotonic()
images, labels = next(iter(ds))
print("first batch %s %s after %.2f s in the loop" % (tuple(images.shape), images.dtype, time.monotonic() - started),
      file=sys.stderr)
ds.close()
PY
stage "the README's loop, to its first batch"
printf '%-52s %8.1f s\n' "total, clone to first batch" "$(echo "$last - $start" | bc)"
printf 'wheel: %s, %s bytes\n' "$(basename "$wheel")" "$(stat -c %s "$wheel")"
