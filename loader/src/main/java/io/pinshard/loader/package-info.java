/**
 * The loader's API and façade: {@link io.pinshard.loader.Loader} (opens, wires and closes the rest), its
 * {@link io.pinshard.loader.Epoch}s, statistics, JFR events and {@link io.pinshard.loader.RecordCropper}. It may
 * import every package of the loader below it (options, ring, work, sample, augment), the reader, memory and the
 * JDK; only metrics imports it, and no other module imports the loader's work, sample or augment packages
 * (PackageCyclesTest in testkit).
 */
package io.pinshard.loader;
