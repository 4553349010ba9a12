#!/usr/bin/env bash
# Sourced by the bench-s3*.sh scripts: start_s3_store WORK CLASSPATH [PREFIX...] runs the tests' S3 server
# (s3proxy, in-memory store) in a JVM of its own, PREFIX (e.g. taskset -c 1) in front of its java, and sets
# server_pid and endpoint. The store serves until descriptor 3 closes (stop_s3_store).
start_s3_store() {
  local work="$1" classpath="$2"; shift 2
  local flags
  read -r -a flags <<< "$("$root/scripts/jvm-flags.sh" java)"
  mkfifo "$work/store-input"
  "$@" java "${flags[@]}" -Xmx${BENCH_S3_STORE_HEAP:-2g} -cp "$classpath" io.pinshard.testkit.S3TestServer \
    "$work/endpoint" < "$work/store-input" &
  server_pid=$!
  exec 3> "$work/store-input"  # the store serves until this closes
  for _ in $(seq 600); do
    [[ -f "$work/endpoint" ]] && break
    kill -0 "$server_pid" 2>/dev/null || { echo "$0: the store process exited before it was ready" >&2; exit 1; }
    sleep 0.1
  done
  [[ -f "$work/endpoint" ]] || { echo "$0: the store did not start within 60 s" >&2; exit 1; }
  endpoint="$(cat "$work/endpoint")"
}

stop_s3_store() {
  if [[ -n "${server_pid:-}" ]]; then exec 3>&-; wait "$server_pid" 2>/dev/null || true; server_pid=""; fi
}
