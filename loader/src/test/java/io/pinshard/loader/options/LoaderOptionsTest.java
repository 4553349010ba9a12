package io.pinshard.loader.options;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.memory.HostMemoryAllocator;
import io.pinshard.reader.CrcCheck;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/** The builder sorts every setter into the group whose stage reads it; each group refuses its own bad values. */
class LoaderOptionsTest {
    @Test
    void theDefaultsLandInTheirGroups() {
        LoaderOptions options = LoaderOptions.builder().workers(3).build();
        assertEquals(new SamplingOptions(256, SampleOrder.RANDOM, 0, false, 0, 1, 1024,
            SamplingOptions.AUTO_INTERLEAVE), options.sampling());
        assertEquals(new AugmentOptions(224, LoaderMode.TRAIN, 0.08, 1.0, 3.0 / 4.0, 4.0 / 3.0, 0.5, 0.875, true,
            Resampler.AUTO, PixelFormat.UINT8_NHWC, FieldSelection.NONE), options.augment());
        assertEquals(new RingOptions(3, 6, HostMemoryAllocator.INSTANCE, HostMemoryAllocator.INSTANCE), options.ring());
        assertEquals(new PolicyOptions(CrcCheck.AUTO, ErrorPolicy.FAIL, 0.10, 50), options.policy());
        assertEquals(224L * 224 * 3, options.augment().imageBytes());
    }

    @Test
    void everySetterReachesItsGroupAndTheBuilderRoundTrips() {
        LoaderOptions options = LoaderOptions.builder().batchSize(8).crop(32).workers(2).order(SampleOrder.QUASI_RANDOM)
            .seed(7).dropLast(true).prefetch(5).distributed(1, 3).eval().crcCheck(CrcCheck.ALWAYS)
            .errorPolicy(ErrorPolicy.SKIP).scale(0.5, 0.9).ratio(0.8, 1.2).flipProbability(0.25)
            .evalCropFraction(1.0).quasiRandomWindow(64).quasiRandomInterleave(4).reducedJpegDecode(false)
            .dataWaitWarning(0.2, 10).resampler(Resampler.OPENCV).fields("a", "b").fieldBytes(16).boxes("b", 0.5)
            .build();
        assertEquals(new SamplingOptions(8, SampleOrder.QUASI_RANDOM, 7, true, 1, 3, 64, 4), options.sampling());
        assertEquals(new AugmentOptions(32, LoaderMode.EVAL, 0.5, 0.9, 0.8, 1.2, 0.25, 1.0, false, Resampler.OPENCV,
            PixelFormat.UINT8_NHWC, new FieldSelection(List.of("a", "b"), 16, "b", 0.5)), options.augment());
        assertEquals(new RingOptions(2, 5, HostMemoryAllocator.INSTANCE, HostMemoryAllocator.INSTANCE), options.ring());
        assertEquals(new PolicyOptions(CrcCheck.ALWAYS, ErrorPolicy.SKIP, 0.2, 10), options.policy());
        assertEquals(options, options.toBuilder().build());
        assertEquals(options.sampling().withInterleave(9), options.withSampling(options.sampling().withInterleave(9))
            .sampling());
    }

    @Test
    void eachGroupRefusesItsOwnValuesInTheSameWords() {
        refused(b -> b.batchSize(0), "batch size must be 1..65536: 0");
        refused(b -> b.distributed(2, 2), "rank must be 0..1: 2");
        refused(b -> b.quasiRandomInterleave(65), "quasi-random interleave must be 1..64 windows, or 0 for auto: 65");
        refused(b -> b.crop(0), "crop must be 1..8192 pixels: 0");
        refused(b -> b.scale(0.9, 0.5), "scale must satisfy 0 < min <= max <= 1");
        refused(b -> b.flipProbability(2), "flip probability must be 0..1");
        refused(b -> b.workers(0), "workers must be 1..1024: 0");
        refused(b -> b.prefetch(2000), "prefetch must be 1..1024: 2000");
        refused(b -> b.dataWaitWarning(0.1, 0), "data-wait window must be at least 1 step");
    }

    @Test
    void aBatchThatCannotFitItsSlotIsRefusedAcrossGroups() {
        refused(b -> b.batchSize(1 << 16).crop(4096), "does not fit in 2 GiB");
        refused(b -> b.batchSize(2048).crop(8).fields("a", "b").fieldBytes(FieldSelection.MAX_BYTES_PER_SAMPLE),
            "exceed 1 GiB per batch");
    }

    private static void refused(UnaryOperator<LoaderOptions.Builder> set, String message) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> set.apply(LoaderOptions.builder()).build());
        assertTrue(e.getMessage().contains(message), e.getMessage());
    }
}
