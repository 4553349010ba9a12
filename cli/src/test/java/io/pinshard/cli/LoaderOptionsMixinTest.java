package io.pinshard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.reader.CrcCheck;
import io.pinshard.loader.options.LoaderMode;
import io.pinshard.loader.options.LoaderOptions;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** The augmentation options bench and serve share reach the loader as given, and bad ranges are refused. */
class LoaderOptionsMixinTest {
    @Command(name = "holder")
    static final class Holder {
        @Mixin
        LoaderOptionsMixin loader = new LoaderOptionsMixin();
    }

    private static LoaderOptions parse(String... args) {
        Holder holder = new Holder();
        new CommandLine(holder).parseArgs(args);
        return holder.loader.builder().build();
    }

    @Test
    void withoutTheOptionsTheLoadersDefaultsHold() {
        LoaderOptions defaults = LoaderOptions.builder().build();
        LoaderOptions parsed = parse();
        assertEquals(defaults.scaleMin(), parsed.scaleMin());
        assertEquals(defaults.scaleMax(), parsed.scaleMax());
        assertEquals(defaults.ratioMin(), parsed.ratioMin());
        assertEquals(defaults.ratioMax(), parsed.ratioMax());
        assertEquals(defaults.flipProbability(), parsed.flipProbability());
        assertEquals(defaults.evalCropFraction(), parsed.evalCropFraction());
        assertFalse(parsed.dropLast());
    }

    @Test
    void theAugmentationOptionsReachTheLoader() {
        LoaderOptions parsed = parse("--scale", "0.6,1.0", "--ratio", "0.8,1.25", "--flip", "0.25",
            "--eval-crop-fraction", "1.0", "--drop-last", "--eval", "--crop", "28");
        assertEquals(0.6, parsed.scaleMin());
        assertEquals(1.0, parsed.scaleMax());
        assertEquals(0.8, parsed.ratioMin());
        assertEquals(1.25, parsed.ratioMax());
        assertEquals(0.25, parsed.flipProbability());
        assertEquals(1.0, parsed.evalCropFraction());
        assertTrue(parsed.dropLast());
        assertEquals(LoaderMode.EVAL, parsed.mode());
        assertEquals(28, parsed.crop());
    }

    @Test
    void theCrcModeComesFromTheSharedOption() {
        assertEquals(CrcCheck.AUTO, parse().crcCheck());
        assertEquals(CrcCheck.NEVER, parse("--crc", "never").crcCheck());
        assertEquals(CrcCheck.ALWAYS, parse("--check-crc").crcCheck());
    }

    @Test
    void aRangeThatIsNotTwoNumbersOrNotARangeIsRefusedByName() {
        IllegalArgumentException one = assertThrows(IllegalArgumentException.class, () -> parse("--scale", "0.5"));
        assertTrue(one.getMessage().contains("--scale takes two numbers"), one.getMessage());
        IllegalArgumentException reversed = assertThrows(IllegalArgumentException.class,
            () -> parse("--scale", "0.9,0.5"));
        assertTrue(reversed.getMessage().contains("scale"), reversed.getMessage());
        assertThrows(IllegalArgumentException.class, () -> parse("--flip", "1.5"));
    }
}
