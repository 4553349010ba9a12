/**
 * Augmentation: the crop box (torchvision's RandomResizedCrop and the eval centre crop), the bilinear
 * crop-resize-mirror through OpenCV or the Vector API kernel. It may import options, sample (SplitMix), jpeg's
 * MatHeader, OpenCV, Agrona and jdk.incubator.vector; nothing of the run or the ring.
 */
package io.pinshard.loader.augment;
