/**
 * The CUDA runtime underneath everything else of cuda-bridge: whether CUDA is usable here ({@code CudaAvailability},
 * probed once, with a one-line reason when not), status codes turned into {@code CudaException}s ({@code CudaCheck}),
 * and page-locked host memory ({@code PinnedMemoryAllocator}, {@code HostRegistration}). Imports memory and JavaCPP's
 * CUDA presets only: no other package of this module.
 */
package io.pinshard.cuda.runtime;
