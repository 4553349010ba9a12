#!/usr/bin/env bash
# Runs pinshard's JMH suite and writes jmh/results/MODE.{json,md} (JMH JSON and a Markdown table).
# Usage: jmh/run.sh quick|full [extra JMH arguments, e.g. a benchmark regex]
#   quick: tiny parameters, short iterations (CI smoke test; a few minutes on 2 cores)
#   full:  the README figures (about 15-20 minutes on 2 cores)
# Builds jmh/target/benchmarks.jar when missing or older than any source. Every run uses -prof gc.
# Environment: JAVA_HOME (the JDK to run), PINSHARD_PHOTOS (photo cache), JMH_EXTRA (more JMH arguments).
set -euo pipefail
mode="${1:-quick}"
shift || true
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
jar="$root/jmh/target/benchmarks.jar"
results="$root/jmh/results"

case "$mode" in
  quick) records=1024; index_records=100000; convert_images=8; iterations=(-wi 1 -w 1s -i 1 -r 1s) ;;
  full)  records=4096; index_records=1000000; convert_images=40; iterations=(-wi 2 -w 3s -i 3 -r 4s) ;;
  *) echo "usage: jmh/run.sh quick|full [JMH args]" >&2; exit 2 ;;
esac

if [[ ! -f "$jar" ]] || [[ -n "$(find "$root" \( -path "$root/.git" -o -name target \) -prune -o \( -name '*.java' -o -name 'pom.xml' \) -newer "$jar" -print -quit)" ]]; then
  echo "run.sh: building $jar ..." >&2
  (cd "$root" && mvn -q -B -DskipTests package -pl jmh -am >&2)
fi

java_bin="${JAVA_HOME:+$JAVA_HOME/bin/}java"
# The JVM flags of the root pom (one home), for the input preparation and the report run here; the
# benchmarks' forks get them from benchmarks.jar's own main (BenchmarksMain), which appends them.
jvm_flags="$("$root/scripts/jvm-flags.sh" "$java_bin")"  # fails the script when the pom lacks them
read -r -a flags <<< "$jvm_flags"
flags+=("-Dpinshard.repo=$root")

mkdir -p "$results"
"$java_bin" "${flags[@]}" -cp "$jar" io.pinshard.jmh.inputs.PrepareInputs "$records" "$index_records" \
  "$results/$mode-inputs.txt"

jmh_args=("${iterations[@]}" -f 1 -prof gc -p "records=$records" -p "indexRecords=$index_records"
          -p "images=$convert_images"
          -rf json -rff "$results/$mode.json" "$@")
# shellcheck disable=SC2206
[[ -n "${JMH_EXTRA:-}" ]] && jmh_args+=(${JMH_EXTRA})
command="jmh/run.sh $mode${*:+ $*}  =>  java <pinshard.jvm.flags> -jar jmh/target/benchmarks.jar ${jmh_args[*]}"
command="${command//$root\//}"
echo "run.sh: $command" >&2
"$java_bin" "${flags[@]}" -jar "$jar" "${jmh_args[@]}" | tee "$root/jmh/target/$mode.log"
"$java_bin" "${flags[@]}" -cp "$jar" io.pinshard.jmh.report.ResultsTable "$results/$mode.json" "$results/$mode.md" \
  "$mode" "$command" "$results/$mode-inputs.txt" > /dev/null
echo "run.sh: wrote $results/$mode.md and $results/$mode.json" >&2
