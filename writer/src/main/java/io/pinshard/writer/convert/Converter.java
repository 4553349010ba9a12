package io.pinshard.writer.convert;

import io.pinshard.format.DatasetBusyException;
import io.pinshard.format.DatasetManifest;
import io.pinshard.format.DatasetWriteLock;
import io.pinshard.format.Json;
import io.pinshard.writer.DatasetWriter;
import io.pinshard.writer.DatasetWriterOptions;
import io.pinshard.writer.Durability;
import io.pinshard.writer.FieldValues;
import io.pinshard.writer.WriterVersion;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Runs a conversion: workers decode, resize and compress inputs in parallel; one thread commits the
 * results to a {@link DatasetWriter} strictly in input order, so the output is byte-identical
 * whatever the worker count. Rejected inputs go to the manifest's rejected list. A journal line appended
 * after every finished shard lets a rerun of the same command continue after a crash (kill -9
 * included) and still produce the bytes of an uninterrupted run.
 */
public final class Converter {
    /** Test hook: halt the JVM (as kill -9 would: no shutdown hooks, no finally) after this many commits. */
    static final String HALT_AFTER_COMMITS_PROPERTY = "pinshard.convert.testHaltAfterCommits";
    /** Test hook: halt right after the N-th shard is renamed into place, before the journal records it. */
    static final String HALT_AFTER_SHARDS_PROPERTY = "pinshard.convert.testHaltAfterShards";
    /** Test hook: sleep this long after each commit, so a test can kill the process mid-run. */
    static final String COMMIT_DELAY_PROPERTY = "pinshard.convert.testCommitDelayMillis";
    private static final String METADATA_KEY = "convert";
    /** What a refused second writer is told holds the directory. */
    public static final String WRITER = "pinshard convert";

    private final ConvertOptions options;
    private final ConvertProgress progress;
    private final boolean overwrite;
    private final String inputsDigest;

    public Converter(ConvertOptions options, ConvertProgress progress) {
        this(options, progress, false, null);
    }

    private Converter(ConvertOptions options, ConvertProgress progress, boolean overwrite, String inputsDigest) {
        this.options = options;
        this.progress = progress;
        this.overwrite = overwrite;
        this.inputsDigest = inputsDigest;
    }

    /**
     * This converter, replacing what the output holds (a finished dataset, whatever its inputs, or an unfinished
     * conversion) when {@code value}: its manifest goes first, so no moment of the rebuild reads as a dataset. Files
     * convert does not write are still refused, never deleted.
     */
    public Converter overwriting(boolean value) {
        return new Converter(options, progress, value, inputsDigest);
    }

    /**
     * This converter, recording {@code digest} (when not null) as what the inputs are instead of their files'
     * identities: for inputs generated anew on every run, such as the temporary tars of Python's
     * {@code pinshard.write}, which hashes its samples as they stream in.
     */
    public Converter identifyingInputsBy(String digest) {
        return new Converter(options, progress, overwrite, digest);
    }

    /**
     * Converts {@code listing} (or its {@code part}, when not null) into {@code output}, holding its
     * {@link DatasetWriteLock} while it runs.
     *
     * @throws ConvertException     when the output cannot be written (disk full, I/O error) or belongs to another run
     * @throws DatasetBusyException when another writer (another process, or another call in this one) holds it
     */
    public ConvertSummary run(InputListing listing, PartSpec part, Path output) throws ConvertException {
        try (DatasetWriteLock lock = DatasetWriteLock.hold(output, WRITER)) {
            return run(listing, part, lock);
        } catch (IOException e) {
            throw new ConvertException("the write lock of " + output + " failed: " + e, e);
        }
    }

