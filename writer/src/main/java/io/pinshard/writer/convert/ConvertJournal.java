package io.pinshard.writer.convert;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.pinshard.format.Crc32c;
import io.pinshard.format.DatasetManifest;
import io.pinshard.format.Json;
import io.pinshard.writer.Durability;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * The resume journal of an unfinished conversion, {@value #FILE_NAME} in the output directory, as read
 * back: for each finished shard, how many inputs had been consumed and how many rejected when it was
 * closed, so a rerun can continue after any prefix of intact shards and produce the same bytes as an
 * uninterrupted run. The file is append-only, one checksummed line per event ({@link JournalLine});
 * {@link ConvertJournalWriter} writes it. Deleted once the manifest is written.
 *
 * @param runFingerprint identifies inputs and output-shaping options; a journal of another run is never used
 * @param inputs         the {@link InputRecord} digest of the inputs as they were when the run started (null in a
 *                       journal of a version that recorded none): a resume over changed inputs is refused
 * @param shards         finished shards, in order
 * @param rejected       every rejection up to the last finished shard, in input order
 */
record ConvertJournal(String runFingerprint, String inputs, List<JournalShard> shards, List<DatasetManifest.Rejected> rejected) {
    static final String FILE_NAME = "convert-journal.json";
    static final String KIND = "pinshard-convert-journal";
    static final int VERSION = 2;

    /** A finished shard and the input cursor right after it. */
    @JsonPropertyOrder({"shard", "nextInput", "rejectedBefore"})
    record JournalShard(DatasetManifest.ShardEntry shard, long nextInput, int rejectedBefore) {
    }

    /** The first line: which run this journal belongs to. */
    @JsonPropertyOrder({"journal", "version", "runFingerprint", "inputs"})
    record Header(String journal, int version, String runFingerprint, String inputs) {
    }

    /** One line per published shard, with the inputs rejected since the previous shard's line. */
    @JsonPropertyOrder({"shard", "nextInput", "rejected"})
    record ShardLine(DatasetManifest.ShardEntry shard, long nextInput, List<DatasetManifest.Rejected> rejected) {
    }

    /**
     * Reads the journal of {@code directory}, null when there is none. A last line cut short by a crash
     * (no newline, or a checksum that does not match) is ignored; any other bad line is refused.
     *
     * @throws IOException naming the file and line when the journal is not one this version wrote intact
     */
    static ConvertJournal read(Path directory) throws IOException {
        Path file = directory.resolve(FILE_NAME);
        if (!Files.isRegularFile(file)) {
            return null;
        }
        List<byte[]> lines = JournalLine.intactLines(file, Files.readAllBytes(file));
        if (lines.isEmpty()) {
            // The header is written atomically with the file, so an intact journal always has one.
            throw new IOException(file + " line 1: no intact journal header");
        }
        Header header = parse(file, 1, lines.get(0), Header.class);
        if (!KIND.equals(header.journal()) || header.version() != VERSION || header.runFingerprint() == null) {
            throw new IOException(file + " line 1: not a version " + VERSION + " convert journal header");
        }
        List<JournalShard> shards = new ArrayList<>(lines.size() - 1);
        List<DatasetManifest.Rejected> rejected = new ArrayList<>();
        for (int i = 1; i < lines.size(); i++) {
            ShardLine line = parse(file, i + 1, lines.get(i), ShardLine.class);
            if (line.shard() == null || line.shard().file() == null || line.shard().crc32c() == null) {
                throw new IOException(file + " line " + (i + 1) + ": shard entry is missing");
            }
            if (line.rejected() != null) {
                rejected.addAll(line.rejected());
            }
            shards.add(new JournalShard(line.shard(), line.nextInput(), rejected.size()));
        }
        return new ConvertJournal(header.runFingerprint(), header.inputs(), shards, rejected);
    }

    private static <T> T parse(Path file, int lineNumber, byte[] json, Class<T> type) throws IOException {
        try {
            return Json.MAPPER.readValue(json, type);
        } catch (IOException e) {
            throw new IOException(file + " line " + lineNumber + ": " + e.getMessage(), e);
        }
    }

    /** The journal line of {@code shard}: {@code newlyRejected} are the rejections since the previous shard. */
    static byte[] shardLine(JournalShard shard, List<DatasetManifest.Rejected> newlyRejected) {
        return JournalLine.encode(Json.compact(new ShardLine(shard.shard(), shard.nextInput(), newlyRejected)));
    }

    static byte[] headerLine(String runFingerprint, String inputs) {
        return JournalLine.encode(Json.compact(new Header(KIND, VERSION, runFingerprint, inputs)));
    }

    static void delete(Path directory) throws IOException {
        Files.deleteIfExists(directory.resolve(FILE_NAME));
        Durability.syncDirectory(directory);
    }

    /** The longest prefix of journalled shards whose files are present with the recorded size and CRC32C. */
    List<JournalShard> intactPrefix(Path directory) throws IOException {
        List<JournalShard> intact = new ArrayList<>();
        for (JournalShard entry : shards) {
            Path file = directory.resolve(entry.shard().file());
            if (!Files.isRegularFile(file) || Files.size(file) != entry.shard().bytes()
                || !crcOf(file).equals(entry.shard().crc32c())) {
                break;
            }
            intact.add(entry);
        }
        return intact;
    }

    private static String crcOf(Path file) throws IOException {
        CRC32C crc = new CRC32C();
        byte[] buffer = new byte[1 << 16];
        try (InputStream in = Files.newInputStream(file)) {
            for (int n; (n = in.read(buffer)) > 0; ) {
                crc.update(buffer, 0, n);
            }
        }
        return Crc32c.hex((int) crc.getValue());
    }

    /** Journal text as lines of {@code CRC32C-hex SPACE compact-JSON NEWLINE}, the CRC over the JSON bytes. */
    static final class JournalLine {
        private static final int CRC_CHARS = 8;

        private JournalLine() {
        }

        static byte[] encode(byte[] json) {
            CRC32C crc = new CRC32C();
            crc.update(json);
            byte[] prefix = (Crc32c.hex((int) crc.getValue()) + " ").getBytes(StandardCharsets.US_ASCII);
            byte[] line = new byte[prefix.length + json.length + 1];
            System.arraycopy(prefix, 0, line, 0, prefix.length);
            System.arraycopy(json, 0, line, prefix.length, json.length);
            line[line.length - 1] = '\n';
            return line;
        }

        /**
         * The JSON of every intact line, in order. The last line may be torn (a crash mid-append) and is then
         * dropped; a bad line before it is refused, naming {@code file} and the line number.
         */
        static List<byte[]> intactLines(Path file, byte[] text) throws IOException {
            List<byte[]> lines = new ArrayList<>();
            int start = 0;
            for (int number = 1; start < text.length; number++) {
                int end = indexOf(text, (byte) '\n', start);
                byte[] json = end < 0 ? null : checked(text, start, end);
                if (json == null) {
                    int next = end < 0 ? text.length : end + 1;
                    if (next >= text.length) {
                        break; // torn last line: the append a crash interrupted
                    }
                    throw new IOException(file + " line " + number + ": checksum mismatch or malformed line"
                        + " (the journal is damaged; remove the directory to start over)");
                }
                lines.add(json);
                start = end + 1;
            }
            return lines;
        }

        /** The JSON of {@code text[start, end)} when its checksum matches, else null. */
        private static byte[] checked(byte[] text, int start, int end) {
            if (end - start < CRC_CHARS + 1 || text[start + CRC_CHARS] != ' ') {
                return null;
            }
            String hex = new String(text, start, CRC_CHARS, StandardCharsets.US_ASCII);
            CRC32C crc = new CRC32C();
            crc.update(text, start + CRC_CHARS + 1, end - start - CRC_CHARS - 1);
            if (!Crc32c.hex((int) crc.getValue()).equals(hex)) {
                return null;
            }
            byte[] json = new byte[end - start - CRC_CHARS - 1];
            System.arraycopy(text, start + CRC_CHARS + 1, json, 0, json.length);
            return json;
        }

        private static int indexOf(byte[] text, byte value, int from) {
            for (int i = from; i < text.length; i++) {
                if (text[i] == value) {
                    return i;
                }
            }
            return -1;
        }
    }
}
