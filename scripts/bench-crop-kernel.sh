#!/usr/bin/env bash
# The crop kernel against a plain copy of its output, interleaved in one JVM (io.pinshard.jmh.CropKernelRatio):
# alternating rounds of 1,000 crops each, so both sides see the same load on a shared machine.
# Usage: scripts/bench-crop-kernel.sh [rounds] [WORK] [REFERENCE]   (builds jmh/target/benchmarks.jar when missing)
#   WORK, REFERENCE: CropKernelBenchmark's works (default vector against copy-output), e.g. vector-yuv420 vector:
#   the kernel on the yuv420 form of the records against raw's; rows-yuv420 is the yuv420 rows' conversion alone
# Prints the load average before and after; the inputs are jmh/run.sh's (prepared once). PINSHARD_JAVA_OPTS adds
# JVM options, e.g. -Dpinshard.vector.bits=256 for the kernel's 256-bit form on an AVX-512 CPU.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
jar="$root/jmh/target/benchmarks.jar"
[[ -f "$jar" ]] || (cd "$root" && mvn -q -B -DskipTests package -pl jmh -am >&2)
java_bin="${JAVA_HOME:+$JAVA_HOME/bin/}java"
read -r -a flags <<< "$("$root/scripts/jvm-flags.sh" "$java_bin") ${PINSHARD_JAVA_OPTS:-}"
echo "load average before: $(cat /proc/loadavg)"
"$java_bin" "${flags[@]}" -Xmx2g -Dpinshard.repo="$root" -cp "$jar" io.pinshard.jmh.CropKernelRatio "${1:-40}" "${2:-vector}" "${3:-copy-output}"
echo "load average after: $(cat /proc/loadavg)"
