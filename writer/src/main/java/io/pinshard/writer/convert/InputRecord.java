package io.pinshard.writer.convert;

import io.pinshard.format.Printable;
import io.pinshard.writer.Durability;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

/**
 * What a conversion was made from: {@value #FILE_NAME} in the output directory, written (atomically) before the
 * first shard and kept beside the manifest, so that a rerun can tell a finished dataset (or an unfinished conversion)
 * of these very inputs from one of inputs that changed since. One line per input, in listing order, after a header
 * carrying the SHA-256 of those lines: a rerun computes the lines of the inputs as they are now and compares digests
 * (one {@code stat} per input file, nothing read); only when they differ does it read the file, to name the first
 * input that changed. Lines (tab-separated, gzip-compressed; see docs/convert.md):
 * <pre>
 * pinshard-convert-inputs  1  INPUTS  SHA256      the header
 * S  SIZE  MTIME_NS  FILE_KEY  PATH               a file the next inputs are read from (an image, a tar, a .parquet)
 * I  OFFSET  LENGTH                                an input: its byte range of that file (tar member), row number
 *                                                  and image bytes (Parquet row), or 0 -1 (the whole file)
 * -                                                an input that listing refused (no bytes are read)
 * D  DIGEST                                        instead of all the above: the inputs' digest as given
 *                                                  (pinshard.write, whose samples are hashed as they stream in)
 * </pre>
 * {@code FILE_KEY} is the file system's identity of the file (device and inode on Linux); a file that cannot be
 * read has {@code S -1 -1 - PATH}. An {@code S} line is repeated whenever an input reads another file than the input
 * before it, so the parts of a {@code --part} conversion concatenate into the record of the whole.
 */
public final class InputRecord {
    /** The record's file in a dataset or conversion directory. */
    public static final String FILE_NAME = "convert-inputs.tsv.gz";
    static final String KIND = "pinshard-convert-inputs";
    static final int VERSION = 1;
    /** The lines while {@link #write} writes them, before the header goes in front. */
    static final String BODY_TEMPORARY = FILE_NAME + ".lines.tmp";

    private final List<InputItem> items;
    private final String givenDigest;
    private String digest;

    private InputRecord(List<InputItem> items, String givenDigest) {
        this.items = items;
        this.givenDigest = givenDigest;
    }

    /**
     * The record of {@code items} as their files are now, or, with {@code givenDigest} not null, of inputs that
     * {@code givenDigest} identifies (generated inputs, whose files are new on every run).
     */
    static InputRecord of(List<InputItem> items, String givenDigest) {
        if (givenDigest != null && (givenDigest.isEmpty() || givenDigest.chars().anyMatch(c -> c <= ' ' || c > '~'))) {
            throw new IllegalArgumentException("an inputs digest is printable ASCII without spaces: " + givenDigest);
        }
        return new InputRecord(items, givenDigest);
    }

    /** SHA-256 (hex) of this record's lines; computed once, from one {@code stat} per input file. */
    String digest() {
        if (digest == null) {
            MessageDigest sha = sha256();
            forEachLine(line -> sha.update((line + "\n").getBytes(StandardCharsets.UTF_8)));
            digest = HexFormat.of().formatHex(sha.digest());
        }
        return digest;
    }

    /**
     * Writes the record into {@code directory}, atomically (a synced temporary file, then a rename). Its lines are
     * digested as they are written (one {@code stat} per input file), so the header's digest is always that of the
     * lines below it, even when an input changes meanwhile; {@link #digest()} is that digest from then on.
     */
    void write(Path directory) throws IOException {
        Path body = directory.resolve(BODY_TEMPORARY);
        Path temporary = directory.resolve(FILE_NAME + ".tmp");
        try {
            MessageDigest sha = sha256();
            try (Writer out = gzip(Files.newOutputStream(body))) {
                IOException[] failed = {null};
                forEachLine(line -> {
                    byte[] bytes = (line + "\n").getBytes(StandardCharsets.UTF_8);
                    sha.update(bytes);
                    try {
                        out.write(line);
                        out.write('\n');
                    } catch (IOException e) {
                        failed[0] = failed[0] == null ? e : failed[0];
                    }
                });
                if (failed[0] != null) {
                    throw failed[0];
                }
            }
            digest = HexFormat.of().formatHex(sha.digest());
            // Two gzip members, header then lines: a gzip reader reads them as one stream.
            try (OutputStream file = Files.newOutputStream(temporary)) {
                GZIPOutputStream header = new GZIPOutputStream(file);
                header.write((KIND + "\t" + VERSION + "\t" + items.size() + "\t" + digest + "\n")
                    .getBytes(StandardCharsets.UTF_8));
                header.finish();
                Files.copy(body, file);
            }
            Durability.syncFile(temporary);
            Files.move(temporary, directory.resolve(FILE_NAME), StandardCopyOption.ATOMIC_MOVE,
                StandardCopyOption.REPLACE_EXISTING);
            Durability.syncDirectory(directory);
        } finally {
            Files.deleteIfExists(body);
            Files.deleteIfExists(temporary);
        }
    }

