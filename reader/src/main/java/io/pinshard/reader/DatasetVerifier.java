package io.pinshard.reader;

import io.pinshard.format.Crc32c;
import io.pinshard.format.DatasetFiles;
import io.pinshard.format.DatasetManifest;
import io.pinshard.format.IndexEntryDescriptor;
import io.pinshard.format.Json;
import io.pinshard.format.ManifestRules;
import io.pinshard.format.ShardFormatException;
import io.pinshard.format.ShardFormatException.Kind;
import io.pinshard.format.ShardHeaderDescriptor;
import io.pinshard.format.ShardLayout;
import io.pinshard.format.ShardStructure;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.agrona.BufferUtil;
import org.agrona.CloseHelper;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Checks every byte of a dataset: the files themselves ({@link DatasetFiles}: regular files, links,
 * no file listed twice), each shard's whole-file checksum against the manifest, its structure, header
 * shard number, the index, key table and metadata checksums, every payload checksum, every
 * must-be-zero gap, the labels against the class list and, in decode mode (the default), every
 * payload decoded by {@link RecordDecoder} and checked against its index entry (lz4 length, jpeg
 * frame and shape), so that a dataset that verifies also loads. Unlike {@link Dataset#open}, which
 * stops at the first problem, it goes on and reports all of them.
 */
public final class DatasetVerifier {
    private final boolean decode;
    private final boolean allowLinksOutside;
    private final int threads;

    /** Decode mode on, links out of the directory as {@link DatasetFiles#allowLinksOutsideByDefault()} says. */
    public DatasetVerifier() {
        this(true, DatasetFiles.allowLinksOutsideByDefault());
    }

    /**
     * @param decode            whether to decode every payload and check it against its entry (slower: a
     *                          jpeg decode per record), or checksums and structure only
     * @param allowLinksOutside whether shards and manifest may be symbolic links out of the directory
     */
    public DatasetVerifier(boolean decode, boolean allowLinksOutside) {
        this(decode, allowLinksOutside, 1);
    }

    /**
     * Checksums and structure only (no payload decoded), no link out of the directory: the check of shards a transfer
     * has just fetched or is about to install, and of a pulled dataset.
     */
    public static DatasetVerifier checksumsOnly() {
        return new DatasetVerifier(false, false);
    }

    /**
     * @param threads how many shards to check at once (each thread with its own decoder); the problems
     *                come out in the same order whatever the count
     */
    public DatasetVerifier(boolean decode, boolean allowLinksOutside, int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be at least 1: " + threads);
        }
        this.decode = decode;
        this.allowLinksOutside = allowLinksOutside;
        this.threads = threads;
    }

    /**
     * Verifies the dataset in {@code directory}.
     *
     * @throws ShardFormatException of kind {@link Kind#NOT_A_DATASET} when there is no dataset to verify
     */
    public List<Problem> verify(Path directory) {
        DatasetDirectory.check(directory);
        List<Problem> problems = new ArrayList<>();
        DatasetManifest manifest;
        try {
            manifest = Json.readManifest(directory, allowLinksOutside);
        } catch (ShardFormatException e) {
            if (e.kind() == Kind.NOT_A_DATASET) {
                throw e;
            }
            problems.add(new Problem(e.kind(), null, -1, e.detail()));
            return problems;
        }
        DatasetFiles files = DatasetFiles.of(directory, manifest, allowLinksOutside);
        int count = manifest.shards().size();
        List<List<Problem>> perShard = new ArrayList<>(count);
        long[] sizes = new long[count];
        Set<String> listed = new HashSet<>();
        // File checks first, in order and on this thread: they decide what may be opened at all.
        for (int i = 0; i < count; i++) {
            List<Problem> found = new ArrayList<>();
            perShard.add(found);
            listed.add(manifest.shards().get(i).file());
            sizes[i] = checkFile(directory, files, i, manifest, found);
        }
        if (threads == 1 || count < 2) {
            try (ShardChecker checker = new ShardChecker()) {
                for (int i = 0; i < count; i++) {
                    if (sizes[i] >= 0) {
                        checker.verifyShard(directory, files, i, manifest, sizes[i], perShard.get(i));
                    }
                }
            }
        } else {
            verifyInParallel(directory, files, manifest, sizes, perShard);
        }
        perShard.forEach(problems::addAll);
        reportUnlisted(directory, listed, problems);
        return problems;
    }

    private void verifyInParallel(Path directory, DatasetFiles files, DatasetManifest manifest, long[] sizes,
                                  List<List<Problem>> perShard) {
        AtomicInteger next = new AtomicInteger();
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        Thread[] workers = new Thread[Math.min(threads, sizes.length)];
        for (int t = 0; t < workers.length; t++) {
            workers[t] = new Thread(() -> {
                try (ShardChecker checker = new ShardChecker()) {
                    for (int i = next.getAndIncrement(); i < sizes.length; i = next.getAndIncrement()) {
                        if (sizes[i] >= 0) {
                            checker.verifyShard(directory, files, i, manifest, sizes[i], perShard.get(i));
                        }
                    }
                } catch (Throwable e) {
                    failures.add(e);
                }
            }, "pinshard-verify-" + t);
            workers[t].start();
        }
        for (Thread worker : workers) {
            try {
                worker.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while verifying " + directory, e);
            }
        }
        if (!failures.isEmpty()) {
            IllegalStateException failure = new IllegalStateException("verify failed: " + failures.get(0), failures.get(0));
            failures.stream().skip(1).forEach(failure::addSuppressed);
            throw failure;
        }
    }

    /**
     * Verifies one shard file on its own against entry {@code position} of {@code manifest}, as {@link #verify}
     * checks each listed shard: its length and whole-file CRC32C against the entry, structure, header shard
     * number, section checksums, every payload checksum and must-be-zero gap, labels and, in decode mode, every
     * payload decoded. For a shard kept under another name than its listed one (a download cache).
     *
     * <p>This form works out the shard's expected header number from the whole manifest (a pass over every
     * entry): a caller checking many shards of one manifest uses the other, with
     * {@link ManifestRules#expectedShardNumbers} computed once.
     *
     * @param dataset how problems name the dataset
     * @return the problems found, empty when the file is intact
     */
    public List<Problem> verifyShardFile(Path file, String dataset, DatasetManifest manifest, int position) {
        return verifyShardFile(file, dataset, manifest, position,
            ManifestRules.expectedShardNumbers(manifest.shards())[position]);
    }

    /**
     * {@link #verifyShardFile(Path, String, DatasetManifest, int)} with the shard's expected header number given
     * ({@code ManifestRules.expectedShardNumbers(manifest.shards())[position]}).
     */
    public List<Problem> verifyShardFile(Path file, String dataset, DatasetManifest manifest, int position,
                                         int expectedShardNumber) {
        return verifyShardFile(file, dataset, manifest, position, expectedShardNumber, null);
    }

    /**
     * The checks a download cache makes of a shard it has just fetched: those of
     * {@link #verifyShardFile(Path, String, DatasetManifest, int, int)}, but the whole-file CRC32C compared with the
     * manifest's is {@code fileCrc32c}, computed as the bytes arrived, instead of a pass reading the file back.
     * Every payload checksum is still checked (raw records and {@code Dataset} readers may never check them later).
     */
    public List<Problem> verifyDownloadedShard(Path file, String dataset, DatasetManifest manifest, int position,
                                               int expectedShardNumber, int fileCrc32c) {
        return verifyShardFile(file, dataset, manifest, position, expectedShardNumber, fileCrc32c);
    }

    private List<Problem> verifyShardFile(Path file, String dataset, DatasetManifest manifest, int position,
                                          int expectedShardNumber, Integer fileCrc32c) {
        DatasetManifest.ShardEntry entry = manifest.shards().get(position);
        List<Problem> problems = new ArrayList<>();
        long size;
        try {
            size = DatasetFiles.checkRegularFile(file);
        } catch (ShardFormatException e) {
            problems.add(new Problem(e.kind(), entry.file(), -1, e.detail()));
            return problems;
        }
        try {
            ManifestRules.checkShardSize(dataset, entry, size);
        } catch (ShardFormatException e) {
            problems.add(new Problem(e.kind(), entry.file(), -1, e.detail()));
            return problems; // a file of the wrong length is not worth mapping
        }
        try (ShardChecker checker = new ShardChecker()) {
            checker.verifyShard(file, dataset, entry, expectedShardNumber, manifest, size, fileCrc32c, problems);
        }
        return problems;
    }

    /** The file rules for listed shard {@code position}; its length, or -1 when it must not be opened. */
    private static long checkFile(Path directory, DatasetFiles files, int position, DatasetManifest manifest,
                                  List<Problem> problems) {
        DatasetManifest.ShardEntry entry = manifest.shards().get(position);
        long size;
        try {
            size = files.checkShardFile(position); // before anything opens it: no FIFO, device or foreign link
        } catch (ShardFormatException e) {
            problems.add(new Problem(e.kind(), entry.file(), -1, e.detail()));
            return -1;
        }
        try {
            ManifestRules.checkShardSize(directory.toString(), entry, size);
        } catch (ShardFormatException e) {
            problems.add(new Problem(e.kind(), entry.file(), -1, e.detail()));
        }
        return size;
    }

    /** One thread's checking state: its own CRC, decoder and decode buffer. */
    private final class ShardChecker implements AutoCloseable {
        private final Crc32c crc = new Crc32c();
        private final UnsafeBuffer pixelView = new UnsafeBuffer(0, 0);
        private final FieldsVerifier fieldsChecker = new FieldsVerifier(crc);
        private RecordDecoder decoder;
        private ByteBuffer pixels;

        private void verifyShard(Path directory, DatasetFiles files, int position, DatasetManifest manifest, long size,
                                 List<Problem> problems) {
            DatasetManifest.ShardEntry entry = manifest.shards().get(position);
            verifyShard(directory.resolve(entry.file()), directory.toString(), entry, files.expectedShardNumber(position),
                manifest, size, null, problems);
        }

        /** fileCrc32c: the whole file's, known already, or null to compute it here. */
        private void verifyShard(Path file, String dataset, DatasetManifest.ShardEntry entry, int expectedNumber,
                                 DatasetManifest manifest, long size, Integer fileCrc32c, List<Problem> problems) {
            String name = entry.file();
            MappedShard shard;
            try {
                shard = MappedShard.open(file, dataset, false, RecordLimits.of(manifest).withoutLabels());
            } catch (ShardFormatException e) {
                problems.add(new Problem(e.kind(), name, e.record(), e.detail()));
                checkWholeFile(file, entry, size, problems);
                return;
            }
            try (shard) {
                UnsafeBuffer buffer = shard.buffer();
                int wholeFile = fileCrc32c != null ? fileCrc32c : crc.compute(buffer, 0, buffer.capacity());
                if (!Crc32c.hex(wholeFile).equals(entry.crc32c())) {
                    problems.add(new Problem(Kind.CHECKSUM_MISMATCH, name, -1, "file CRC32C is " + Crc32c.hex(wholeFile)
                        + ", the manifest says " + entry.crc32c()));
                }
                if (shard.recordCount() != entry.records()) {
                    problems.add(new Problem(Kind.MANIFEST_MISMATCH, name, -1, "shard holds " + shard.recordCount()
                        + " records, the manifest says " + entry.records()));
                }
                try {
                    ManifestRules.checkShardNumber(dataset, name, expectedNumber, shard.structure().shardNumber());
                } catch (ShardFormatException e) {
                    problems.add(new Problem(e.kind(), name, -1, e.detail()));
                }
                verifySections(shard, manifest.classes(), problems);
                verifyRecords(shard, manifest.classes().size(), problems);
                fieldsChecker.verify(shard, manifest.fieldSchema(), problems);
            }
        }

        private void checkWholeFile(Path file, DatasetManifest.ShardEntry entry, long size, List<Problem> problems) {
            if (size > ShardLayout.MAX_SHARD_BYTES) {
                return; // already reported as too large; not worth reading into memory
            }
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
                boolean intact = view.payloadIntact(crc);
                if (!intact) {
                    problems.add(new Problem(Kind.CHECKSUM_MISMATCH, shard.name(), i,
                        "payload CRC32C does not match the index (key " + view.key() + ")"));
                }
                try {
                    IndexEntryDescriptor.checkLabel(view.label(), classCount);
                } catch (ShardFormatException e) {
                    problems.add(new Problem(e.kind(), shard.name(), i, e.detail()));
                }
                if (decode && intact) {
                    decodeRecord(view, problems);
                }
                gapStart = (long) view.payloadOffset() + view.payloadLength();
            }
            checkZero(buffer, gapStart, s.indexOffset(), shard.name(), -1, "padding before the index", problems);
        }

        /** Decodes one record as a loader would; RecordDecoder checks lz4 length and jpeg frame against the entry. */
        private void decodeRecord(RecordView view, List<Problem> problems) {
            int bytes = view.decodedBytes();
            try {
                if (pixels == null || pixels.capacity() < bytes) {
                    if (pixels != null) {
                        BufferUtil.free(pixels);
                        pixels = null;
                    }
                    pixels = ByteBuffer.allocateDirect(Math.max(bytes, 1 << 16));
                    pixelView.wrap(pixels);
                }
                if (decoder == null) {
                    decoder = new RecordDecoder(false); // the payload CRC was checked just before
                }
                decoder.decode(view, pixelView, 0);
            } catch (ShardFormatException e) {
                problems.add(new Problem(e.kind(), view.shard().name(), view.recordInShard(), e.detail()));
            } catch (OutOfMemoryError e) {
                problems.add(new Problem(Kind.IO_ERROR, view.shard().name(), view.recordInShard(),
                    "cannot reserve " + bytes + " bytes to decode the record: " + e.getMessage()));
            }
        }

        @Override
        public void close() {
            CloseHelper.close(decoder); // its payload scratch and OpenCV's JPEG decoder are native memory too
            decoder = null;
            if (pixels != null) {
                BufferUtil.free(pixels);
                pixels = null;
            }
        }
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
