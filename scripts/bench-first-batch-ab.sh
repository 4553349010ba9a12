#!/usr/bin/env bash
# The loop's first batch of a fresh PinshardDataset (scripts/bench_first_batch.py --compare none), this checkout
# against an earlier revision, alternated round by round: REV's launcher, scripts and Python package (git archive
# into a temporary folder) with this checkout's jar, so REV must have the same Java sources and poms (it says so if
# not), unless BASE_JAR names REV's own build of cli/target/pinshard.jar. Each side runs twice unmeasured first (the launcher's class list, then its archive dump, waited for).
# START: launcher (PINSHARD_COMMAND=DIR/pinshard) or java (`java FLAGS -jar JAR` from pinshard._java, as a wheel).
# Usage: [BASE_JAR=JAR] scripts/bench-first-batch-ab.sh REV [ROUNDS] [launcher|java] [DATASET]
#        (defaults: 5 rounds, launcher, ~/.cache/pinshard/bench-320-x24-rst2/raw)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
rev="${1:?usage: scripts/bench-first-batch-ab.sh REV [ROUNDS] [launcher|java] [DATASET]}"
rounds="${2:-5}" start="${3:-launcher}" data="${4:-$HOME/.cache/pinshard/bench-320-x24-rst2/raw}"
[[ "$start" == launcher || "$start" == java ]] || { echo "START is launcher or java, not $start" >&2; exit 2; }
cd "$root"
if [[ -n "${BASE_JAR:-}" ]]; then
  [[ -f "$BASE_JAR" ]] || { echo "bench-first-batch-ab: BASE_JAR $BASE_JAR is not a file" >&2; exit 2; }
elif ! git diff --quiet "$rev" -- '*/src/main/**' '*pom.xml'; then
  echo "bench-first-batch-ab: $rev has other Java sources or poms than this checkout; this script reuses this" \
    "checkout's jar for both" >&2
  exit 1
fi
"$root/pinshard" --version >/dev/null  # builds the jar when needed
base="$(mktemp -d "${TMPDIR:-/tmp}/pinshard-ab.XXXXXX")"
trap 'rm -rf -- "$base"' EXIT
git archive "$rev" | tar -x -C "$base"
mkdir -p "$base/cli/target"
cp "${BASE_JAR:-$root/cli/target/pinshard.jar}" "$base/cli/target/pinshard.jar"  # newer than REV's sources: not rebuilt
cp "$root/scripts/bench_first_batch.py" "$base/scripts/"  # both sides measured alike
one() {  # DIR NAME
  local out
  if [[ "$start" == launcher ]]; then
    out="$(PINSHARD_COMMAND="$1/pinshard" /usr/bin/python3 "$1/scripts/bench_first_batch.py" "$data" --rounds 1 \
      --compare none --start launcher 2>&1)" || { echo "$out" >&2; return 1; }
  else
    out="$(env -u PINSHARD_COMMAND /usr/bin/python3 "$1/scripts/bench_first_batch.py" "$data" --rounds 1 \
      --compare none --start java 2>&1)" || { echo "$out" >&2; return 1; }
  fi
  local line
  while IFS= read -r line; do
    if [[ "$line" == "as is "* ]]; then printf '%s %s\n' "$2" "${line#as is }"; fi
  done <<< "$out"
}
for side in "$base" "$root" "$base" "$root"; do one "$side" warm >/dev/null; done
while compgen -G "${XDG_CACHE_HOME:-$HOME/.cache}/pinshard/cds/*.jsa.*.tmp" >/dev/null; do sleep 1; done
echo "uptime before: $(uptime)"
for ((r = 0; r < rounds; r++)); do
  one "$base" "$rev"
  one "$root" "this"
done | tee "$base/rounds"
echo "uptime after: $(uptime)"
python3 - "$base/rounds" "$rev" <<'EOF'
import re, statistics, sys
rows = {}
for line in open(sys.argv[1]):
    name = line.split()[0]
    rows.setdefault(name, []).append(float(re.search(r"loop first batch ([0-9.]+) s", line).group(1)))
for name, values in rows.items():
    print("median %-10s loop first batch %.2f s (%s)" % (name, statistics.median(values),
                                                         ", ".join("%.2f" % v for v in values)))
EOF