    /**
     * The digest recorded in {@code directory}, or null when it holds no record (a dataset of a version that wrote
     * none, or of another writer).
     *
     * @throws IOException naming the file when it is there but not a record this version reads
     */
    static String recordedDigest(Path directory) throws IOException {
        Path file = directory.resolve(FILE_NAME);
        if (!Files.isRegularFile(file)) {
            return null;
        }
        try (BufferedReader in = reader(file)) {
            return header(file, in.readLine())[3];
        }
    }

    /**
     * Why the inputs as they are now differ from those recorded in {@code directory}: the first input whose line
     * differs, named by its key, with what the record says and what its file is now; null when they do not differ.
     */
    String firstChange(Path directory) throws IOException {
        Path file = directory.resolve(FILE_NAME);
        if (!Files.isRegularFile(file)) {
            return "the inputs were not recorded (" + FILE_NAME + " is missing)";
        }
        try (BufferedReader in = reader(file)) {
            header(file, in.readLine());
            String[] found = {null};
            int[] input = {0};
            String[] pendingWas = {null};
            String[] pendingNow = {null};
            IOException[] failed = {null};
            forEachLine(now -> {
                if (found[0] != null || failed[0] != null) {
                    return;
                }
                String was;
                try {
                    was = in.readLine();
                } catch (IOException e) {
                    failed[0] = e;
                    return;
                }
                if (!now.equals(was)) {
                    found[0] = describe(input[0], was, now, pendingWas[0], pendingNow[0]);
                } else if (now.startsWith("S\t")) {
                    pendingWas[0] = was;
                    pendingNow[0] = now;
                } else {
                    input[0]++;
                }
            });
            if (failed[0] != null) {
                throw failed[0];
            }
            if (found[0] == null && in.readLine() != null) {
                found[0] = "the record lists more inputs than the " + items.size() + " there are now";
            }
            return found[0];
        }
    }

    /** What changed at the line of input {@code index}; {@code fileWas}/{@code fileNow}: the S lines before it. */
    private String describe(int index, String was, String now, String fileWas, String fileNow) {
        if (givenDigest != null) {
            return "the inputs' digest was " + field(was, 1) + ", now " + givenDigest;
        }
        if (index >= items.size()) {
            return "the record lists more inputs than the " + items.size() + " there are now";
        }
        String name = "input " + Printable.escape(items.get(index).key());
        if (was == null) {
            return name + " is not in the record (it lists fewer inputs)";
        }
        if (was.startsWith("S\t") && now.startsWith("S\t")) {
            return name + " changed: " + fileChange(was, now);
        }
        if (was.startsWith("S\t") || now.startsWith("S\t")) { // read from another file than before, or no file
            String other = now.startsWith("S\t") ? now : fileNow;
            return name + " is read from " + (other == null ? "no file" : Printable.escape(field(other, 4)))
                + " now, not from " + (was.startsWith("S\t") ? Printable.escape(field(was, 4))
                : fileWas == null ? "no file" : Printable.escape(field(fileWas, 4)));
        }
        if (was.equals("-") || now.equals("-")) {
            return name + (now.equals("-") ? " is refused by listing now, not before" : " was refused by listing, not now");
        }
        return name + " changed: its bytes were at " + field(was, 1) + " (" + field(was, 2) + " bytes), now at "
            + field(now, 1) + " (" + field(now, 2) + " bytes) of " + (fileNow == null ? "its file"
            : Printable.escape(field(fileNow, 4)));
    }

    /** How a file's S line changed: size, modification time, identity or path. */
    private static String fileChange(String was, String now) {
        String path = field(now, 4);
        if (!path.equals(field(was, 4))) {
            return "it is read from " + Printable.escape(path) + ", recorded as " + Printable.escape(field(was, 4));
        }
        if (field(now, 1).equals("-1")) {
            return "its file " + Printable.escape(path) + " cannot be read now";
        }
        StringBuilder what = new StringBuilder("its file ").append(Printable.escape(path)).append(" is ");
        what.append(field(now, 1)).append(" bytes, modified ").append(instant(field(now, 2)));
        if (!field(now, 3).equals(field(was, 3))) {
            what.append(", file ").append(field(now, 3));
        }
        what.append("; the record says ").append(field(was, 1)).append(" bytes, modified ").append(instant(field(was, 2)));
        if (!field(now, 3).equals(field(was, 3))) {
            what.append(", file ").append(field(was, 3));
        }
        return what.toString();
    }

