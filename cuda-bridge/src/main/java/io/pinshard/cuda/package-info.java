/**
 * Moving batches to a GPU: device backends (CUDA through JavaCPP's presets, and a host one), pinned and registered
 * host memory, the augment kernel, nvJPEG batched decode from mapped shards, and GPU-utilisation sampling; GpuCheck, the
 * measuring tool gpu-check.sh runs, lives in the test jar. Imports memory, datawait and format-spec only.
 */
package io.pinshard.cuda;