    /**
     * Converts into the directory of {@code held}, a lock the caller took and keeps past the conversion (convert
     * to {@code s3://} holds its staging directory through the push).
     */
    public ConvertSummary run(InputListing listing, PartSpec part, DatasetWriteLock held) throws ConvertException {
        Path output = held.directory();
        long start = System.nanoTime();
        List<InputItem> items = part == null ? listing.items() : listing.part(part.index(), part.count());
        String runFingerprint = runFingerprint(listing, part);
        InputRecord record = InputRecord.of(items, inputsDigest);
        Map<String, Object> convertMetadata = new LinkedHashMap<>();
        convertMetadata.put("inputFingerprint", listing.fingerprint());
        convertMetadata.put("inputs", items.size());
        convertMetadata.put("part", part == null ? null : part.toString());
        convertMetadata.put("runFingerprint", runFingerprint);
        convertMetadata.put("shardBytes", options.shardBytes());
        convertMetadata.put("totalInputs", listing.items().size());
        DatasetWriterOptions writerOptions = options.writerOptions(listing.classes())
            .withManifestMetadata(Map.of(METADATA_KEY, convertMetadata)).withFields(listing.fields());
        try {
            if (overwrite) {
                discard(output);
            }
            DatasetManifest finished = finishedManifest(output, runFingerprint);
            if (finished != null) {
                refuseChangedInputs(output, record, recordedDigest(output), false);
                ConvertJournal.delete(output);
                return new ConvertSummary(items.size(), finished.records(), finished.rejected().size(), listing.ignored(),
                    items.size(), true, 0, finished.bytes(), finished.shards().size(), System.nanoTime() - start,
                    finished.rejected());
            }
            return convert(items, listing.ignored(), output, writerOptions, runFingerprint, record,
                part == null ? "" : part.shardPrefix(), start);
        } catch (IOException | UncheckedIOException e) {
            IOException cause = e instanceof UncheckedIOException u ? u.getCause() : (IOException) e;
            throw new ConvertException("writing " + output + " failed: " + cause
                + ". No unfinished shard is left under a shard name and no manifest was written; finished shards are"
                + " kept: free space or fix the cause, then run the same command again to resume.", cause);
        }
    }

    private ConvertSummary convert(List<InputItem> items, long ignored, Path output, DatasetWriterOptions writerOptions,
                                   String runFingerprint, InputRecord record, String shardPrefix, long start)
        throws IOException, ConvertException {
        Files.createDirectories(output);
        ConvertJournal journal = readJournal(output);
        if (journal != null && journal.runFingerprint().equals(runFingerprint)) {
            refuseChangedInputs(output, record, journal.inputs(), true);
        }
        List<ConvertJournal.JournalShard> resumed = prepareOutput(output, runFingerprint, journal);
        if (journal == null || !Files.isRegularFile(output.resolve(InputRecord.FILE_NAME))) {
            record.write(output); // before the journal: a journal always has the record it names beside it
        }
        List<DatasetManifest.ShardEntry> finishedShards = new ArrayList<>(resumed.size());
        List<DatasetManifest.Rejected> rejectedBefore = new ArrayList<>();
        int next = 0;
        if (!resumed.isEmpty()) {
            ConvertJournal.JournalShard last = resumed.get(resumed.size() - 1);
            resumed.forEach(entry -> finishedShards.add(entry.shard()));
            rejectedBefore.addAll(journal.rejected().subList(0, last.rejectedBefore()));
            next = (int) last.nextInput();
        }
        progress.started(items.size(), next);
        long haltAfter = Long.getLong(HALT_AFTER_COMMITS_PROPERTY, -1);
        long haltAfterShards = Long.getLong(HALT_AFTER_SHARDS_PROPERTY, -1);
        long commitDelay = Long.getLong(COMMIT_DELAY_PROPERTY, 0);
        long inputBytes = 0;
        long commits = 0;
        ExecutorService pool = Executors.newFixedThreadPool(options.workers(), workerThreads());
        ThreadLocal<ImageProcessor> processors = ThreadLocal.withInitial(() -> new ImageProcessor(options));
        try (ConvertJournalWriter journalWriter = ConvertJournalWriter.start(output, runFingerprint, record.digest(),
                 resumed, rejectedBefore);
             DatasetWriter writer = DatasetWriter.resume(output, writerOptions, shardPrefix, finishedShards, rejectedBefore)) {
            long[] cursor = {next};
            long[] shardsThisRun = {0};
            int[] journalledRejections = {rejectedBefore.size()};
            writer.onShardFinished(shard -> {
                if (++shardsThisRun[0] == haltAfterShards) {
                    Runtime.getRuntime().halt(137);
                }
                int rejected = writer.rejectedCount();
                try {
                    journalWriter.append(new ConvertJournal.JournalShard(shard, cursor[0], rejected),
                        writer.rejectedSince(journalledRejections[0]));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
                journalledRejections[0] = rejected;
            });
            ArrayDeque<Future<Converted>> window = new ArrayDeque<>();
            int windowSize = options.workers() * 4;
            int submitted = next;
            List<io.pinshard.format.FieldSchema> schema = writerOptions.fields();
            FieldValues values = schema.isEmpty() ? null : writer.newFieldValues();
            for (int i = next; i < items.size(); i++) {
                while (submitted < items.size() && window.size() < windowSize) {
                    InputItem item = items.get(submitted++);
                    window.add(pool.submit(() -> Converted.of(processors.get(), item, schema)));
                }
                Converted converted = await(window.poll());
                ConvertedImage result = converted.image();
                InputItem item = items.get(i);
                cursor[0] = i;
                if (result.isRejected()) {
                    writer.reject(item.key(), result.rejectReason());
                } else {
                    writer.appendPayload(result.codec(), new UnsafeBuffer(result.payload()), 0, result.payload().length,
                        result.height(), result.width(), result.channels(), item.label(), item.key(),
                        converted.fill(values));
                }
                inputBytes += result.inputBytes();
                progress.committed(result.inputBytes(), result.isRejected() ? 0 : result.payload().length, result.isRejected());
                if (++commits == haltAfter) {
                    Runtime.getRuntime().halt(137);
                }
                if (commitDelay > 0) {
                    sleep(commitDelay);
                }
            }
            cursor[0] = items.size();
            DatasetManifest manifest = writer.finish();
            ConvertJournal.delete(output);
            return new ConvertSummary(items.size(), manifest.records(), manifest.rejected().size(), ignored, next, false,
                inputBytes, manifest.bytes(), manifest.shards().size(), System.nanoTime() - start, manifest.rejected());
        } finally {
            pool.shutdownNow();
        }
    }

    private static void sleep(long millis) throws ConvertException {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ConvertException("interrupted", e);
        }
    }

