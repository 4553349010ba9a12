package io.pinshard.writer.convert;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.pinshard.format.DatasetManifest;
import io.pinshard.format.Json;
import io.pinshard.writer.Durability;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * The resume journal of an unfinished conversion, {@value #FILE_NAME} in the output directory,
 * rewritten atomically after every finished shard. For each shard it records how many inputs had
 * been consumed and how many rejected when the shard was closed, so a rerun can continue after any
 * prefix of intact shards and produce the same bytes as an uninterrupted run. Deleted once the
 * manifest is written.
 *
 * @param runFingerprint identifies inputs and output-shaping options; a journal of another run is never used
 * @param shards         finished shards, in order
 * @param rejected       every rejection up to the last finished shard, in input order
 */
@JsonPropertyOrder({"runFingerprint", "shards", "rejected"})
record ConvertJournal(String runFingerprint, List<JournalShard> shards, List<DatasetManifest.Rejected> rejected) {
    static final String FILE_NAME = "convert-journal.json";

    /** A finished shard and the input cursor right after it. */
    @JsonPropertyOrder({"shard", "nextInput", "rejectedBefore"})
    record JournalShard(DatasetManifest.ShardEntry shard, long nextInput, int rejectedBefore) {
    }

    static ConvertJournal read(Path directory) throws IOException {
        Path file = directory.resolve(FILE_NAME);
        if (!Files.isRegularFile(file)) {
            return null;
        }
        return Json.MAPPER.readValue(file.toFile(), ConvertJournal.class);
    }

    void write(Path directory) throws IOException {
        Durability.writeAtomically(directory.resolve(FILE_NAME), Json.pretty(this));
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
        return io.pinshard.format.Crc32c.hex((int) crc.getValue());
    }
}
