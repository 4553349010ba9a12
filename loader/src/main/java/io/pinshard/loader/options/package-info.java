/**
 * What a trainer hands the loader: {@link io.pinshard.loader.options.LoaderOptions}, made of one group per stage
 * that reads it ({@link io.pinshard.loader.options.SamplingOptions}, {@link io.pinshard.loader.options.AugmentOptions},
 * {@link io.pinshard.loader.options.RingOptions}, {@link io.pinshard.loader.options.PolicyOptions}), with its enums
 * (mode, order, error policy, resampler) and the checkpoint {@link io.pinshard.loader.options.LoaderState}. The floor
 * of the loader: it imports no other loader package, only the reader's CrcCheck, memory's allocators, SLF4J and the JDK.
 */
package io.pinshard.loader.options;
