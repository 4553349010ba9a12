#!/usr/bin/env bash
# The seed's shape at photo scale, on CPU: ResNet-18 forward + backward + SGD at batch 32, crop 224, from the 320-px
# raw photo shards of scripts/prepare-bench-data.sh (made once), for a few dozen steps; prints each step's time,
# data-wait ms and data-wait %, then the means after the warm-up (io.pinshard.examples.torch.ResNetPhotos).
# Usage: scripts/train-resnet-photos.sh [--steps 30 --warmup 3 --batch 32 --crop 224 --workers 2 --threads 2 ...]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
data="$("$root/scripts/prepare-bench-data.sh")"
classpath="$("$root/scripts/module-classpath.sh" examples)"
java_bin="${JAVA_HOME:+$JAVA_HOME/bin/}java"
jvm_flags="$("$root/scripts/jvm-flags.sh" "$java_bin")"  # fails the script when the pom lacks them
read -r -a flags <<< "$jvm_flags"
exec "$java_bin" "${flags[@]}" -cp "$classpath" io.pinshard.examples.torch.ResNetPhotos --data "$data/raw" "$@"
