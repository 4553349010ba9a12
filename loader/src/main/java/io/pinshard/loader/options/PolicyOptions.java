package io.pinshard.loader.options;

import static io.pinshard.loader.options.OptionChecks.require;

import io.pinshard.reader.CrcCheck;
import java.util.Objects;

/**
 * What the loader does about damage and slowness: which payloads it checks, what a corrupt record costs, and when a
 * starved trainer is warned. A part of {@link LoaderOptions}; build it with {@link LoaderOptions#builder()}.
 *
 * @param crcCheck             which payloads get their CRC32C checked before decoding ({@link CrcCheck#AUTO}: jpeg
 *                             and lz4, where it costs little; see docs/loader.md)
 * @param errorPolicy          fail or skip corrupt records
 * @param dataWaitWarnFraction warn when data-wait exceeds this fraction of step time over a window (0.10)
 * @param dataWaitWindow       steps per data-wait window
 */
public record PolicyOptions(CrcCheck crcCheck, ErrorPolicy errorPolicy, double dataWaitWarnFraction,
                            int dataWaitWindow) {
    public PolicyOptions {
        Objects.requireNonNull(crcCheck, "crcCheck");
        Objects.requireNonNull(errorPolicy, "errorPolicy");
        require(dataWaitWarnFraction > 0, "data-wait warning fraction must be positive");
        require(dataWaitWindow >= 1, "data-wait window must be at least 1 step");
    }
}
