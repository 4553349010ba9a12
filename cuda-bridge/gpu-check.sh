#!/usr/bin/env bash
# GPU check for cuda-bridge, for a machine with one NVIDIA GPU, the driver and a CUDA 13 runtime, but no JDK and no
# network. Everything comes from cuda-bridge/gpu-bundle/, made beforehand by prepare-gpu-bundle.sh on a build
# machine. Steps: probe CUDA (stops with the reason when unusable), run the tests (CUDA classes included) with the
# JUnit console launcher, print the measurements table (GpuCheck, then DevicePipelineCheck from the test jar), then
# the Python path (gpu_python_check.py: PinshardDataset(device="cuda", jitter=...) feeding ResNet-18 steps with the
# step log; images/s, data-wait, GPU utilisation) where python3 has torch with CUDA and a way to start `pinshard
# serve` (the pinshard wheel installed, PINSHARD_COMMAND, or the bundle's serve/pinshard), once per bundled dataset
# (raw and jpeg photographs), else it says why it is skipped. Well under 9 minutes on an H100/H200.
# Usage: cuda-bridge/gpu-check.sh [--out DIR] [--python-only]   (DIR receives gpu-check.txt and the JUnit XML
# reports; --python-only skips steps 2 and 3 and adds gpu_python_profile.py, where the Python path's time goes)
set -uo pipefail
module="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bundle="$module/gpu-bundle"
out=""
python_only=false  # --python-only: the Python path and its profile (gpu_python_profile.py) only, steps 1-3 skipped
while (( $# )); do
  case "$1" in
    --out) out="${2:?--out needs a folder}"; mkdir -p "$out"; shift 2 ;;
    --python-only) python_only=true; shift ;;
    *) echo "usage: gpu-check.sh [--out DIR] [--python-only]" >&2; exit 2 ;;
  esac
done

fail() { echo "gpu-check: $*" >&2; exit 2; }

# What travels is the packed bundle (gpu-bundle.tar.xz); unpack it on the first run.
if [[ ! -d "$bundle" && -f "$bundle.tar.xz" ]]; then
  echo "gpu-check: unpacking $bundle.tar.xz"
  tar -C "$module" -xJf "$bundle.tar.xz" || fail "cannot unpack $bundle.tar.xz"
fi
[[ -x "$bundle/runtime/bin/java" && -d "$bundle/lib" ]] \
  || fail "no bundle at $bundle: run cuda-bridge/prepare-gpu-bundle.sh on a build machine first and copy the repository folder with it"

# The CUDA runtime (libcudart.so.13), NVRTC (libnvrtc.so.13) and nvJPEG (libnvjpeg.so.13) come from the machine: a toolkit, the system
# libraries, or the nvidia-* Python wheels PyTorch installs. Put the folders that hold them on the library path.
add_lib_dir() { case ":${LD_LIBRARY_PATH:-}:" in *":$1:"*) ;; *) LD_LIBRARY_PATH="$1${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ;; esac; }
for lib in libcudart.so.13 libnvrtc.so.13 libnvjpeg.so.13; do
  found=""
  for dir in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib /usr/local/cuda-13*/lib64 \
             /usr/local/cuda-13*/targets/x86_64-linux/lib /usr/lib/x86_64-linux-gnu /usr/lib64; do
    if [[ -e "$dir/$lib" ]]; then found="$dir"; break; fi
  done
  if [[ -z "$found" ]]; then
    found="$(timeout 60 find /usr /opt /root -name "$lib" -not -path '*/proc/*' 2>/dev/null | head -n 1 | xargs -r dirname)"
  fi
  if [[ -n "$found" ]]; then add_lib_dir "$found"; echo "gpu-check: $lib from $found"; else echo "gpu-check: $lib not found on this machine" >&2; fi
done
# The bundle's libjpeg-turbo (Debian's libjpeg.so.62): the JDK's own JPEG library (ImageIO, which the nvJPEG tests
# encode with) and the CLI jar's JPEG binding link it, and machines outside Debian lack it.
[[ -d "$bundle/serve" ]] && add_lib_dir "$bundle/serve"
export LD_LIBRARY_PATH

