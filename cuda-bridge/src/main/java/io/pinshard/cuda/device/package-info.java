/**
 * Devices behind one interface: {@code DeviceBackend} (memory, a copy and a compute stream, events, the augmentation)
 * with its two implementations, {@code HostBackend} (anywhere, no GPU) and {@code CudaBackend}, and
 * {@code DeviceBackends.open("host" | "cuda" | "auto")}, the entry point. Imports memory, runtime and augment; never
 * the pipeline built on it.
 */
package io.pinshard.cuda.device;