    private static Converted await(Future<Converted> future) throws ConvertException {
        try {
            return future.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ConvertException("interrupted", e);
        } catch (ExecutionException e) {
            // ImageProcessor turns every per-image failure into a rejection; reaching here is a bug or an Error.
            throw new ConvertException("worker failed: " + e.getCause(), e.getCause());
        }
    }

    /**
     * Refuses to keep or resume what {@code output} holds when its inputs changed since: {@code recorded} is the
     * digest of the inputs it was made from (the record's, or an unfinished run's journal's; null when none was
     * recorded, by an older version).
     *
     * @throws OutputTakenException ({@link OutputTakenException.Holding#CHANGED_INPUTS}) naming the first changed input
     */
    private static void refuseChangedInputs(Path output, InputRecord record, String recorded, boolean unfinished)
        throws IOException, OutputTakenException {
        if (record.digest().equals(recorded)) {
            return;
        }
        String change = recorded == null ? null : readableChange(output, record);
        if (change == null) {
            change = recorded == null ? "it records no inputs to compare (written by an older version)"
                : "the record of its inputs beside it was replaced since";
        }
        throw new OutputTakenException(output, OutputTakenException.Holding.CHANGED_INPUTS, "output directory " + output
            + (unfinished ? " holds an unfinished conversion of these inputs, but they changed since it started: "
            : " holds the dataset of this conversion, but its inputs changed since it was written: ") + change);
    }

    /** The digest of the record in {@code output}; null when there is none, "" when it cannot be read. */
    private static String recordedDigest(Path output) {
        try {
            return InputRecord.recordedDigest(output);
        } catch (IOException e) {
            return ""; // differs from every digest: the comparison reads the record again and says why it cannot
        }
    }

    private static String readableChange(Path output, InputRecord record) {
        try {
            return record.firstChange(output);
        } catch (IOException e) {
            return "its record of the inputs cannot be read (" + e.getMessage() + ")";
        }
    }

    /**
     * For {@link #overwriting}: removes what {@code output} holds of an earlier conversion, manifest first (from then
     * on it is no dataset), then the journal (the rest goes as for a new run); refuses before removing anything when
     * it holds files convert does not write.
     */
    private static void discard(Path output) throws IOException, OutputTakenException {
        if (!Files.isDirectory(output)) {
            return;
        }
        try (Stream<Path> list = Files.list(output)) {
            refuseOtherFiles(output, list.filter(p -> !p.getFileName().toString().equals(DatasetManifest.FILE_NAME))
                .toList());
        }
        Files.deleteIfExists(output.resolve(DatasetManifest.FILE_NAME));
        Durability.syncDirectory(output);
        ConvertJournal.delete(output);
    }