# The JVM flags from their one home (the root pom, through scripts/jvm-flags.sh), for the bundled JDK 17 runtime.
flags="$("$(dirname "$module")/scripts/jvm-flags.sh" "$bundle/runtime/bin/java")" || fail "cannot read the JVM flags from the root pom"
read -r -a flag_list <<< "$flags"
java=("$bundle/runtime/bin/java" "${flag_list[@]}" -Xmx4g
  "-Dorg.bytedeco.javacpp.cachedir=${TMPDIR:-/tmp}/pinshard-javacpp-cache")
classpath="$(ls "$bundle"/lib/*.jar | grep -v junit-console.jar | tr '\n' ':')"

command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null
echo "== 1/4 CUDA probe"
timeout 120 "${java[@]}" -cp "$classpath" io.pinshard.cuda.GpuCheck --probe
probe=$?
if (( probe != 0 )); then
  fail "no usable GPU here (reason above); the CUDA tests and the measurements need one NVIDIA GPU with its driver"
fi

# LoaderToDeviceTest and JpegShardPayloadsTest write datasets with the writer, which the bundle leaves out (they run
# in the build). From the module's folder, as Maven runs them (test vectors are read from ../python/tests). The nvJPEG
# tests (NVIDIA's decoder on hostile JPEGs) run in JVMs of their own, one per class, so a crash in the library is
# reported with its class and the JVM's error file and the other tests still run.
if [[ "$python_only" == true ]]; then
  echo "gpu-check: --python-only: steps 2 and 3 skipped"
  tests=0
  measured=0
else
echo "== 2/4 tests (host and CUDA)"
reports=()
if [[ -n "$out" ]]; then reports=(--reports-dir "$out/junit"); fi
crash_dir="${out:-${TMPDIR:-/tmp}}"
(cd "$module" && timeout 300 "${java[@]}" -jar "$bundle/lib/junit-console.jar" execute --class-path "$classpath" \
  --select-package io.pinshard.cuda --exclude-classname '.*LoaderToDeviceTest' \
  --exclude-classname '.*JpegShardPayloadsTest' --exclude-classname '.*NvJpeg.*Test' \
  --details=tree --disable-banner "${reports[@]}")
tests=$?
for nvjpeg_test in NvJpegBatchTest NvJpegDecoderGpuTest; do
  (cd "$module" && timeout 120 "${java[@]}" "-XX:ErrorFile=$crash_dir/hs_err_$nvjpeg_test.log" \
    -jar "$bundle/lib/junit-console.jar" execute --class-path "$classpath" \
    --select-class "io.pinshard.cuda.nvjpeg.$nvjpeg_test" --details=tree --disable-banner)
  rc=$?
  if (( rc != 0 )); then
    tests=$rc
    [[ -f "$crash_dir/hs_err_$nvjpeg_test.log" ]] && { echo "gpu-check: $nvjpeg_test crashed the JVM:"; \
      grep -m 12 -E '^(# (Problematic|C  |J )|[jJCv]  )' "$crash_dir/hs_err_$nvjpeg_test.log"; }
  fi
done

