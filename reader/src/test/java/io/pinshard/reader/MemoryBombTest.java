package io.pinshard.reader;

import static java.nio.ByteOrder.LITTLE_ENDIAN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.format.DatasetManifest;
import io.pinshard.format.IndexEntryDescriptor;
import io.pinshard.format.Json;
import io.pinshard.format.ShardFormatException;
import io.pinshard.format.ShardFormatException.Kind;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A re-sealed index entry claiming a huge shape (valid CRCs, within the format's own limits) is refused at
 * open, by the reader and by verify, instead of making every loader worker reserve gigabytes of scratch.
 */
class MemoryBombTest {
    @TempDir
    Path dir;
    String shardName;

    @BeforeEach
    void write() throws IOException {
        TestImages.writeDataset(dir, 6, 1 << 20);
        shardName = Json.readManifest(dir).shards().get(0).file();
    }

    @Test
    void lz4EntryClaimingMoreThanItsPayloadCanHoldIsRefusedAtFirstUse() throws IOException {
        reshape(1, 65_535, 10_922, 3); // record 1 is lz4 with a payload of a few dozen bytes
        ShardFormatException e = assertThrows(ShardFormatException.class, () -> TestImages.openAndTouchEveryShard(dir));
        assertEquals(Kind.BAD_INDEX_ENTRY, e.kind());
        assertEquals(1, e.record());
        assertTrue(e.getMessage().contains(shardName) && e.getMessage().contains("lz4"), e.getMessage());
        List<Problem> problems = new DatasetVerifier().verify(dir);
        assertTrue(problems.stream().anyMatch(p -> p.record() == 1 && p.kind() == Kind.BAD_INDEX_ENTRY), problems.toString());
    }

    @Test
    void shapesPastTheDatasetsOwnPreprocessingLimitsAreRefusedAtFirstUseAndByVerify() throws IOException {
        preprocessing(Map.of("shorterSide", 7, "maxAspect", 4.0, "upscale", false));
        TestImages.openAndTouchEveryShard(dir); // every record as written is within the limits
        reshape(1, 9, 12, 3);
        ShardFormatException shorter = assertThrows(ShardFormatException.class, () -> TestImages.openAndTouchEveryShard(dir));
        assertEquals(1, shorter.record());
        assertTrue(shorter.getMessage().contains("shorter side 9") && shorter.getMessage().contains(shardName),
            shorter.getMessage());
        List<Problem> problems = new DatasetVerifier().verify(dir);
        assertTrue(problems.stream().anyMatch(p -> p.record() == 1 && p.detail().contains("shorter side 9")),
            "verify applies the same limits as open: " + problems);
        reshape(1, 4, 30, 3);
        ShardFormatException aspect = assertThrows(ShardFormatException.class, () -> TestImages.openAndTouchEveryShard(dir));
        assertEquals(1, aspect.record());
        assertTrue(aspect.getMessage().contains("aspect"), aspect.getMessage());
    }

    private void reshape(int record, int height, int width, int channels) throws IOException {
        ShardSurgery surgery = new ShardSurgery(dir, shardName);
        int entry = surgery.entry(record);
        surgery.bytes.putInt(entry + IndexEntryDescriptor.HEIGHT_OFFSET, height, LITTLE_ENDIAN);
        surgery.bytes.putInt(entry + IndexEntryDescriptor.WIDTH_OFFSET, width, LITTLE_ENDIAN);
        surgery.bytes.putByte(entry + IndexEntryDescriptor.CHANNELS_OFFSET, (byte) channels);
        surgery.seal();
    }

    private void preprocessing(Map<String, Object> preprocessing) throws IOException {
        Path file = dir.resolve(DatasetManifest.FILE_NAME);
        DatasetManifest m = Json.readManifest(dir);
        Map<String, Object> metadata = new LinkedHashMap<>(m.metadata() == null ? Map.of() : m.metadata());
        metadata.put("preprocessing", preprocessing);
        Files.write(file, Json.pretty(new DatasetManifest(m.format(), m.formatVersion(), m.records(), m.bytes(),
            m.classes(), m.shards(), metadata, m.rejected())));
    }
}
