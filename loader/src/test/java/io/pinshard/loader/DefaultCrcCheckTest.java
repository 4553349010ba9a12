package io.pinshard.loader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.format.Codec;
import io.pinshard.format.ShardFormatException;
import io.pinshard.loader.options.ErrorPolicy;
import io.pinshard.loader.options.LoaderOptions;
import io.pinshard.reader.CrcCheck;
import io.pinshard.reader.Dataset;
import io.pinshard.reader.RecordDecoder;
import io.pinshard.reader.RecordView;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * With default options a changed byte inside a compressed payload (index untouched) never reaches a batch:
 * {@link CrcCheck#AUTO} checks jpeg and lz4 payloads, whose corruption would otherwise decode to plausible garbage.
 */
class DefaultCrcCheckTest {
    private static final int BAD = 13;

    @TempDir
    Path temp;

    private Path flipped(Codec codec) throws Exception {
        Path dir = TestDatasets.write(temp.resolve(codec.label()), 30, codec, 3, 1 << 20);
        TestDatasets.flipPayloadByte(dir, BAD, length -> length / 2, 0x10); // mid-stream: entropy data, lz4 sequences
        return dir;
    }

    @ParameterizedTest
    @EnumSource(value = Codec.class, names = {"JPEG", "LZ4"})
    void compressedCorruptionFailsTheEpochWithDefaultOptions(Codec codec) throws Exception {
        Path dir = flipped(codec);
        LoaderOptions defaults = TestDatasets.small().build();
        assertEquals(CrcCheck.AUTO, defaults.policy().crcCheck());
        try (Dataset dataset = Dataset.open(dir); Loader loader = Loader.open(dataset, defaults);
             Epoch epoch = loader.epoch(0)) {
            LoaderException e = assertThrows(LoaderException.class, () -> EpochContents.of(epoch));
            ShardFormatException cause = (ShardFormatException) e.getCause();
            assertEquals(ShardFormatException.Kind.CHECKSUM_MISMATCH, cause.kind());
            assertEquals(BAD, cause.record());
        }
        try (Dataset dataset = Dataset.open(dir); Loader loader = Loader.open(dataset,
                TestDatasets.small().errorPolicy(ErrorPolicy.SKIP).build())) {
            try (Epoch epoch = loader.epoch(0)) {
                EpochContents contents = EpochContents.of(epoch);
                assertFalse(contents.allIds().contains((long) BAD), "the corrupt record was served");
            }
            assertTrue(loader.stats().skippedRecords() >= 1);
        }
        try (Dataset dataset = Dataset.open(dir)) {
            RecordView view = dataset.record(BAD, new RecordView());
            UnsafeBuffer out = new UnsafeBuffer(ByteBuffer.allocateDirect(view.decodedBytes()));
            ShardFormatException e = assertThrows(ShardFormatException.class,
                () -> new RecordDecoder(CrcCheck.AUTO).decode(view, out, 0));
            assertEquals(ShardFormatException.Kind.CHECKSUM_MISMATCH, e.kind());
        }
    }

    @ParameterizedTest
    @EnumSource(value = Codec.class, names = "RAW")
    void rawIsCheckedWhenAskedFor(Codec codec) throws Exception {
        Path dir = flipped(codec);
        try (Dataset dataset = Dataset.open(dir); Loader loader = Loader.open(dataset,
                TestDatasets.small().crcCheck(CrcCheck.ALWAYS).build()); Epoch epoch = loader.epoch(0)) {
            LoaderException e = assertThrows(LoaderException.class, () -> EpochContents.of(epoch));
            assertEquals(ShardFormatException.Kind.CHECKSUM_MISMATCH, ((ShardFormatException) e.getCause()).kind());
        }
    }
}
