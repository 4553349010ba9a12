#!/usr/bin/env bash
# The Fashion-MNIST training example: fetches and converts the data once (scripts/fetch-fashion-mnist.sh), then trains
# the small CNN of io.pinshard.examples.torch.FashionMnistNet for 5 epochs from the pinshard loader through the
# libtorch adapter (2 loader workers, 2 libtorch threads), scores the 10,000 test images after every epoch, prints
# the final accuracy, epochs, wall time and data-wait share, and writes the per-step log and the chart of loss and
# data-wait % (OUT/steps.log, OUT/training.png; OUT defaults to torch/target/train-fashion-mnist).
# Usage: scripts/train-fashion-mnist.sh [TrainFashionMnist options: --epochs 5 --seed 42 --out DIR ...]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
data="$("$root/scripts/fetch-fashion-mnist.sh")"
classpath="$("$root/scripts/module-classpath.sh" examples)"
java_bin="${JAVA_HOME:+$JAVA_HOME/bin/}java"
jvm_flags="$("$root/scripts/jvm-flags.sh" "$java_bin")"  # fails the script when the pom lacks them
read -r -a flags <<< "$jvm_flags"
exec "$java_bin" "${flags[@]}" -cp "$classpath" io.pinshard.examples.torch.TrainFashionMnist \
  --data "$data" --out "$root/torch/target/train-fashion-mnist" "$@"
