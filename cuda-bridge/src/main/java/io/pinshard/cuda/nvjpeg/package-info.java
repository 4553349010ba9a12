/**
 * Batched JPEG decoding on the GPU with nvJPEG, straight from payloads in mapped shards: {@code NvJpegBatch} (laid out
 * by {@code NvJpegBatchDescriptor}, each payload checked by format-spec's {@code JpegFrame} first), {@code NvJpegDecoder},
 * {@code NvJpegAvailability}, and {@code JpegShardPayloads}, a shard folder's JPEG payloads for GpuCheck without the
 * reader. Imports memory, format-spec and runtime only.
 */
package io.pinshard.cuda.nvjpeg;