    /**
     * Makes {@code output} ready: keeps the journalled shards that are intact (the resume point) and
     * removes everything else this tool writes (unfinished temporaries, shards after the resume point).
     */
    private static List<ConvertJournal.JournalShard> prepareOutput(Path output, String runFingerprint,
                                                                   ConvertJournal journal) throws IOException, ConvertException {
        List<Path> entries;
        try (Stream<Path> list = Files.list(output)) {
            entries = list.toList();
        }
        if (journal == null) {
            refuseOtherFiles(output, entries);
        } else if (!journal.runFingerprint().equals(runFingerprint)) {
            throw new OutputTakenException(output, OutputTakenException.Holding.ANOTHER_CONVERSION, "output directory "
                + output + " holds an unfinished conversion of other inputs or options");
        }
        List<ConvertJournal.JournalShard> intact = journal == null ? List.of() : journal.intactPrefix(output);
        Set<String> keep = new HashSet<>(intact.size() * 2);
        intact.forEach(s -> keep.add(s.shard().file()));
        if (journal != null) {
            keep.add(InputRecord.FILE_NAME); // of these inputs: the caller compared them with the journal's digest
        }
        for (Path entry : entries) {
            String name = entry.getFileName().toString();
            if (isOurs(entry) && !keep.contains(name) && !name.equals(ConvertJournal.FILE_NAME)
                && !name.equals(DatasetWriteLock.FILE_NAME)) {
                Files.deleteIfExists(entry);
            }
        }
        return intact;
    }

    /**
     * Refuses {@code output} as {@link #run} would whatever the inputs: a directory holding files this tool does not
     * write, with neither an unfinished conversion (a journal) nor a finished dataset (a manifest, which a rerun of
     * the same conversion finds finished) in it; a missing directory passes. What {@code convert --check-options}
     * asks before its INPUT exists.
     *
     * @throws OutputTakenException naming the directory when it holds other files
     */
    public static void checkOutputCanTakeAConversion(Path output) throws IOException, OutputTakenException {
        if (!Files.isDirectory(output) || Files.exists(output.resolve(DatasetManifest.FILE_NAME))
            || Files.exists(output.resolve(ConvertJournal.FILE_NAME))) {
            return;
        }
        try (Stream<Path> list = Files.list(output)) {
            refuseOtherFiles(output, list.toList());
        }
    }

    private static void refuseOtherFiles(Path output, List<Path> entries) throws OutputTakenException {
        if (entries.stream().anyMatch(p -> !isOurs(p))) {
            throw new OutputTakenException(output, OutputTakenException.Holding.OTHER_FILES, "output directory "
                + output + " is not empty and holds no unfinished conversion");
        }
    }

    private static ConvertJournal readJournal(Path output) throws ConvertException {
        try {
            return ConvertJournal.read(output);
        } catch (IOException e) {
            throw new ConvertException(output + " holds an unreadable " + ConvertJournal.FILE_NAME + " (" + e.getMessage()
                + "); remove the directory to start over", e);
        }
    }

    private static boolean isOurs(Path path) {
        String name = path.getFileName().toString();
        // The write lock is this run's (held while the directory is listed), not another one's file.
        return name.endsWith(".pinshard") || name.endsWith(".pinshard.tmp") || name.equals(ConvertJournal.FILE_NAME)
            || name.equals(DatasetWriteLock.FILE_NAME)
            || name.equals(ConvertJournal.FILE_NAME + ".tmp") || name.equals(DatasetManifest.FILE_NAME + ".tmp")
            || name.equals(InputRecord.FILE_NAME) || name.equals(InputRecord.FILE_NAME + ".tmp")
            || name.equals(InputRecord.BODY_TEMPORARY);
    }

    /** The manifest of {@code output} when it is a finished dataset of this run; an error when it is another dataset. */
    private static DatasetManifest finishedManifest(Path output, String runFingerprint) throws ConvertException {
        if (!Files.isRegularFile(output.resolve(DatasetManifest.FILE_NAME))) {
            return null;
        }
        DatasetManifest manifest = Json.readManifest(output);
        Object convert = manifest.metadata() == null ? null : manifest.metadata().get(METADATA_KEY);
        if (convert instanceof Map<?, ?> map && runFingerprint.equals(map.get("runFingerprint"))) {
            return manifest;
        }
        throw new OutputTakenException(output, OutputTakenException.Holding.ANOTHER_DATASET, "output directory " + output
            + " already holds a different dataset (" + manifest.records() + " records in " + manifest.shards().size()
            + " shard(s), " + (convert instanceof Map<?, ?> ? "converted from other inputs or with other options"
            : "not written by convert") + ")");
    }

    /** Identifies the inputs, the part and every option that shapes the output bytes. */
    private String runFingerprint(InputListing listing, PartSpec part) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            digest.update(listing.fingerprint().getBytes(StandardCharsets.US_ASCII));
            digest.update(Json.compact(options.preprocessing()));
            digest.update(Long.toString(options.shardBytes()).getBytes(StandardCharsets.US_ASCII));
            digest.update(String.valueOf(part).getBytes(StandardCharsets.US_ASCII));
            digest.update(WriterVersion.current().getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    private static java.util.concurrent.ThreadFactory workerThreads() {
        AtomicInteger count = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, "pinshard-convert-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }
}
