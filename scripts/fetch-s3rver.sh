#!/usr/bin/env bash
# Installs the S3 server the tests run against besides s3proxy: node's s3rver 3.7.1 (it stores aws-chunked
# request bodies verbatim, the store issue 23 found push corrupting), with npm, into a cache folder, never into git.
# Usage: scripts/fetch-s3rver.sh [DEST]   (default DEST: ${PINSHARD_S3RVER_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pinshard/s3rver})
# Prints the path of bin/s3rver.js. Quick once done. Exits 3 when node or npm is missing or the install fails.
set -euo pipefail
version=3.7.1
dest="${1:-${PINSHARD_S3RVER_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pinshard/s3rver}}"
script="$dest/node_modules/s3rver/bin/s3rver.js"
installed() { [[ -f "$script" ]] && grep -q "\"version\": \"$version\"" "$dest/node_modules/s3rver/package.json"; }
if ! installed; then
  command -v node >/dev/null && command -v npm >/dev/null || {
    echo "fetch-s3rver: node and npm are needed (Debian: apt-get install nodejs npm)" >&2; exit 3; }
  mkdir -p "$dest"
  npm install --prefix "$dest" --no-audit --no-fund --loglevel=error "s3rver@$version" >&2 || {
    echo "fetch-s3rver: npm install s3rver@$version failed (no npm registry reachable?)" >&2; exit 3; }
  installed || { echo "fetch-s3rver: $script is not s3rver $version after the install" >&2; exit 3; }
fi
echo "$script"
