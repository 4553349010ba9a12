package io.pinshard.reader;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.format.ShardFormatException;
import org.junit.jupiter.api.Test;

/** {@link Dataset#open(String)} without a provider for the location's scheme on the class path (the reader's own). */
class RemoteLocationTest {
    @Test
    void anS3LocationWithoutTheS3ModuleSaysWhatIsMissing() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Dataset.open("s3://bucket/set"));
        assertTrue(e.getMessage().contains("s3://bucket/set") && e.getMessage().contains("pinshard-s3"), e.getMessage());
    }

    @Test
    void aPlainPathIsStillADirectory() {
        ShardFormatException e = assertThrows(ShardFormatException.class, () -> Dataset.open("/no/such/dataset"));
        assertTrue(e.getMessage().contains("/no/such/dataset: does not exist"), e.getMessage());
    }
}
