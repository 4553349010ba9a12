#!/usr/bin/env bash
# Prepares cuda-bridge/gpu-bundle/ for gpu-check.sh on a GPU machine that has the NVIDIA driver and a CUDA 13
# runtime but no JDK and no network: a jlink-made Java runtime, the module's jars and test classes, the JUnit console
# launcher, and the JavaCPP CUDA natives repacked down to the two JNI libraries used (cudart + driver API, NVRTC).
# Run it here (JDK 17 with jmods, Maven); the result must stay under 64 MiB. The folder is git-ignored.
set -euo pipefail
module="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$module")"
bundle="$module/gpu-bundle"
limit=$((64 * 1024 * 1024))
jdk="${PINSHARD_BUNDLE_JDK:-/usr/lib/jvm/java-17-openjdk-amd64}"
keep_natives=(libjnicudart.so libjninvrtc.so libjninvjpeg.so)

[[ -d "$jdk/jmods" ]] || { echo "prepare-gpu-bundle: $jdk has no jmods folder; set PINSHARD_BUNDLE_JDK to a JDK 17+ with jmods" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# What cuda-bridge's own build made (its pom: target/bundle.classpath, target/gpu-bundle-console/ with the JUnit
# console launcher and slf4j-simple; `mvn verify` fetches them): no Maven here after verify. module-classpath.sh builds
# the module with verify's goals (tests compiled, not run) when its outputs are missing or older than a source.
"$root/scripts/module-classpath.sh" cuda-bridge >/dev/null
for made in "$module/target/bundle.classpath" "$module/target/gpu-bundle-console"; do
  [[ -e "$made" ]] || { echo "prepare-gpu-bundle: cuda-bridge's build made no $made; run mvn -DskipTests package -pl cuda-bridge -am" >&2; exit 1; }
done

rm -rf "$bundle"
mkdir -p "$bundle/lib"
cp "$module"/target/pinshard-cuda-bridge-*.jar "$bundle/lib/"
cp "$root"/memory/target/pinshard-memory-*.jar "$bundle/lib/"
cp "$root"/format-spec/target/pinshard-format-spec-*[0-9T].jar "$bundle/lib/"  # JpegFrame and the shard layout (nvJPEG part)
(cd "$module/target/test-classes" && "$jdk/bin/jar" --create --file "$bundle/lib/pinshard-cuda-bridge-tests.jar" .)
cp "$module"/target/gpu-bundle-console/junit-platform-console-standalone-*.jar "$bundle/lib/junit-console.jar"
cp "$module"/target/gpu-bundle-console/slf4j-simple-*.jar "$bundle/lib/"

# Runtime dependencies, minus what the GPU check never loads (OpenCV and its BLAS, LZ4, Jackson, the
# writer's Commons jars: the reader and writer are test-scope only, for LoaderToDeviceTest, which the bundle skips) and
# the test engines the console launcher already contains.
tr ':' '\n' < "$module/target/bundle.classpath" | while read -r jar; do
  [[ -n "$jar" ]] || continue
  case "$(basename "$jar")" in
    opencv-*|openblas-*|lz4-*|chronicle-*|jackson-*|affinity-*|jna-*|posix-*|commons-*|pinshard-*) ;;
    junit-*|jqwik-*|opentest4j-*|apiguardian-*|slf4j-simple-*) ;;
    cuda-*-linux-x86_64.jar)
      # Keep only the JNI libraries gpu-check uses; the full natives jar also carries cuBLAS, cuDNN, NPP, ...
      mkdir -p "$work/natives" && (cd "$work/natives" && "$jdk/bin/jar" --extract --file "$jar")
      mkdir -p "$work/keep/org/bytedeco/cuda/linux-x86_64"
      for lib in "${keep_natives[@]}"; do cp "$work/natives/org/bytedeco/cuda/linux-x86_64/$lib" "$work/keep/org/bytedeco/cuda/linux-x86_64/"; done
      (cd "$work/keep" && "$jdk/bin/jar" --create --file "$bundle/lib/$(basename "$jar")" .) ;;
    *) cp "$jar" "$bundle/lib/" ;;
  esac
done

echo "== linking a Java runtime"
modules="$("$jdk/bin/jdeps" --ignore-missing-deps --print-module-deps --multi-release 17 \
  --class-path "$bundle/lib/*" "$bundle"/lib/pinshard-*.jar "$bundle/lib/junit-console.jar")"
# Loaded reflectively or as services, so jdeps cannot see them: Unsafe (Agrona, JavaCPP), thread allocation
# counters (tests), the zip file system (JUnit scans jars for test classes), and the Vector API module the root
# pom's JVM flags add (--add-modules=jdk.incubator.vector), which gpu-check.sh passes as they are.
modules="$modules,jdk.unsupported,java.management,jdk.management,java.logging,jdk.zipfs,jdk.incubator.vector"
echo "modules: $modules"
"$jdk/bin/jlink" --add-modules "$modules" --strip-debug --no-header-files --no-man-pages --compress=2 \
  --output "$bundle/runtime"

# Real photographs as jpeg shards (shorter side 320, as the README's convert makes them) for GpuCheck's nvJPEG part.
photos="${PINSHARD_BUNDLE_PHOTOS:-$HOME/.cache/pinshard/photos}"
if [[ ! -d "$photos" ]]; then "$root/scripts/fetch-photos.sh" >/dev/null || true; fi
if [[ -d "$photos" ]]; then
  echo "== jpeg shards of $photos"
  "$root/pinshard" convert "$photos" -o "$bundle/jpeg-shards" --codec jpeg --shorter-side 320 --progress none --labels none \
    | tail -n 3
else
  echo "prepare-gpu-bundle: no photos at $photos (scripts/fetch-photos.sh): GpuCheck's nvJPEG part will not run" >&2
fi

size=$(du -sb "$bundle" | cut -f1)
echo "== bundle: $bundle, $((size / 1024)) KiB (limit $((limit / 1024)) KiB)"
du -sh "$bundle/runtime" "$bundle/lib"
ls -la "$bundle/lib"
if (( size >= limit )); then
  echo "prepare-gpu-bundle: the bundle is $size bytes, over the 64 MiB that may travel" >&2
  exit 1
fi
