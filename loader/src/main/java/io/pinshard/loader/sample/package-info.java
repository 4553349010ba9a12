/**
 * The sampler: an epoch's order of records per rank (EpochPlan), the plain and the elastic split over ranks, and
 * SplitMix, the mixing every random decision derives from. It may import options and the JDK only.
 */
package io.pinshard.loader.sample;
