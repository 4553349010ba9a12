package io.pinshard.reader;

import io.pinshard.format.Crc32c;
import io.pinshard.format.DatasetManifest;
import io.pinshard.format.Json;
import io.pinshard.format.ShardFormatException;
import io.pinshard.format.ShardFormatException.Kind;
import io.pinshard.format.ShardHeaderDescriptor;
import io.pinshard.format.ShardStructure;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Checks every byte of a dataset: each shard's whole-file checksum against the manifest, its
 * structure, the index, key table and metadata checksums, every payload checksum, every
 * must-be-zero gap, and the labels against the class list. Unlike {@link Dataset#open}, which stops
 * at the first problem, it goes on and reports all of them.
 */
public final class DatasetVerifier {
    private final Crc32c crc = new Crc32c();

    /**
     * Verifies the dataset in {@code directory}.
     *
     * @throws ShardFormatException of kind {@link Kind#NOT_A_DATASET} when there is no dataset to verify
     */
    public List<Problem> verify(Path directory) {
        if (!Files.isDirectory(directory)) {
            throw new ShardFormatException(Kind.NOT_A_DATASET, directory.toString(), null, -1, "not a directory", null);
        }
        List<Problem> problems = new ArrayList<>();
        DatasetManifest manifest;
        try {
            manifest = Json.readManifest(directory);
        } catch (ShardFormatException e) {
            if (e.kind() == Kind.NOT_A_DATASET) {
                throw e;
            }
            problems.add(new Problem(e.kind(), null, -1, e.detail()));
            return problems;
        }
        Set<String> listed = new HashSet<>();
        for (DatasetManifest.ShardEntry entry : manifest.shards()) {
            listed.add(entry.file());
            verifyShard(directory, entry, manifest.classes(), problems);
        }
        reportUnlisted(directory, listed, problems);
        return problems;
    }

    private void verifyShard(Path directory, DatasetManifest.ShardEntry entry, List<String> classes, List<Problem> problems) {
        Path file = directory.resolve(entry.file());
        String name = entry.file();
        long size;
        try {
            size = Files.size(file);
        } catch (IOException e) {
            problems.add(new Problem(Kind.MANIFEST_MISMATCH, name, -1, "listed in the manifest but missing or unreadable: " + e));
            return;
        }
        if (size != entry.bytes()) {
            problems.add(new Problem(size < entry.bytes() ? Kind.TRUNCATED : Kind.MANIFEST_MISMATCH, name, -1,
                "file holds " + size + " bytes, the manifest says " + entry.bytes()));
        }
        MappedShard shard;
        try {
            shard = MappedShard.open(file, directory.toString(), false);
        } catch (ShardFormatException e) {
            problems.add(new Problem(e.kind(), name, e.record(), e.detail()));
            checkWholeFile(file, entry, problems);
            return;
        }
        try (shard) {
            UnsafeBuffer buffer = shard.buffer();
            int wholeFile = crc.compute(buffer, 0, buffer.capacity());
            if (!Crc32c.hex(wholeFile).equals(entry.crc32c())) {
                problems.add(new Problem(Kind.CHECKSUM_MISMATCH, name, -1, "file CRC32C is " + Crc32c.hex(wholeFile)
                    + ", the manifest says " + entry.crc32c()));
            }
            if (shard.recordCount() != entry.records()) {
                problems.add(new Problem(Kind.MANIFEST_MISMATCH, name, -1, "shard holds " + shard.recordCount()
                    + " records, the manifest says " + entry.records()));
            }
            verifySections(shard, classes, problems);
            verifyRecords(shard, classes.size(), problems);
        }
    }

    private void checkWholeFile(Path file, DatasetManifest.ShardEntry entry, List<Problem> problems) {
        try {
            byte[] bytes = Files.readAllBytes(file);
            crc.reset();
            crc.update(bytes, 0, bytes.length);
            if (!Crc32c.hex(crc.value()).equals(entry.crc32c())) {
                problems.add(new Problem(Kind.CHECKSUM_MISMATCH, entry.file(), -1, "file CRC32C is "
                    + Crc32c.hex(crc.value()) + ", the manifest says " + entry.crc32c()));
            }
        } catch (IOException | OutOfMemoryError e) {
            problems.add(new Problem(Kind.IO_ERROR, entry.file(), -1, "cannot read: " + e));
        }
    }

    private void verifySections(MappedShard shard, List<String> classes, List<Problem> problems) {
        ShardStructure s = shard.structure();
        UnsafeBuffer buffer = shard.buffer();
        String name = shard.name();
        int indexCrc = crc.compute(buffer, (int) s.indexOffset(), (int) (s.keyTableOffset() - s.indexOffset()));
        int storedIndexCrc = s.indexCrc();
        if (indexCrc != storedIndexCrc) {
            problems.add(new Problem(Kind.CHECKSUM_MISMATCH, name, -1, "index CRC32C is " + Crc32c.hex(indexCrc)
                + ", the footer says " + Crc32c.hex(storedIndexCrc)));
        }
        if (crc.compute(buffer, (int) s.keyTableOffset(), (int) s.keyTableLength()) != s.keyTableCrc()) {
            problems.add(new Problem(Kind.CHECKSUM_MISMATCH, name, -1, "key table CRC32C does not match the footer"));
        }
        if (crc.compute(buffer, (int) s.metadataOffset(), (int) s.metadataLength()) != s.metadataCrc()) {
            problems.add(new Problem(Kind.CHECKSUM_MISMATCH, name, -1, "metadata CRC32C does not match the footer"));
        } else {
            byte[] metadata = new byte[(int) s.metadataLength()];
            buffer.getBytes((int) s.metadataOffset(), metadata);
            try {
                Map<String, Object> parsed = Json.parseObject(metadata);
                if (parsed == null) {
                    throw new IOException("metadata is not a JSON object");
                }
                if (!classes.equals(parsed.get("classes"))) {
                    problems.add(new Problem(Kind.MANIFEST_MISMATCH, name, -1, "shard metadata lists classes "
                        + parsed.get("classes") + ", the manifest " + classes));
                }
            } catch (IOException | RuntimeException e) {
                problems.add(new Problem(Kind.BAD_INDEX_ENTRY, name, -1, "metadata is not a JSON object: " + e.getMessage()));
            }
        }
        long metadataEnd = s.metadataOffset() + s.metadataLength();
        checkZero(buffer, metadataEnd, s.footerOffset(), name, -1, "padding before the footer", problems);
    }

    private void verifyRecords(MappedShard shard, int classCount, List<Problem> problems) {
        ShardStructure s = shard.structure();
        UnsafeBuffer buffer = shard.buffer();
        RecordView view = new RecordView();
        long gapStart = ShardHeaderDescriptor.LENGTH;
        for (long i = 0; i < s.recordCount(); i++) {
            view.wrap(shard, i, i);
            checkZero(buffer, gapStart, view.payloadOffset(), shard.name(), i, "padding before the payload", problems);
            if (!view.payloadIntact(crc)) {
                problems.add(new Problem(Kind.CHECKSUM_MISMATCH, shard.name(), i,
                    "payload CRC32C does not match the index (key " + view.key() + ")"));
            }
            if (classCount > 0 && view.label() >= classCount) {
                problems.add(new Problem(Kind.BAD_INDEX_ENTRY, shard.name(), i, "label " + view.label()
                    + " has no class name (the manifest lists " + classCount + ")"));
            }
            gapStart = (long) view.payloadOffset() + view.payloadLength();
        }
        checkZero(buffer, gapStart, s.indexOffset(), shard.name(), -1, "padding before the index", problems);
    }

    private static void checkZero(UnsafeBuffer buffer, long from, long to, String shard, long record, String what,
                                  List<Problem> problems) {
        for (long at = from; at < to; at++) {
            if (buffer.getByte((int) at) != 0) {
                problems.add(new Problem(Kind.NONZERO_PADDING, shard, record, what + " has a non-zero byte at offset " + at));
                return;
            }
        }
    }

    private static void reportUnlisted(Path directory, Set<String> listed, List<Problem> problems) {
        try (DirectoryStream<Path> files = Files.newDirectoryStream(directory, "*.pinshard")) {
            for (Path file : files) {
                String name = file.getFileName().toString();
                if (!listed.contains(name)) {
                    problems.add(new Problem(Kind.MANIFEST_MISMATCH, name, -1, "shard file is not listed in the manifest"));
                }
            }
        } catch (IOException e) {
            problems.add(new Problem(Kind.IO_ERROR, null, -1, "cannot list " + directory + ": " + e));
        }
    }
}
