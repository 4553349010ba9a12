#!/usr/bin/env bash
# The crop kernel against a plain copy of its output, interleaved in one JVM (io.pinshard.jmh.CropKernelRatio):
# alternating rounds of 1,000 crops each, so both sides see the same load on a shared machine.
# Usage: scripts/bench-crop-kernel.sh [rounds] [vector|opencv]   (builds jmh/target/benchmarks.jar when missing)
# Prints the load average before and after; the inputs are jmh/run.sh's (prepared once). PINSHARD_JAVA_OPTS adds
# JVM options, e.g. -Dpinshard.vector.bits=256 for the kernel's 256-bit form on an AVX-512 CPU.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
jar="$root/jmh/target/benchmarks.jar"
[[ -f "$jar" ]] || (cd "$root" && mvn -q -B -DskipTests package -pl jmh -am >&2)
java_bin="${JAVA_HOME:+$JAVA_HOME/bin/}java"
read -r -a flags <<< "$("$root/scripts/jvm-flags.sh" "$java_bin") ${PINSHARD_JAVA_OPTS:-}"
echo "load average before: $(cat /proc/loadavg)"
"$java_bin" "${flags[@]}" -Xmx2g -Dpinshard.repo="$root" -cp "$jar" io.pinshard.jmh.CropKernelRatio "${1:-40}" "${2:-vector}"
echo "load average after: $(cat /proc/loadavg)"
