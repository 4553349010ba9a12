#!/usr/bin/env bash
# Builds the pinshard wheel, which brings its own Java: dist/pinshard-VERSION-py3-none-manylinux_2_NN_x86_64.whl
# holds the Python package, the CLI's shaded jar and a Java runtime made with jlink from the JDK that builds it, so
# `pip install` of it needs no Java on the machine (JAVA_HOME, when set, still overrides the bundled runtime).
# Steps:
# 1. the interpreter that builds the wheel must have setuptools, wheel and pip (default /usr/bin/python3, the one with
#    Debian's torch; PYTHON=... for another);
# 2. cli/target/pinshard.jar, built by ./pinshard when missing or stale (Maven, this JDK);
# 3. cli/target/wheel-runtime: `jlink --add-modules M --strip-debug --no-man-pages --no-header-files --compress=2
#    --generate-cds-archive` of this JDK (JAVA_HOME, else the java on the PATH; it needs jlink and jdeps), M being what
#    `jdeps --print-module-deps` finds in the jar, less jdk.javadoc (only Hadoop's doclet tools use it) and plus the
#    modules the JVM flags or service lookups need that jdeps cannot see (see `extra` below); jdeps runs again only
#    for a new jar, jlink only for a new JDK or module list; the system's zlib, which bin/java links, goes into its lib/;
# 4. the wheel, by python/setup.py from a copy of python/ (the checkout gets no build folders), PINSHARD_RUNTIME
#    naming the runtime; setup.py tags it for the newest glibc symbol version the runtime's binaries need.
# Usage: scripts/build-wheel.sh [OUTPUT_DIR]       (default: dist/ of the checkout; prints the wheel's path)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$(mkdir -p "${1:-$root/dist}" && cd "${1:-$root/dist}" && pwd)"
python="${PYTHON:-/usr/bin/python3}"

# 1. The interpreter.
if ! command -v "$python" >/dev/null; then
  echo "build-wheel: no $python: set PYTHON to a python3 with setuptools, wheel and pip" >&2
  exit 1
fi
missing="$("$python" -c '
import importlib.util
print(" ".join(m for m in ("setuptools", "wheel", "pip") if importlib.util.find_spec(m) is None))')"
if [[ -n "$missing" ]]; then
  echo "build-wheel: $python has no $missing (Debian/Ubuntu: sudo apt-get install python3-setuptools python3-wheel" \
       "python3-pip; or PYTHON=/usr/bin/python3, Debian's, which has them)" >&2
  exit 1
fi

# 2. The jar.
"$root/pinshard" --version >/dev/null
jar="$root/cli/target/pinshard.jar"

