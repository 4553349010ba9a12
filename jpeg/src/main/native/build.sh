#!/usr/bin/env bash
# Builds the JNI library of io.pinshard.jpeg.LibJpeg with JavaCPP's Builder, or says in one line why not.
# Usage: build.sh JAVA JAVACPP_JAR CLASSES_DIR  (the jpeg module's pom runs it at process-classes)
set -uo pipefail
java="$1" javacpp="$2" classes="$3"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
missing=""
command -v g++ >/dev/null || missing="g++"
[[ -f /usr/include/jpeglib.h ]] || missing="${missing:+$missing, }jpeglib.h (apt-get install libjpeg62-turbo-dev)"
if [[ -n "$missing" ]]; then
  echo "pinshard jpeg: no libjpeg-turbo binding built (missing $missing): JPEG decodes with OpenCV"
  exit 0
fi
if ! "$java" -cp "$javacpp" org.bytedeco.javacpp.tools.Builder -cp "$classes" \
    -Xcompiler "-I$here" io.pinshard.jpeg.LibJpeg > "$classes/../libjpeg-binding.log" 2>&1; then
  echo "pinshard jpeg: building the libjpeg-turbo binding failed (see $(cd "$classes/.." && pwd)/libjpeg-binding.log): JPEG decodes with OpenCV"
  tail -n 20 "$classes/../libjpeg-binding.log"
fi
exit 0
