#!/usr/bin/env bash
# Benchmark (not a test): the same conversion of the real photographs by Spark local[2] through the pinshard data
# source (PinshardSparkConvert, a fresh JVM with Spark's startup counted) and by `pinshard convert --workers 2`,
# alternating ROUNDS times; prints every run's wall time, the best and the median of each, and their ratios. A third
# job, Spark converting one image, shows Spark's fixed cost (JVM, SparkContext, planning, codegen), which larger inputs
# amortise: the per-image part is what the data source adds. Before the timed rounds, untimed one-image runs of each
# job make their class-data-sharing archives, and the Spark JVM runs with the flags docs/convert.md gives a job on
# one machine (convert's C1 and serial GC, the archive): a user's second run on is what is measured.
# Usage: scripts/bench-spark-convert.sh [REPEAT] [ROUNDS]   (REPEAT copies of the cached photos, default 2; ROUNDS default 3)
# Env: PINSHARD_PHOTOS (photo cache), BENCH_DIR (scratch, default /tmp/pinshard-bench-spark), CODEC (default auto),
#      PARTITIONS (Spark tasks, default PinshardSparkConvert's: 4 per core).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
repeat="${1:-2}"
rounds="${2:-3}"
codec="${CODEC:-auto}"
photos="$("$root/scripts/fetch-photos.sh")"
work="${BENCH_DIR:-/tmp/pinshard-bench-spark}"
rm -rf "$work" && mkdir -p "$work/in"
# REPEAT copies of every photo as symlinks (the page cache holds one copy: this measures CPU, not disk).
find "$photos" -type f \( -iname '*.jpg' -o -iname '*.png' \) | sort | while read -r f; do
  class="$(basename "$(dirname "$f")")"
  mkdir -p "$work/in/$class"
  for i in $(seq 1 "$repeat"); do ln -s "$f" "$work/in/$class/copy$i-$(basename "$f")"; done
done
count="$(find "$work/in" -type l | wc -l)"
mkdir -p "$work/one/class" && ln -s "$(find "$work/in" -type l -name '*.jpg' | sort | head -1)" "$work/one/class/"
"$root/pinshard" --version >/dev/null  # build the cli jar outside the timings
# The spark module's jar and its class path as its build wrote them (Spark is 'provided': the test scope has it; no
# Maven after `mvn verify`), less the test libraries: one SLF4J provider, Spark's. The jar, not target/classes: the
# class-data-sharing archive below takes no folder on the class path.
cp="$("$root/scripts/module-classpath.sh" spark | tr ':' '\n' | grep -v -e slf4j-simple -e junit -e opentest4j -e apiguardian | paste -sd:)"
spark_jar="$(ls "$root"/spark/target/pinshard-spark-*.jar | grep -v -e sources -e javadoc | head -1)"
cp="${cp//$root\/spark\/target\/classes/$spark_jar}"
java_bin="${JAVA_HOME:+$JAVA_HOME/bin/}java"
cat "$photos"/*/* >/dev/null  # warm the page cache
# Both jobs start as a user's repeated runs do, from a class-data-sharing archive of the classes they load: convert
# from ./pinshard's (its first run records the list, the next start dumps the archive in the background), the
# Spark job from the one its JVM writes at its first exit (jvm-flags.sh --cds-auto, as docs/convert.md's
# "Start-up" tells users). The Spark JVM also takes convert's JIT and GC flags (--command convert: C1, serial GC).
cds_dir="${XDG_CACHE_HOME:-$HOME/.cache}/pinshard/cds"
spark_flags_now() { "$root/scripts/jvm-flags.sh" --spark "$java_bin" --command convert --cds-auto "$work/spark-cds.jsa" --classpath "$cp"; }
spark_job() { # INPUT OUTPUT
  local flags
  read -r -a flags <<< "$(spark_flags_now)"
  "$java_bin" "${flags[@]}" -Dspark.master='local[2]' -Dspark.ui.enabled=false -Dspark.driver.host=127.0.0.1 \
    -Dlog4j2.configurationFile="$root/spark/src/test/resources/log4j2.properties" \
    -cp "$cp" io.pinshard.spark.PinshardSparkConvert "$1" -o "$2" --codec "$codec" "${spark_args[@]}"
}
spark_args=()
spark_job "$work/one" "$work/warm-spark" >"$work/warm-spark.log" 2>&1
[[ -f "$work/spark-cds.jsa" ]] || echo "bench-spark-convert: the Spark job wrote no archive $work/spark-cds.jsa" >&2
if [[ "${PINSHARD_CDS:-1}" != 0 ]]; then
  for i in 1 2; do "$root/pinshard" convert "$work/one" -o "$work/warm-convert-$i" --progress none >/dev/null; done
  for _ in $(seq 1 120); do  # the dump the second start began, in the background
    [[ -n "$(find "$cds_dir" -name 'convert-*.jsa' -newer "$root/cli/target/pinshard.jar" -print -quit)" ]] && break
    sleep 1
  done
fi
results="$work/results.txt"
: >"$results"
TIMEFORMAT='%R %U %S'
measure() { # name, command...
  local name="$1"; shift
  local t
  t="$( { time "$@" >"$work/$name.log" 2>&1; } 2>&1 )"
  echo "$name $t" >>"$results"
}
if [[ -n "${PARTITIONS:-}" ]]; then spark_args=(--partitions "$PARTITIONS"); fi
for round in $(seq 1 "$rounds"); do
  rm -rf "$work/out-convert" "$work/out-spark" "$work/out-spark-one"
  measure convert "$root/pinshard" convert "$work/in" -o "$work/out-convert" --workers 2 --codec "$codec" --progress none
  measure spark spark_job "$work/in" "$work/out-spark"
  measure spark-1-image spark_job "$work/one" "$work/out-spark-one"
done
"$root/pinshard" verify "$work/out-spark" >/dev/null || { echo "bench-spark-convert: the Spark dataset does not verify" >&2; exit 1; }
echo "inputs: $count images ($repeat x the photos of $photos), codec $codec, shorter side 320, $(nproc) cores,"
echo "$("$java_bin" -version 2>&1 | head -1), load average at the end: $(cut -d' ' -f1-3 /proc/loadavg); $rounds alternating rounds."
grep -h "images in\|shard(s)" "$work/spark.log" | sed 's/^/spark: /'
echo
echo "| job | runs (wall s) | best wall s | median wall s | CPU s of the best (user+sys) |"
echo "|---|---|---|---|---|"
for name in convert spark spark-1-image; do
  runs="$(awk -v n="$name" '$1==n {printf "%s ", $2}' "$results")"
  best_line="$(awk -v n="$name" '$1==n' "$results" | sort -k2 -g | head -1)"
  median="$(awk -v n="$name" '$1==n {print $2}' "$results" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')"
  read -r _ real user sys <<<"$best_line"
  printf '| %s | %s| %s | %s | %.1f |\n' "$name" "$runs" "$real" "$median" "$(echo "$user + $sys" | bc)"
  eval "best_${name//-/_}=$real; median_${name//-/_}=$median"
done
echo
printf 'spark / convert: %.2fx (best), %.2fx (median); the goal is 1.3x or less\n' \
  "$(echo "$best_spark / $best_convert" | bc -l)" "$(echo "$median_spark / $median_convert" | bc -l)"
printf 'less Spark'"'"'s fixed cost (the one-image job): %.2fx (best), %.2fx (median)\n' \
  "$(echo "($best_spark - $best_spark_1_image) / $best_convert" | bc -l)" \
  "$(echo "($median_spark - $median_spark_1_image) / $median_convert" | bc -l)"