# 2b. The jar the wheel carries: the CLI's jar less native libraries nothing in pinshard loads (JavaCPP unpacks and
# loads a preset's libraries only when its class is used): OpenCV's modules other than core, imgproc and imgcodecs
# with their JNI and OpenCV's Python module; OpenBLAS's "full" JNI build (OpenCV's classes load the plain and the
# nolapack ones) and its headers; the CUDA libraries' JNI but cudart, NVRTC, nvJPEG and NVML; jline's and lz4's
# natives for other systems. PythonWheelTest runs the wheel's OpenCV paths (PNG inputs, --resampler opencv).
wheel_jar="$root/cli/target/wheel-pinshard.jar"
if [[ ! -f "$wheel_jar" || "$wheel_jar" -ot "$jar" ]]; then
  echo "build-wheel: slimming the jar's natives ..." >&2
  cp "$jar" "$wheel_jar.tmp"
  drop=("org/bytedeco/openblas/linux-x86_64/libjniopenblas_full.so" "org/bytedeco/openblas/linux-x86_64/include/*" "org/bytedeco/openblas/linux-x86_64/lib/*"
    "org/bytedeco/opencv/linux-x86_64/python/*" "org/jline/nativ/*" "META-INF/native-image/*")
  for arch in aarch64 i386 ppc64le riscv64 s390x; do drop+=("net/jpountz/util/linux/$arch/*"); done
  while read -r entry; do
    case "$entry" in
      org/bytedeco/opencv/linux-x86_64/lib*opencv_core.so*|org/bytedeco/opencv/linux-x86_64/lib*opencv_imgproc.so*) ;;
      org/bytedeco/opencv/linux-x86_64/lib*opencv_imgcodecs.so*) ;;
      org/bytedeco/opencv/linux-x86_64/lib*.so*) drop+=("$entry") ;;
      org/bytedeco/cuda/linux-x86_64/libjnicudart.so|org/bytedeco/cuda/linux-x86_64/libjninvrtc.so) ;;
      org/bytedeco/cuda/linux-x86_64/libjninvjpeg.so|org/bytedeco/cuda/linux-x86_64/libjninvml.so) ;;
      org/bytedeco/cuda/linux-x86_64/*.so*) drop+=("$entry") ;;
    esac
  done < <(unzip -Z1 "$wheel_jar.tmp" 'org/bytedeco/opencv/linux-x86_64/*' 'org/bytedeco/cuda/linux-x86_64/*')
  zip -q -d "$wheel_jar.tmp" "${drop[@]}" >&2
  mv "$wheel_jar.tmp" "$wheel_jar"
fi

# 3. The runtime.
java_bin="$(readlink -f "$(command -v "${JAVA_HOME:+$JAVA_HOME/bin/}java")")"
jdk="$(dirname "$(dirname "$java_bin")")"
for tool in jlink jdeps; do
  if [[ ! -x "$jdk/bin/$tool" ]]; then
    echo "build-wheel: $jdk has no bin/$tool: a JDK, not a JRE, makes the wheel's runtime (Debian/Ubuntu:" \
         "sudo apt-get install openjdk-17-jdk-headless; or point JAVA_HOME at a JDK 17+)" >&2
    exit 1
  fi
done
major="$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$jdk/release")"
# Not seen by jdeps: jdk.crypto.ec gives TLS its elliptic curves (S3 over https), a service the JDK looks up.
extra="jdk.crypto.ec"
runtime="$root/cli/target/wheel-runtime"
# jdeps's verdict is kept beside the runtime for this jar; the runtime for this JDK and module list.
jar_key="$(stat -c '%s %Y' "$jar")"
if [[ "$(head -n 1 "$runtime.modules" 2>/dev/null)" != "$jar_key" ]]; then
  echo "build-wheel: finding the modules the jar needs (jdeps, about a minute) ..." >&2
  found="$("$jdk/bin/jdeps" --print-module-deps --ignore-missing-deps --multi-release "$major" "$jar")"
  modules="$(printf '%s\n' "${found//,/$'\n'}" ${extra//,/ } | grep -vx 'jdk.javadoc' | sort -u | paste -sd, -)"
  printf '%s\n%s\n' "$jar_key" "$modules" > "$runtime.modules"
fi
modules="$(sed -n 2p "$runtime.modules")"
key="$(printf '%s %s %s' "$java_bin" "$(stat -c '%s %Y' "$java_bin")" "$modules" | cksum | cut -d' ' -f1)"
if [[ "$(cat "$runtime/pinshard-runtime.key" 2>/dev/null)" != "$key" ]]; then
  echo "build-wheel: jlink $modules" >&2
  rm -rf "$runtime" "$runtime.tmp"
  "$jdk/bin/jlink" --add-modules "$modules" --strip-debug --no-man-pages --no-header-files --compress=2 \
    --generate-cds-archive --output "$runtime.tmp" >&2
  # bin/java and libzip.so link the system's zlib; their RPATH ($ORIGIN, $ORIGIN/../lib) finds this copy first.
  zlib="$(ldd "$runtime.tmp/bin/java" | sed -n 's/^.*libz\.so\.1 => \([^ ]*\) .*$/\1/p')"
  [[ -n "$zlib" ]] && cp -L "$zlib" "$runtime.tmp/lib/libz.so.1"
  echo "$key" > "$runtime.tmp/pinshard-runtime.key"
  mv "$runtime.tmp" "$runtime"
fi

# 4. The wheel, from a copy of python/ less its tests.
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir "$work/python"
cp -r "$root/python/pinshard" "$root/python/pyproject.toml" "$root/python/setup.py" \
  "$root/python/README-package.md" "$work/python/"
find "$work/python" -name __pycache__ -prune -exec rm -rf {} +
version="$(sed -n 's/^version = "\(.*\)"/\1/p' "$root/python/pyproject.toml")"
rm -f "$out/pinshard-$version-"*.whl
PINSHARD_REPO="$root" PINSHARD_RUNTIME="$runtime" PINSHARD_JAR="$wheel_jar" PIP_NO_CACHE_DIR=1 "$python" -m pip wheel -q --no-deps \
  --no-build-isolation --no-index -w "$out" "$work/python" >&2
ls "$out/pinshard-$version-"*.whl
