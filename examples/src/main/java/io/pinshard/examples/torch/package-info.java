/**
 * Runnable training examples on the torch adapter: {@link io.pinshard.examples.torch.TrainFashionMnist} (a small
 * CNN on Fashion-MNIST from pinshard shards, scripts/train-fashion-mnist.sh) and
 * {@link io.pinshard.examples.torch.ResNetPhotos} (ResNet-18 steps at photo scale, scripts/train-resnet-photos.sh).
 * See docs/training.md. On the top floor: it imports the torch adapter, the loader, reader and datawait, and no library
 * module imports it.
 */
package io.pinshard.examples.torch;
