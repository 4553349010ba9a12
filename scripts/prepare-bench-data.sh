#!/usr/bin/env bash
# Prepares (once) the cached photos at shorter side 320 as raw, lz4 and jpeg pinshard datasets plus the same
# JPEG files in an ImageFolder tree, and prints the folder that holds them (raw/, lz4/, jpeg/, jpeg-files/).
# Usage: scripts/prepare-bench-data.sh [COPIES]   (COPIES copies of each photo, default 24)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
copies="${1:-24}"
data="${PINSHARD_BENCH_DATA:-$HOME/.cache/pinshard/bench-320-x$copies}"
photos="$("$root/scripts/fetch-photos.sh")"
cd "$root"
./pinshard --version >/dev/null  # builds cli/target/pinshard.jar when stale
if [[ ! -f "$data/.complete" ]]; then
  echo "preparing $data (shorter side 320, INTER_AREA, $copies copies of each photo) ..." >&2
  rm -rf "$data"
  mvn -q -B -o -pl reader -am test-compile >&2
  jvm_flags="$("$root/scripts/jvm-flags.sh" java)"  # fails the script when the pom lacks them
  read -r -a flags <<< "$jvm_flags"
  java "${flags[@]}" -cp cli/target/pinshard.jar:reader/target/test-classes io.pinshard.reader.loader.PreparePhotos \
    "$photos" "$data" 320 "$copies" >&2
  touch "$data/.complete"
fi
echo "$data"
