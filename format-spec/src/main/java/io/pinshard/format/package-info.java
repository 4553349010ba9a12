/**
 * The shard format of SPEC.md as code: the *Descriptor layouts with their check validators, flyweights and encoders
 * over them, the manifest, CRC32C, the error every reader reports and the dataset directory's write lock (one
 * writer per directory, {@link io.pinshard.format.DatasetWriteLock}). The bottom of the house: it imports only the
 * JDK, Agrona and Jackson, never another pinshard module.
 */
package io.pinshard.format;
