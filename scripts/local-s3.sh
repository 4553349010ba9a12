#!/usr/bin/env bash
# A local S3 store to try the object-storage and streaming docs with (README "Object storage", docs/s3.md): node's
# s3rver (installed by scripts/fetch-s3rver.sh into the cache folder) on 127.0.0.1, its objects in DIR, BUCKET made.
# Prints the lines that point pinshard (and the AWS SDKs and CLI) at it:
#   export AWS_ENDPOINT_URL=http://127.0.0.1:PORT AWS_REGION=us-east-1 AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=S3RVER
# In the foreground it then serves until Ctrl-C; with --background it returns at once, the server detached, and the
# last line says how to stop it, so `eval "$(scripts/local-s3.sh --background)"` sets up the current shell.
# Usage: scripts/local-s3.sh [--background] [--bucket NAME] [--dir DIR] [--port PORT]
#   defaults: bucket "bucket" (the docs' name), DIR ${XDG_CACHE_HOME:-$HOME/.cache}/pinshard/local-s3, a free port
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
background=false bucket=bucket port=0
dir="${XDG_CACHE_HOME:-$HOME/.cache}/pinshard/local-s3"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --background) background=true; shift;;
    --bucket) bucket="$2"; shift 2;;
    --dir) dir="$2"; shift 2;;
    --port) port="$2"; shift 2;;
    *) echo "local-s3: unknown argument $1 (usage: scripts/local-s3.sh [--background] [--bucket NAME] [--dir DIR] [--port PORT])" >&2; exit 2;;
  esac
done
script="$("$root/scripts/fetch-s3rver.sh")"
mkdir -p "$dir/data"
log="$dir/s3rver.$$.log"
command=(node "$script" --directory "$dir/data" --address 127.0.0.1 --port "$port" --configure-bucket "$bucket")
if [[ "$background" == true ]]; then
  setsid "${command[@]}" </dev/null >"$log" 2>&1 &
else
  "${command[@]}" </dev/null > >(tee "$log" >&2) 2>&1 &
fi
server=$!
# The port s3rver took: its "listening" line (a state to wait for, at most 20 s).
listening=""
for _ in $(seq 200); do
  listening="$(sed -n 's/.*S3rver listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$log" 2>/dev/null | head -n 1)"
  [[ -n "$listening" ]] && break
  kill -0 "$server" 2>/dev/null || break
  sleep 0.1
done
if [[ -z "$listening" ]]; then
  echo "local-s3: s3rver did not start; its output: $(cat "$log" 2>/dev/null)" >&2
  kill "$server" 2>/dev/null || true
  exit 1
fi
echo "export AWS_ENDPOINT_URL=http://127.0.0.1:$listening AWS_REGION=us-east-1 AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=S3RVER"
echo "# s3://$bucket/ is stored in $dir/data; stop the server with: kill $server"
if [[ "$background" == false ]]; then
  wait "$server"
fi
