/**
 * What a Java trainer uses: {@code DeviceBatchStream} over {@code DeviceBatchPipeline} takes the loader's host batches
 * to the device through a ring of device slots and hands out {@code DeviceBatch}es ({@code TensorDescriptor}s, DLPack's
 * fields), counting data-wait ({@code PipelineStats}). Imports memory, datawait, device, augment and monitor.
 */
package io.pinshard.cuda.pipeline;
