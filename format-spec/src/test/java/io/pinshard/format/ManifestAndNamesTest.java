package io.pinshard.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Hostile manifests and names: clear errors, nothing unescaped on a terminal. */
class ManifestAndNamesTest {
    private static final Path DIR = Path.of("some-dataset");

    @Test
    void aNullShardEntryIsABadManifestNotANullPointer(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve(DatasetManifest.FILE_NAME), "{\"format\":\"pinshard-dataset\",\"formatVersion\":\"1.0\","
            + "\"records\":0,\"bytes\":0,\"classes\":[],\"shards\":[null]}");
        ShardFormatException e = assertThrows(ShardFormatException.class, () -> Json.readManifest(dir));
        assertEquals(ShardFormatException.Kind.BAD_MANIFEST, e.kind());
        assertTrue(e.getMessage().contains("shards[0] is null"), e.getMessage());
        assertFalse(e.getMessage().contains("NullPointer"), e.getMessage());
    }

    /** Values of the wrong JSON type are refused, not coerced: "12" or 12.5 records, a numeric version or checksum. */
    @Test
    void manifestValuesOfTheWrongTypeAreRefusedNotCoerced(@TempDir Path dir) throws Exception {
        String sound = "{\"format\":\"pinshard-dataset\",\"formatVersion\":\"1.0\",\"records\":0,\"bytes\":0,"
            + "\"classes\":[],\"shards\":[]}";
        Files.writeString(dir.resolve(DatasetManifest.FILE_NAME), sound);
        assertEquals(0, Json.readManifest(dir).records(), "the sound manifest reads");
        for (String[] change : new String[][] {{"\"records\":0", "\"records\":\"0\""}, {"\"records\":0", "\"records\":0.5"},
                {"\"formatVersion\":\"1.0\"", "\"formatVersion\":1.0"}, {"\"bytes\":0", "\"bytes\":\"0\""},
                {"\"shards\":[]", "\"shards\":[{\"file\":\"shard-00000.pinshard\",\"records\":1,\"bytes\":64,\"crc32c\":12345678}]"}}) {
            Files.writeString(dir.resolve(DatasetManifest.FILE_NAME), sound.replace(change[0], change[1]));
            ShardFormatException e = assertThrows(ShardFormatException.class, () -> Json.readManifest(dir), change[1]);
            assertEquals(ShardFormatException.Kind.BAD_MANIFEST, e.kind(), e.getMessage());
        }
    }

    @Test
    void aNullClassNameIsABadManifest() {
        ShardFormatException e = assertThrows(ShardFormatException.class, () -> ManifestRules.check(DIR,
            new DatasetManifest(DatasetManifest.FORMAT, "1.0", 0, 0, Arrays.asList("cat", null), List.of(), Map.of(),
                List.of())));
        assertEquals(ShardFormatException.Kind.BAD_MANIFEST, e.kind());
        assertTrue(e.getMessage().contains("classes[1] is null"), e.getMessage());
    }

    @Test
    void controlCharactersInAShardNameAreABadManifestNamedVisibly() {
        for (String name : List.of("shard\u0000.pinshard", "\u001b]0;owned\u0007.pinshard", "a\nb.pinshard")) {
            ShardFormatException e = assertThrows(ShardFormatException.class, () -> ManifestRules.check(DIR, manifest(name)));
            assertEquals(ShardFormatException.Kind.BAD_MANIFEST, e.kind(), e.getMessage());
            assertTrue(e.getMessage().contains("control character"), e.getMessage());
            assertTrue(e.getMessage().chars().noneMatch(Character::isISOControl), "escaped: " + e.getMessage());
        }
    }

    @Test
    void exceptionMessagesEscapeWhatTheyQuote() {
        ShardFormatException e = new ShardFormatException(ShardFormatException.Kind.BAD_HEADER, "dir\u001b[31m",
            "shard\u009b2J", 3, "key x\u202eyz", null);
        assertEquals("dataset dir\\x1b[31m: shard shard\\x9b2J: record 3: key x\\u202eyz [BAD_HEADER]", e.getMessage());
    }

    @Test
    void printableLeavesTextAloneAndEscapesControls() {
        String plain = "shard-00001.pinshard caf\u00e9 \u732b \ud83d\udc08";
        assertSame(plain, Printable.escape(plain), "letters, CJK and emoji print as they are");
        assertEquals("a\\x1b[2Jb\\tc\\nd\\x7f\\x00\\u2028\\ud800", Printable.escape("a\u001b[2Jb\tc\nd\u007f\u0000\u2028\ud800"));
        assertEquals(null, Printable.escape(null));
    }

    /** JSON the project writes (manifests, metadata, --json lines) carries no character a terminal acts on. */
    @Test
    void jsonEscapesWhatATerminalWouldActOnAndParsesBackToTheSameText() throws java.io.IOException {
        String hostile = "t\u001b]0;x\u0007 \u009b2J \u007f \u202eab\u2066 caf\u00e9 \u732b \ud83d\udc08";
        String json = new String(Json.compact(java.util.Map.of("name", hostile)), java.nio.charset.StandardCharsets.UTF_8);
        assertEquals("{\"name\":\"t\\u001B]0;x\\u0007 \\u009B2J \\u007F \\u202Eab\\u2066 caf\u00e9 \u732b \ud83d\udc08\"}",
            json, "controls, DEL, C1 and bidi controls escaped; letters, CJK and emoji as they are");
        assertEquals(hostile, Json.parseObject(json.getBytes(java.nio.charset.StandardCharsets.UTF_8)).get("name"));
    }

    @Test
    void headerShardNumbersAreExpectedPerPartPrefix() {
        List<DatasetManifest.ShardEntry> shards = List.of(entry("shard-00000.pinshard"), entry("shard-00001.pinshard"),
            entry("part-00000-of-00002-shard-00000.pinshard"), entry("part-00000-of-00002-shard-00001.pinshard"),
            entry("part-00001-of-00002-shard-00000.pinshard"), entry("other.pinshard"));
        assertEquals(List.of(0, 1, 0, 1, 0, 2),
            Arrays.stream(ManifestRules.expectedShardNumbers(shards)).boxed().toList());
        ShardFormatException e = assertThrows(ShardFormatException.class,
            () -> ManifestRules.checkShardNumber("d", "shard-00001.pinshard", 1, 0));
        assertEquals(ShardFormatException.Kind.MANIFEST_MISMATCH, e.kind());
    }

    @Test
    void labelsMustNameAClassWhenThereIsAClassList() {
        IndexEntryDescriptor.checkLabel(-1, 2);
        IndexEntryDescriptor.checkLabel(1, 2);
        IndexEntryDescriptor.checkLabel(1000, 0); // no class list: any label
        for (int label : new int[] {2, 3, 1000, Integer.MAX_VALUE, -2}) {
            ShardFormatException e = assertThrows(ShardFormatException.class, () -> IndexEntryDescriptor.checkLabel(label, 2));
            assertEquals(ShardFormatException.Kind.BAD_INDEX_ENTRY, e.kind());
        }
    }

    @Test
    void anLz4EntryCannotClaimMoreThan255BytesPerPayloadByte() {
        UnsafeBuffer index = new UnsafeBuffer(new byte[IndexEntryDescriptor.LENGTH]);
        IndexEntryFlyweight entry = new IndexEntryFlyweight().wrap(index, 0);
        IndexEntryEncoder encoder = new IndexEntryEncoder().wrap(index, 0).clear().payload(64, 100, 0).codec(Codec.LZ4)
            .label(0).key(0, 0);
        encoder.shape(85, 100, 3); // 25,500 bytes from 100: the most an LZ4 block can expand
        IndexEntryDescriptor.checkEntry(entry, 64, 1024, 64, 64, 0);
        encoder.shape(65535, 10922, 3); // the memory bomb of issue 10: 2 GiB claimed by a tiny block
        ShardFormatException e = assertThrows(ShardFormatException.class,
            () -> IndexEntryDescriptor.checkEntry(entry, 64, 1024, 64, 64, 0));
        assertEquals(ShardFormatException.Kind.BAD_INDEX_ENTRY, e.kind());
    }

    @Test
    void theEncoderWritesEveryFieldWhereTheDecoderReadsIt() {
        UnsafeBuffer index = new UnsafeBuffer(new byte[IndexEntryDescriptor.LENGTH]);
        Arrays.fill(index.byteArray(), (byte) 0x5A);
        new IndexEntryEncoder().wrap(index, 0).clear().payload(0x1_0000_0040L, 0xFFFF_FFF0, 0xCAFEBABE)
            .shape(65535, 7, 4).codec(Codec.JPEG).label(-1).key(0xFFFF_FFFEL, 0xFFFF);
        IndexEntryFlyweight entry = new IndexEntryFlyweight().wrap(index, 0);
        assertEquals(0x1_0000_0040L, entry.payloadOffset());
        assertEquals(0xFFFF_FFF0L, entry.payloadLength());
        assertEquals(0xCAFEBABE, entry.payloadCrc());
        assertEquals(65535, entry.height());
        assertEquals(7, entry.width());
        assertEquals(4, entry.channels());
        assertEquals(Codec.JPEG.id(), entry.codecId());
        assertEquals(-1, entry.label());
        assertEquals(0xFFFF_FFFEL, entry.keyOffset());
        assertEquals(0xFFFF, entry.keyLength());
        assertEquals(0, entry.reserved(), "clear() zeroes the reserved bytes");
    }

    private static DatasetManifest.ShardEntry entry(String file) {
        return new DatasetManifest.ShardEntry(file, 0, 128, "0123abcd");
    }

    private static DatasetManifest manifest(String shardName) {
        return new DatasetManifest(DatasetManifest.FORMAT, "1.0", 0, 128, List.of(),
            List.of(new DatasetManifest.ShardEntry(shardName, 0, 128, "0123abcd")), Map.of(), List.of());
    }
}