echo "== 3/4 measurements"
# GpuCheck measures copies, the kernel and nvJPEG; DevicePipelineCheck drives the device pipeline with test batches.
# Both are tools in the test jar (the library jar ships neither). One failing does not hide the other.
measure() {
  local rc=0
  local shards=()
  if [[ -d "$bundle/jpeg-shards" ]]; then shards=(--jpeg-shards "$bundle/jpeg-shards"); fi
  timeout 240 "${java[@]}" -cp "$classpath" io.pinshard.cuda.GpuCheck "${shards[@]}" || rc=$?
  timeout 120 "${java[@]}" -cp "$classpath" io.pinshard.cuda.DevicePipelineCheck || rc=$?
  # The Java loader on this machine's CPUs, alone and feeding the GPU (uint8 over PCIe, jitter + normalisation
  # there), on the bundle's photographs: `pinshard bench` through the slim CLI jar.
  if [[ -x "$bundle/serve/pinshard" ]]; then
    local dataset codec
    for dataset in "$bundle"/python-data/*/; do
      codec="$(basename "$dataset")"
      for device in "" "--device cuda --gpu-augment"; do
        echo "pinshard bench $codec ${device:-(host)}:"
        # shellcheck disable=SC2086  # the device options are words
        timeout 60 "$bundle/serve/pinshard" bench "${dataset%/}" --seconds 5 --warmup 2 $device 2>&1 \
          | grep -E '^(images_per_s|ms_per_batch|heap_bytes_per_batch|workers|device|h2d|gpu|error|pinshard)' \
          || rc=1
      done
    done
  fi
  return "$rc"
}
if [[ -n "$out" ]]; then
  measure | tee "$out/gpu-check.txt"
  measured=${PIPESTATUS[0]}
else
  measure
  measured=$?
fi
fi
echo "== 4/4 the Python path"
# Informational where it cannot run (no torch that sees CUDA; no wheel, PINSHARD_COMMAND or bundle serve/ to start
# the server); counted when it runs.
python_bin="${PINSHARD_PYTHON:-python3}"
python_rc=0
# python_step SECONDS COMMAND...: runs it under a timeout, its output also to DIR/gpu-check.txt; a failure counts
python_step() {
  local limit="$1" rc=0
  shift
  if [[ -n "$out" ]]; then
    timeout "$limit" "$@" 2>&1 | tee -a "$out/gpu-check.txt"
    rc=${PIPESTATUS[0]}
  else
    timeout "$limit" "$@" || rc=$?
  fi
  (( rc == 0 )) || python_rc=$rc
}
export PYTHONPATH="$(dirname "$module")/python${PYTHONPATH:+:$PYTHONPATH}"
if ! "$python_bin" -c 'import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
  echo "gpu-check: Python path skipped: $python_bin has no torch that sees a CUDA device"
else
  has_wheel=false
  "$python_bin" -c 'import os, sys, pinshard._java as j; sys.exit(0 if os.path.isfile(j.PACKAGED_JAR) else 1)' \
    2>/dev/null && has_wheel=true
  if [[ -z "${PINSHARD_COMMAND:-}" && "$has_wheel" == false && -x "$bundle/serve/pinshard" ]]; then
    export PINSHARD_COMMAND="$bundle/serve/pinshard"  # no wheel here: the bundle's runtime and slim CLI jar
  fi
  if [[ -z "${PINSHARD_COMMAND:-}" && "$has_wheel" == false ]]; then
    echo "gpu-check: Python path skipped: no way to start pinshard serve here (install the pinshard wheel, or set PINSHARD_COMMAND)"
  else
    python_out="${out:-${TMPDIR:-/tmp}}/gpu-python-check"
    # One run per bundled dataset (jpeg, then raw); without any, one on random images it writes ("").
    datasets=()
    for dataset in "$bundle"/python-data/*/; do
      [[ -f "$dataset/manifest.json" ]] && datasets+=("${dataset%/}")
    done
    (( ${#datasets[@]} )) || datasets=("")
    for dataset in "${datasets[@]}"; do
      given=()
      [[ -n "$dataset" ]] && given=(--dataset "$dataset")
      check=("$python_bin" "$module/gpu_python_check.py" --device cuda --steps "${PINSHARD_GPU_STEPS:-200}" --batch 128
        "${given[@]}" --out "$python_out")
      python_step 200 "${check[@]}"
    done
    if [[ "$python_only" == true ]]; then
      # where the Python path's time goes, on the first bundled dataset (jpeg)
      python_step 300 "$python_bin" "$module/gpu_python_profile.py" --dataset "${datasets[0]:?no bundled dataset}" \
        --out "$python_out"
    fi
  fi
fi
echo "gpu-check: tests exit $tests, measurements exit $measured, Python path exit $python_rc"
(( tests == 0 && measured == 0 && python_rc == 0 ))
