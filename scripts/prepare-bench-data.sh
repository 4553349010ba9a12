#!/usr/bin/env bash
# Prepares (once) the cached photos at shorter side 320 as raw, lz4, jpeg and yuv420 pinshard datasets plus the
# same JPEG files in an ImageFolder tree, and prints the folder that holds them (raw/, lz4/, jpeg/, yuv420/,
# jpeg-files/). A folder prepared before yuv420 existed has no yuv420/ (scripts/bench-yuv420.sh prepares its own).
# Usage: scripts/prepare-bench-data.sh [COPIES]   (COPIES copies of each photo, default 24)
# The JPEGs carry restart markers every PINSHARD_BENCH_RESTART_MCUS (default 2) MCUs at most, as convert
# writes them; PINSHARD_BENCH_RESTART_MCUS=0 makes them without (the set before restart markers).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
copies="${1:-24}"
restart="${PINSHARD_BENCH_RESTART_MCUS:-2}"
[[ "$restart" =~ ^[0-9]+$ ]] || { echo "PINSHARD_BENCH_RESTART_MCUS must be a number of MCUs" >&2; exit 2; }
suffix=""
[[ "$restart" == 0 ]] || suffix="-rst$restart"
data="${PINSHARD_BENCH_DATA:-${XDG_CACHE_HOME:-$HOME/.cache}/pinshard/bench-320-x$copies$suffix}"
photos="$("$root/scripts/fetch-photos.sh")"
cd "$root"
if [[ ! -f "$data/.complete" ]]; then
  echo "preparing $data (shorter side 320, INTER_AREA, $copies copies of each photo, restart markers every $restart MCUs at most) ..." >&2
  rm -rf "$data"
  # PreparePhotos (a loader test class) with the class path loader's build wrote (no Maven after `mvn verify`).
  classpath="$("$root/scripts/module-classpath.sh" --tests loader)"
  jvm_flags="$("$root/scripts/jvm-flags.sh" java)"  # fails the script when the pom lacks them
  read -r -a flags <<< "$jvm_flags"
  java "${flags[@]}" -cp "$classpath" io.pinshard.loader.PreparePhotos \
    "$photos" "$data" 320 "$copies" 90 "$restart" >&2
  touch "$data/.complete"
fi
echo "$data"
