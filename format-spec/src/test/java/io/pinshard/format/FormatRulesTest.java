package io.pinshard.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

/** Rules SPEC.md states that the reader and writer tests do not reach directly. */
class FormatRulesTest {
    private static final Path DIR = Path.of("some-dataset");

    @Test
    void jpegEntriesCannotClaimFourChannels() {
        UnsafeBuffer index = new UnsafeBuffer(new byte[IndexEntryDescriptor.LENGTH]);
        IndexEntryEncoder encoder = new IndexEntryEncoder().wrap(index, 0);
        encoder.clear().payload(64, 100, 0).shape(8, 8, 4).codec(Codec.JPEG).label(0).key(0, 0);
        IndexEntryFlyweight entry = new IndexEntryFlyweight().wrap(index, 0);
        ShardFormatException e = assertThrows(ShardFormatException.class,
            () -> IndexEntryDescriptor.checkEntry(entry, 64, 1024, 64, 64, 0));
        assertEquals(ShardFormatException.Kind.BAD_INDEX_ENTRY, e.kind());

        encoder.shape(8, 8, 3);
        assertEquals(164, IndexEntryDescriptor.checkEntry(entry, 64, 1024, 64, 64, 0), "3-channel jpeg is fine");
    }

    @Test
    void manifestVersionWithTooManyDigitsIsRejectedNotAnOverflow() {
        ShardFormatException e = assertThrows(ShardFormatException.class,
            () -> ManifestRules.check(DIR, manifest("99999999999.0", 1, 1000)));
        assertEquals(ShardFormatException.Kind.BAD_MANIFEST, e.kind());
        e = assertThrows(ShardFormatException.class, () -> ManifestRules.check(DIR, manifest("2.0", 1, 1000)));
        assertEquals(ShardFormatException.Kind.UNSUPPORTED_VERSION, e.kind());
        ManifestRules.check(DIR, manifest("1.7", 1, 1000)); // any minor of major 1
    }

    @Test
    void manifestCannotClaimMoreRecordsThanAShardCanIndex() {
        ShardFormatException e = assertThrows(ShardFormatException.class,
            () -> ManifestRules.check(DIR, manifest("1.0", 26, 1000)));
        assertEquals(ShardFormatException.Kind.BAD_MANIFEST, e.kind());
        ManifestRules.check(DIR, manifest("1.0", 25, 1000));
    }

    private static DatasetManifest manifest(String version, long records, long bytes) {
        return new DatasetManifest(DatasetManifest.FORMAT, version, records, bytes, List.of(),
            List.of(new DatasetManifest.ShardEntry("shard-00000.pinshard", records, bytes, "0123abcd")), Map.of(),
            List.of());
    }
}
