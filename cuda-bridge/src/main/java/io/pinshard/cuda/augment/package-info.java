/**
 * The batched GPU augmentation (colour jitter, mean/std normalisation, NHWC uint8 to NCHW float): what it does
 * ({@code AugmentSpec}), the per-sample jitter draws ({@code JitterParams}, the rule the Python path shares), the CPU
 * reference that is the host backend's implementation and the test oracle ({@code ReferenceAugmenter}), and the NVRTC
 * kernel ({@code CudaAugmentKernel}, {@code augment.cu}) that computes the same, operation by operation. Imports memory
 * and runtime only.
 */
package io.pinshard.cuda.augment;
