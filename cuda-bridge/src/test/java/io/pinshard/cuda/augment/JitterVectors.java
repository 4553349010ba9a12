package io.pinshard.cuda.augment;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes {@code python/tests/jitter_vectors.json}: {@link JitterParams}' draws and factors for a spread of (seed,
 * epoch, record), float32 values as their bit patterns, which the Python path's test ({@code test_jitter.py}) checks
 * its own implementation of the rule against. {@code JitterVectorsTest} fails when the committed file differs from
 * this text; {@code main PATH} (or the test with {@code -Dpinshard.regenerateJitterVectors=true}) rewrites it.
 */
public final class JitterVectors {
    static final long[] SEEDS = {0, 1, 42, -1, Long.MIN_VALUE, 0x0123456789ABCDEFL};
    static final long[] EPOCHS = {0, 1, 7, 1_000_000};
    static final long[] RECORDS = {0, 1, 255, 1L << 40, Long.MAX_VALUE};
    /** (draw, low, high): the three strengths of AugmentSpec, hue's [-h, h] and a torchvision range past 1 (b = 1.5). */
    static final Object[][] RANGES = {
        {JitterParams.BRIGHTNESS, 1f - 0.4f, 1f + 0.4f},
        {JitterParams.CONTRAST, 1f - 0.25f, 1f + 0.25f},
        {JitterParams.SATURATION, 1f - 0.9f, 1f + 0.9f},
        {JitterParams.HUE, -0.1f, 0.1f},
        {JitterParams.BRIGHTNESS, 0f, 2.5f},
    };

    private JitterVectors() {
    }

    /** The text of {@code jitter_vectors.json}. */
    static String text() {
        StringBuilder out = new StringBuilder();
        out.append("{\n  \"generated_by\": \"io.pinshard.cuda.augment.JitterVectors (cuda-bridge tests) from JitterParams:"
            + " do not edit\",\n");
        out.append("  \"ranges\": [");
        for (int r = 0; r < RANGES.length; r++) {
            out.append(r == 0 ? "\n" : ",\n").append("    {\"draw\": ").append(RANGES[r][0]).append(", \"low_bits\": ")
                .append(Float.floatToRawIntBits((Float) RANGES[r][1])).append(", \"high_bits\": ")
                .append(Float.floatToRawIntBits((Float) RANGES[r][2])).append('}');
        }
        out.append("\n  ],\n  \"cases\": [");
        boolean first = true;
        for (long seed : SEEDS) {
            for (long epoch : EPOCHS) {
                for (long record : RECORDS) {
                    out.append(first ? "\n" : ",\n").append("    {\"seed\": ").append(seed).append(", \"epoch\": ")
                        .append(epoch).append(", \"record\": ").append(record).append(", \"uniform_bits\": [");
                    first = false;
                    for (int k = 0; k <= JitterParams.GRAYSCALE; k++) {
                        out.append(k == 0 ? "" : ", ")
                            .append(Float.floatToRawIntBits(JitterParams.uniform(seed, epoch, record, k)));
                    }
                    out.append("], \"factor_bits\": [");
                    for (int r = 0; r < RANGES.length; r++) {
                        float f = JitterParams.factor(seed, epoch, record, (Integer) RANGES[r][0], (Float) RANGES[r][1],
                            (Float) RANGES[r][2]);
                        out.append(r == 0 ? "" : ", ").append(Float.floatToRawIntBits(f));
                    }
                    out.append("]}");
                }
            }
        }
        return out.append("\n  ]\n}\n").toString();
    }

    public static void main(String[] args) throws IOException {
        Files.writeString(Path.of(args[0]), text(), StandardCharsets.UTF_8);
    }
}
