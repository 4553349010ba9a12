#!/usr/bin/env bash
# Fetches real photographs (Debian's wallpaper packages) into a cache folder, never into git.
# Usage: scripts/fetch-photos.sh [DEST]   (default: ${PINSHARD_PHOTOS:-${XDG_CACHE_HOME:-$HOME/.cache}/pinshard/photos})
# Result: DEST/<theme>/<name>.{jpg,png}, an ImageFolder-style tree of full-size wallpapers
# (2560x1600 up to 5120x2880). Prints DEST. Exits 3 when the packages cannot be downloaded.
set -euo pipefail
dest="${1:-${PINSHARD_PHOTOS:-${XDG_CACHE_HOME:-$HOME/.cache}/pinshard/photos}}"
if [[ -f "$dest/.complete" ]]; then echo "$dest"; exit 0; fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$work" && apt-get download plasma-workspace-wallpapers desktop-base >/dev/null 2>&1) || {
  echo "fetch-photos: apt-get download failed (no Debian mirror reachable?)" >&2; exit 3; }
for deb in "$work"/*.deb; do dpkg -x "$deb" "$work/x"; done
mkdir -p "$dest"
# Plasma wallpapers: <Theme>/contents/images/<WxH>.{jpg,png}; keep the large photos, one folder per theme.
find "$work/x/usr/share/wallpapers" -path '*/contents/images*/*' -type f \( -iname '*.jpg' -o -iname '*.png' \) -size +200k |
while read -r f; do
  theme="$(echo "$f" | sed -E 's|.*/wallpapers/([^/]+)/.*|\1|')"
  mkdir -p "$dest/$theme"
  cp "$f" "$dest/$theme/$(basename "$(dirname "$f")")-$(basename "$f")"
done
# desktop-base login previews are photos/renders too.
mkdir -p "$dest/debian"
find "$work/x/usr/share/desktop-base" -type f -iname '*.jpg' -size +100k | while read -r f; do
  cp "$f" "$dest/debian/$(echo "$f" | sed -E 's|.*/desktop-base/([^/]+)/.*|\1|')-$(basename "$f")"
done
touch "$dest/.complete"
echo "$dest"
