/**
 * The training data loader: {@link io.pinshard.loader.Loader} (the façade that opens, wires and closes the
 * rest), its options, epochs, batches in the off-heap ring, checkpoint state and statistics, and behind them the
 * sampler, the persistent workers and their shared {@code LoaderControl}, streaming
 * prefetch, crop and resize kernels, and the JFR and Micrometer metrics. It may import the reader's datasets,
 * records and decoders, pinshard's format and memory modules, the jpeg binding, Agrona, OpenCV, Micrometer and the
 * JDK; nothing outside it imports its package-private classes, and no two of its files use each other
 * (PackageLoopsTest in jmh).
 */
package io.pinshard.reader.loader;
