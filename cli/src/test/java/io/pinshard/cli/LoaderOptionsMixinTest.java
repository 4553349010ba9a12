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
        assertEquals(defaults.augment().scaleMin(), parsed.augment().scaleMin());
        assertEquals(defaults.augment().scaleMax(), parsed.augment().scaleMax());
        assertEquals(defaults.augment().ratioMin(), parsed.augment().ratioMin());
        assertEquals(defaults.augment().ratioMax(), parsed.augment().ratioMax());
        assertEquals(defaults.augment().flipProbability(), parsed.augment().flipProbability());
        assertEquals(defaults.augment().evalCropFraction(), parsed.augment().evalCropFraction());
        assertFalse(parsed.sampling().dropLast());
    }

    @Test
    void theAugmentationOptionsReachTheLoader() {
        LoaderOptions parsed = parse("--scale", "0.6,1.0", "--ratio", "0.8,1.25", "--flip", "0.25",
            "--eval-crop-fraction", "1.0", "--drop-last", "--eval", "--crop", "28");
        assertEquals(0.6, parsed.augment().scaleMin());
        assertEquals(1.0, parsed.augment().scaleMax());
        assertEquals(0.8, parsed.augment().ratioMin());
        assertEquals(1.25, parsed.augment().ratioMax());
        assertEquals(0.25, parsed.augment().flipProbability());
        assertEquals(1.0, parsed.augment().evalCropFraction());
        assertTrue(parsed.sampling().dropLast());
        assertEquals(LoaderMode.EVAL, parsed.augment().mode());
        assertEquals(28, parsed.augment().crop());
    }

    @Test
    void theCrcModeComesFromTheSharedOption() {
        assertEquals(CrcCheck.AUTO, parse().policy().crcCheck());
        assertEquals(CrcCheck.NEVER, parse("--crc", "never").policy().crcCheck());
        assertEquals(CrcCheck.ALWAYS, parse("--check-crc").policy().crcCheck());
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
