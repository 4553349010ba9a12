/**
 * The sampler: an epoch's order of records per rank (EpochPlan over Feistel and WindowOrder, evaluated per position), the
 * plain and the elastic split over ranks (ElasticSplit, PositionRuns), and
 * SplitMix, the mixing every random decision derives from. It may import options and the JDK only.
 */
package io.pinshard.loader.sample;
