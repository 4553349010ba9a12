#!/usr/bin/env bash
# Prepares cuda-bridge/gpu-bundle/ for gpu-check.sh on a GPU machine that has the NVIDIA driver and a CUDA 13
# runtime but no JDK and no network: a jlink-made Java runtime, the module's jars and test classes, the JUnit console
# launcher, and the JavaCPP CUDA natives repacked down to the JNI libraries used (cudart + driver API, NVRTC, nvJPEG,
# NVML).
# For the Python path (gpu-check.sh step 4) it adds serve/: `serve/pinshard`, the CLI's jar less what `serve` never
# loads (S3, Parquet, charts, OpenCV's and OpenBLAS's natives: those alone are 50 MB) with the runtime above, and the
# libjpeg-turbo the jar's JPEG binding links; and python-data/: real photographs as a raw and a jpeg dataset made here
# (OpenCV decodes PNG inputs, so convert cannot run there). The folder is packed as gpu-bundle.tar.xz (xz folds the
# repeated photographs), which is what travels: it must stay under 64 MiB with the working tree. Both are git-ignored.
# Run it here (JDK 17 with jmods, Maven, xz).
set -euo pipefail
module="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$module")"
bundle="$module/gpu-bundle"
limit=$((64 * 1024 * 1024))
jdk="${PINSHARD_BUNDLE_JDK:-/usr/lib/jvm/java-17-openjdk-amd64}"
keep_natives=(libjnicudart.so libjninvrtc.so libjninvjpeg.so libjninvml.so)
cli_jar="$root/cli/target/pinshard.jar"

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
cp "$root"/datawait/target/pinshard-datawait-*[0-9T].jar "$bundle/lib/"  # the device stream's data-wait guard
cp "$root"/format-spec/target/pinshard-format-spec-*[0-9T].jar "$bundle/lib/"  # JpegFrame and the shard layout (nvJPEG part)
(cd "$module/target/test-classes" && "$jdk/bin/jar" --create --file "$bundle/lib/pinshard-cuda-bridge-tests.jar" .)
cp "$module"/target/gpu-bundle-console/junit-platform-console-standalone-*.jar "$bundle/lib/junit-console.jar"
cp "$module"/target/gpu-bundle-console/slf4j-simple-*.jar "$bundle/lib/"

# Runtime dependencies, minus what the GPU check never loads (OpenCV and its BLAS, LZ4, the
# writer's Commons jars: the reader and writer are test-scope only, for LoaderToDeviceTest, which the bundle skips) and
# the test engines the console launcher already contains.
tr ':' '\n' < "$module/target/bundle.classpath" | while read -r jar || [[ -n "$jar" ]]; do  # the last has no newline
  [[ -n "$jar" ]] || continue
  case "$(basename "$jar")" in
    opencv-*|openblas-*|lz4-*|chronicle-*|affinity-*|jna-*|posix-*|commons-*|pinshard-*) ;;
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

echo "== the CLI's jar for serve"
"$root/pinshard" --version >/dev/null  # the launcher builds the jar when it is missing or older than a source
mkdir -p "$bundle/serve"
cp "$cli_jar" "$bundle/serve/pinshard.jar"
# Kept: every class picocli reflects on when it builds the command line (the S3 options' types from the AWS SDK's
# profiles and builder packages); dropped: what a local `serve` and `convert` of raw or jpeg inputs never load.
drop=('software/amazon/*' 'org/apache/hadoop/*' 'org/apache/parquet/*' 'shaded/parquet/*' 'org/apache/pdfbox/*'
  'org/apache/fontbox/*' 'org/locationtech/*' 'org/knowm/*' 'org/apache/hc/*' 'org/apache/http/*'
  'org/bytedeco/opencv/linux-x86_64/*' 'org/bytedeco/openblas/linux-x86_64/*' 'org/jline/nativ/*'
  'META-INF/native-image/*')
for arch in aarch64 i386 ppc64le riscv64 s390x; do drop+=("net/jpountz/util/linux/$arch/*"); done
(cd "$work" && mkdir -p natives-all && cd natives-all \
  && "$jdk/bin/jar" --extract --file "$cli_jar" org/bytedeco/cuda/linux-x86_64/)
