package io.pinshard.writer.convert;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.format.DatasetManifest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The append-only journal: what a crash can leave is read back, what damage leaves is refused by line. */
class ConvertJournalTest {
    @TempDir
    Path tmp;

    private static ConvertJournal.JournalShard shard(int n, long nextInput, int rejectedBefore) {
        return new ConvertJournal.JournalShard(new DatasetManifest.ShardEntry("shard-%05d.pinshard".formatted(n), 1,
            4096 + n, "0000000" + n), nextInput, rejectedBefore);
    }

    private static DatasetManifest.Rejected rejected(String key) {
        return new DatasetManifest.Rejected(key, "not an image");
    }

    /** Three shards; the second was closed after two rejections, the third after one more. */
    private Path writeThreeShards() throws IOException {
        try (ConvertJournalWriter writer = ConvertJournalWriter.start(tmp, "run-1", null, List.of(), List.of())) {
            writer.append(shard(0, 1, 0), List.of());
            writer.append(shard(1, 4, 2), List.of(rejected("a"), rejected("b")));
            writer.append(shard(2, 6, 3), List.of(rejected("c")));
        }
        return tmp.resolve(ConvertJournal.FILE_NAME);
    }

    @Test
    void appendedLinesReadBackWithCursorsAndRejectionsInOrder() throws IOException {
        writeThreeShards();
        ConvertJournal journal = ConvertJournal.read(tmp);
        assertEquals("run-1", journal.runFingerprint());
        assertEquals(List.of(shard(0, 1, 0), shard(1, 4, 2), shard(2, 6, 3)), journal.shards());
        assertEquals(List.of(rejected("a"), rejected("b"), rejected("c")), journal.rejected());
        assertNull(ConvertJournal.read(tmp.resolve("elsewhere")));
    }

    @Test
    void eachShardAppendsOneLineAndRewritesNothing() throws IOException {
        Path file = writeThreeShards();
        byte[] before = Files.readAllBytes(file);
        try (ConvertJournalWriter writer = reopenForAppend()) {
            writer.append(shard(3, 7, 3), List.of());
        }
        byte[] after = Files.readAllBytes(file);
        assertArrayEquals(before, Arrays.copyOf(after, before.length), "earlier lines untouched");
        assertEquals(5, new String(after, StandardCharsets.UTF_8).lines().count());
    }

    private ConvertJournalWriter reopenForAppend() throws IOException {
        ConvertJournal journal = ConvertJournal.read(tmp);
        return ConvertJournalWriter.start(tmp, journal.runFingerprint(), journal.inputs(), journal.shards(), journal.rejected());
    }

    @Test
    void aTornLastLineIsIgnored() throws IOException {
        Path file = writeThreeShards();
        byte[] whole = Files.readAllBytes(file);
        // Every cut inside the last line (the append a kill -9 interrupted) reads as the first two shards.
        int lastLineStart = new String(whole, StandardCharsets.UTF_8).lastIndexOf('\n', whole.length - 2) + 1;
        for (int cut = lastLineStart; cut < whole.length; cut++) {
            Files.write(file, Arrays.copyOf(whole, cut));
            ConvertJournal journal = ConvertJournal.read(tmp);
            assertEquals(List.of(shard(0, 1, 0), shard(1, 4, 2)), journal.shards(), "cut at " + cut);
            assertEquals(2, journal.rejected().size(), "cut at " + cut);
        }
    }

    @Test
    void aLastLineWithABadChecksumIsIgnoredAndCompactedAway() throws IOException {
        Path file = writeThreeShards();
        byte[] whole = Files.readAllBytes(file);
        whole[whole.length - 3] ^= 1; // inside the last line's JSON
        Files.write(file, whole);
        try (ConvertJournalWriter writer = reopenForAppend()) {
            writer.append(shard(2, 6, 3), List.of(rejected("c")));
        }
        assertEquals(3, ConvertJournal.read(tmp).shards().size());
    }

    @Test
    void aDamagedLineBeforeTheLastIsRefusedNamingFileAndLine() throws IOException {
        Path file = writeThreeShards();
        String text = Files.readString(file);
        int third = text.indexOf('\n', text.indexOf('\n') + 1) + 1; // line 3: shard 1
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        bytes[third + 20] ^= 4;
        Files.write(file, bytes);
        IOException e = assertThrows(IOException.class, () -> ConvertJournal.read(tmp));
        assertTrue(e.getMessage().contains(file.toString()) && e.getMessage().contains("line 3"), e.getMessage());
    }

    @Test
    void aJournalWithoutAnIntactHeaderIsRefused() throws IOException {
        Path file = tmp.resolve(ConvertJournal.FILE_NAME);
        // What an older pinshard wrote: one JSON document, no checksums.
        Files.writeString(file, "{\"runFingerprint\": \"0000\", \"shards\": [], \"rejected\": []}\n");
        IOException e = assertThrows(IOException.class, () -> ConvertJournal.read(tmp));
        assertTrue(e.getMessage().contains("line 1"), e.getMessage());
        Files.write(file, ConvertJournal.JournalLine.encode("{\"journal\":\"other\",\"version\":2}".getBytes(
            StandardCharsets.UTF_8)), StandardOpenOption.TRUNCATE_EXISTING);
        e = assertThrows(IOException.class, () -> ConvertJournal.read(tmp));
        assertTrue(e.getMessage().contains("not a version 2 convert journal header"), e.getMessage());
    }

    @Test
    void aShardLineWithoutItsShardIsRefused() throws IOException {
        Path file = writeThreeShards();
        Files.write(file, ConvertJournal.JournalLine.encode("{\"nextInput\":9}".getBytes(StandardCharsets.UTF_8)),
            StandardOpenOption.APPEND);
        Files.write(file, ConvertJournal.shardLine(shard(3, 10, 3), List.of()), StandardOpenOption.APPEND);
        IOException e = assertThrows(IOException.class, () -> ConvertJournal.read(tmp));
        assertTrue(e.getMessage().contains("line 5: shard entry is missing"), e.getMessage());
    }
}
