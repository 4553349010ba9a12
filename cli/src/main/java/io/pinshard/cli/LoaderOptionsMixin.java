package io.pinshard.cli;

import io.pinshard.loader.options.LoaderOptions;
import picocli.CommandLine.Mixin;

/**
 * The loader's options on the command line, shared by {@code bench} and {@code serve}: one mixin per group of
 * {@link LoaderOptions}, as the stage that reads it sees it (sampling, augment, ring, policy).
 */
final class LoaderOptionsMixin {
    @Mixin
    SamplingOptionsMixin sampling = new SamplingOptionsMixin();

    @Mixin
    AugmentOptionsMixin augment = new AugmentOptionsMixin();

    @Mixin
    RingOptionsMixin ring = new RingOptionsMixin();

    @Mixin
    PolicyOptionsMixin policy = new PolicyOptionsMixin();

    /**
     * A builder holding these options; callers add what is theirs (allocator, data-wait guard).
     *
     * @throws IllegalArgumentException naming the option when a range is not two numbers
     */
    LoaderOptions.Builder builder() {
        LoaderOptions.Builder builder = LoaderOptions.builder();
        // In the order the single mixin parsed them, so that of two bad values the same one is named.
        sampling.applyTo(builder);
        policy.applyTo(builder);
        augment.applyTo(builder);
        ring.applyTo(builder);
        return builder;
    }
}
