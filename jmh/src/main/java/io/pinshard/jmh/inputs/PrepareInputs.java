package io.pinshard.jmh.inputs;

import io.pinshard.baseline.inputs.ImageCollection;
import io.pinshard.format.Codec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Prepares every benchmark input before JMH starts, so the forks find them cached and the log stays
 * readable. Usage: {@code PrepareInputs RECORDS TINY_RECORDS [DESCRIPTION_FILE]}; writes the inputs'
 * one-line description to DESCRIPTION_FILE for the results table.
 */
public final class PrepareInputs {
    private PrepareInputs() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length < 2) {
            System.err.println("usage: PrepareInputs RECORDS TINY_RECORDS [DESCRIPTION_FILE]");
            System.exit(2);
        }
        int records = Integer.parseInt(args[0]);
        int tinyRecords = Integer.parseInt(args[1]);
        BenchmarkInputs inputs = BenchmarkInputs.prepareDefault();
        for (Codec codec : Codec.values()) {
            inputs.dataset(codec, records, System.err);
        }
        BenchmarkInputs.tinyDataset(ImageCollection.defaultCacheRoot().resolve("jmh-inputs"), tinyRecords, System.err);
        String description = inputs.collection().images().size() + " distinct " + inputs.collection().description()
            + "; shard datasets hold " + records + " records (the distinct images replicated), shorter side "
            + BenchmarkInputs.SHORTER_SIDE + " px, JPEG quality " + BenchmarkInputs.JPEG_QUALITY;
        if (args.length > 2) {
            Files.writeString(Path.of(args[2]), description + System.lineSeparator());
        }
        System.err.println("inputs: ready - " + description);
    }
}