for lib in "$work"/natives-all/org/bytedeco/cuda/linux-x86_64/*.so; do
  case " ${keep_natives[*]} " in *" $(basename "$lib") "*) ;; *) drop+=("org/bytedeco/cuda/linux-x86_64/$(basename "$lib")") ;; esac
done
zip -q -d "$bundle/serve/pinshard.jar" "${drop[@]}"
(cd "$work" && mkdir -p kept && cd kept \
  && "$jdk/bin/jar" --extract --file "$cli_jar" software/amazon/awssdk/profiles/ software/amazon/awssdk/utils/builder/ \
  && zip -q -r "$bundle/serve/pinshard.jar" software)
cp -L "$(ldconfig -p | awk '/libjpeg\.so\.62 .*x86-64/ {print $NF; exit}')" "$bundle/serve/libjpeg.so.62"
cat > "$bundle/serve/pinshard" <<'LAUNCHER'
#!/usr/bin/env bash
# `pinshard ARGS` on the GPU machine: the bundle's Java runtime, the root pom's JVM flags, the CLI's jar made slim by
# prepare-gpu-bundle.sh, and the libjpeg-turbo its JPEG binding links. gpu-check.sh points PINSHARD_COMMAND here.
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
java="$(dirname "$here")/runtime/bin/java"
flags="$("$(dirname "$(dirname "$(dirname "$here")")")/scripts/jvm-flags.sh" "$java")" || exit 2
export LD_LIBRARY_PATH="$here${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# shellcheck disable=SC2086  # the flags are words
exec "$java" $flags $PINSHARD_JAVA_OPTS -jar "$here/pinshard.jar" "$@"
LAUNCHER
chmod +x "$bundle/serve/pinshard"

echo "== linking a Java runtime"
modules="$("$jdk/bin/jdeps" --ignore-missing-deps --print-module-deps --multi-release 17 \
  --class-path "$bundle/lib/*" "$bundle"/lib/pinshard-*.jar "$bundle/lib/junit-console.jar" "$bundle/serve/pinshard.jar")"
# Loaded reflectively or as services, so jdeps cannot see them: Unsafe (Agrona, JavaCPP), thread allocation
# counters (tests), the zip file system (JUnit scans jars for test classes), and the Vector API module the root
# pom's JVM flags add (--add-modules=jdk.incubator.vector), which gpu-check.sh passes as they are.
modules="$modules,jdk.unsupported,java.management,jdk.management,java.logging,jdk.zipfs,jdk.incubator.vector"
echo "modules: $modules"
# Not compressed by jlink: xz packs the whole bundle better than jlink's zip does.
"$jdk/bin/jlink" --add-modules "$modules" --strip-debug --no-header-files --no-man-pages --output "$bundle/runtime"

# Real photographs as jpeg shards (shorter side 320, as the README's convert makes them) for GpuCheck's nvJPEG part.
photos="${PINSHARD_BUNDLE_PHOTOS:-$HOME/.cache/pinshard/photos}"
if [[ ! -d "$photos" ]]; then "$root/scripts/fetch-photos.sh" >/dev/null || true; fi
if [[ -d "$photos" ]]; then
  echo "== jpeg shards of $photos"
  "$root/pinshard" convert "$photos" -o "$bundle/jpeg-shards" --codec jpeg --shorter-side 320 --progress none --labels none \
    | tail -n 3
  # The Python path's datasets: every photograph 24 times over in 24 classes (gpu_python_check.py trains enough
  # steps for its data-wait and utilisation figures), shorter side 256.
  tree="$work/python-photos"
  for class in $(seq -w 0 23); do
    mkdir -p "$tree/c$class"
    find "$photos" -type f \( -name '*.jpg' -o -name '*.png' \) | sort | while read -r photo; do
      ln -s "$photo" "$tree/c$class/$(basename "$(dirname "$photo")")-$(basename "$photo")"
    done
  done
  for codec in raw jpeg; do
    echo "== python-data/$codec"
    "$root/pinshard" convert "$tree" -o "$bundle/python-data/$codec" --codec "$codec" --shorter-side 256 \
      --progress none | tail -n 1
  done
else
  echo "prepare-gpu-bundle: no photos at $photos (scripts/fetch-photos.sh): GpuCheck's nvJPEG part and the Python" \
    "path will not run" >&2
fi

echo "== packing"
tar -C "$module" -cf - gpu-bundle | xz -T0 -9 > "$module/gpu-bundle.tar.xz"
tree_size=$(cd "$root" && git ls-files -z --cached --others --exclude-standard | xargs -0 stat -c %s 2>/dev/null \
  | awk '{s += $1} END {print s + 0}')
size=$(stat -c %s "$module/gpu-bundle.tar.xz")
du -sh "$bundle" "$bundle"/*
echo "== $module/gpu-bundle.tar.xz: $((size / 1024)) KiB, with the working tree $(((size + tree_size) / 1024)) KiB" \
  "(limit $((limit / 1024)) KiB)"
if (( size + tree_size >= limit )); then
  echo "prepare-gpu-bundle: the packed bundle and the working tree are $((size + tree_size)) bytes, over the 64 MiB" \
    "that may travel" >&2
  exit 1
fi
