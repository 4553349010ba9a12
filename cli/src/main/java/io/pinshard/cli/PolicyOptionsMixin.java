package io.pinshard.cli;

import io.pinshard.loader.options.LoaderOptions;
import io.pinshard.reader.CrcCheck;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The loader's policy group on the command line ({@link io.pinshard.loader.options.PolicyOptions}): the CRC checks;
 * the data-wait guard is set by each command for its own trainer.
 */
final class PolicyOptionsMixin {
    @Mixin
    CrcOption crc = new CrcOption();

    @Option(names = "--check-crc", description = "Same as --crc always.")
    boolean checkCrc;

    void applyTo(LoaderOptions.Builder builder) {
        builder.crcCheck(checkCrc ? CrcCheck.ALWAYS : crc.mode());
    }
}
