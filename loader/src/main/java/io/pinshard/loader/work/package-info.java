/**
 * The work of a run: LoaderRun and LoaderControl (the state the workers and the consumer share), the persistent
 * workers, one sample's decode-crop-write and streaming shard prefetch. It may import ring, sample, augment,
 * options, the reader, memory, format-spec and Agrona; never the loader's API package above it.
 */
package io.pinshard.loader.work;
