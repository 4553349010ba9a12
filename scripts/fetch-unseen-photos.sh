#!/usr/bin/env bash
# Fetches a second set of real photographs that no test uses (Debian's ukui-wallpapers and mate-backgrounds,
# not fetch-photos.sh's packages) into a cache folder, never into git: scripts/bench-convert.sh's check that
# conversion speed is not tuned to the project's own photo set (PINSHARD_PHOTOS=$(scripts/fetch-unseen-photos.sh)).
# Usage: scripts/fetch-unseen-photos.sh [DEST]   (default: ${XDG_CACHE_HOME:-$HOME/.cache}/pinshard/unseen-photos)
# Result: DEST/<package>/<name>.jpg (JPEG files over 200 kB only). Prints DEST. Exits 3 when the download fails.
set -euo pipefail
dest="${1:-${XDG_CACHE_HOME:-$HOME/.cache}/pinshard/unseen-photos}"
if [[ -f "$dest/.complete" ]]; then echo "$dest"; exit 0; fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
packages=(ukui-wallpapers mate-backgrounds)
(cd "$work" && apt-get download "${packages[@]}" >/dev/null 2>&1) || {
  echo "fetch-unseen-photos: apt-get download failed (no Debian mirror reachable?)" >&2; exit 3; }
for package in "${packages[@]}"; do
  dpkg -x "$work/$package"_*.deb "$work/$package"
  mkdir -p "$dest/$package"
  find "$work/$package" -type f \( -iname '*.jpg' -o -iname '*.jpeg' \) -size +200k | sort | while read -r f; do
    cp "$f" "$dest/$package/$(basename "$f" | tr ' ' '_')"
  done
done
touch "$dest/.complete"
echo "$dest"
