/**
 * Augmentation: the crop box (torchvision's RandomResizedCrop and the eval centre crop), the bilinear
 * crop-resize-mirror through OpenCV or the Vector API kernel (from RGB, or from yuv420 planes converted row by
 * row). It may import options, sample (SplitMix), format-spec's Bt601 and Yuv420Descriptor, jpeg's MatHeader,
 * OpenCV, Agrona and jdk.incubator.vector; nothing of the run or the ring.
 */
package io.pinshard.loader.augment;
