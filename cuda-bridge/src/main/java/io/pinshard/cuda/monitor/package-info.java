/**
 * GPU utilisation through NVML for the data-wait warning and the step log's {@code gpu_util}: {@code GpuUtilization}
 * (a sampler, or the reason there is none) and {@code GpuUtilizationContext}, the {@code DataWaitContext} service
 * cuda-bridge registers. Imports datawait and runtime only.
 */
package io.pinshard.cuda.monitor;