    private static String instant(String nanos) {
        try {
            long n = Long.parseLong(nanos);
            return Instant.ofEpochSecond(Math.floorDiv(n, 1_000_000_000L), Math.floorMod(n, 1_000_000_000L)).toString();
        } catch (NumberFormatException e) {
            return Printable.escape(nanos);
        }
    }

    private static String field(String line, int index) {
        String[] fields = line.split("\t", -1);
        return index < fields.length ? fields[index] : "";
    }

    /**
     * Writes into {@code output} the record of a merged dataset: the records of {@code parts} (in part order)
     * concatenated, under a header of their union; nothing when a part has no record.
     */
    static void concatenate(List<Path> parts, Path output) throws IOException {
        long inputs = 0;
        MessageDigest sha = sha256();
        for (Path part : parts) {
            Path file = part.resolve(FILE_NAME);
            if (!Files.isRegularFile(file)) {
                Files.deleteIfExists(output.resolve(FILE_NAME)); // an interrupted merge's, of other parts
                return;
            }
            try (BufferedReader in = reader(file)) {
                inputs += Long.parseLong(header(file, in.readLine())[2]);
                for (String line; (line = in.readLine()) != null; ) {
                    sha.update((line + "\n").getBytes(StandardCharsets.UTF_8));
                }
            }
        }
        Path temporary = output.resolve(FILE_NAME + ".tmp");
        try (Writer out = gzip(Files.newOutputStream(temporary))) {
            out.write(KIND + "\t" + VERSION + "\t" + inputs + "\t" + HexFormat.of().formatHex(sha.digest()) + "\n");
            for (Path part : parts) {
                try (BufferedReader in = reader(part.resolve(FILE_NAME))) {
                    in.readLine();
                    for (String line; (line = in.readLine()) != null; ) {
                        out.write(line);
                        out.write('\n');
                    }
                }
            }
        }
        Durability.syncFile(temporary);
        Files.move(temporary, output.resolve(FILE_NAME), StandardCopyOption.ATOMIC_MOVE,
            StandardCopyOption.REPLACE_EXISTING);
    }

    /** The record's lines, in order: one {@code stat} per run of inputs read from the same file. */
    private void forEachLine(Consumer<String> sink) {
        if (givenDigest != null) {
            sink.accept("D\t" + givenDigest);
            return;
        }
        Path current = null;
        for (InputItem item : items) {
            InputItem.Origin origin = item.origin();
            if (origin == null) {
                sink.accept("-");
                continue;
            }
            if (!origin.file().equals(current)) {
                current = origin.file();
                sink.accept(fileLine(current));
            }
            sink.accept("I\t" + origin.offset() + "\t" + origin.length());
        }
    }

    private static String fileLine(Path file) {
        String path = Printable.escape(file.toAbsolutePath().normalize().toString());
        try {
            BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
            Object key = attributes.fileKey();
            return "S\t" + attributes.size() + "\t" + attributes.lastModifiedTime().to(TimeUnit.NANOSECONDS) + "\t"
                + (key == null ? "-" : Printable.escape(key.toString())) + "\t" + path;
        } catch (IOException e) { // missing or unreadable: recorded as such, so that its return is a change too
            return "S\t-1\t-1\t-\t" + path;
        }
    }

    private static Writer gzip(OutputStream file) throws IOException {
        return new BufferedWriter(new OutputStreamWriter(new GZIPOutputStream(file, 1 << 16), StandardCharsets.UTF_8),
            1 << 16);
    }

    private static BufferedReader reader(Path file) throws IOException {
        return new BufferedReader(new InputStreamReader(new GZIPInputStream(Files.newInputStream(file), 1 << 16),
            StandardCharsets.UTF_8), 1 << 16);
    }

    private static String[] header(Path file, String line) throws IOException {
        String[] fields = line == null ? new String[0] : line.split("\t", -1);
        if (fields.length != 4 || !fields[0].equals(KIND) || !fields[1].equals(String.valueOf(VERSION))
            || !fields[2].matches("\\d{1,18}") || !fields[3].matches("[0-9a-f]{64}")) {
            throw new IOException(file + ": not a version " + VERSION + " record of a conversion's inputs");
        }
        return fields;
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
