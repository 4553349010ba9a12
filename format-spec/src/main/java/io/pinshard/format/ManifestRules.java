package io.pinshard.format;

import io.pinshard.format.ShardFormatException.Kind;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a manifest must satisfy before any of its numbers or names are used, and what each listed
 * shard must then agree with (SPEC.md sections 13 and 14): the one home of these rules for reader,
 * verifier and tools.
 */
public final class ManifestRules {
    private ManifestRules() {
    }

    static void check(Path dir, DatasetManifest manifest) {
        check(dir.toString(), manifest);
    }

    static void check(String name, DatasetManifest manifest) {
        if (manifest == null || !DatasetManifest.FORMAT.equals(manifest.format())) {
            throw bad(name, "format is not \"" + DatasetManifest.FORMAT + "\"", Kind.BAD_MANIFEST);
        }
        String version = manifest.formatVersion();
        // At most 9 digits each, so parsing cannot overflow.
        if (version == null || !version.matches("\\d{1,9}\\.\\d{1,9}")) {
            throw bad(name, "formatVersion is missing or malformed: " + version, Kind.BAD_MANIFEST);
        }
        if (Integer.parseInt(version.substring(0, version.indexOf('.'))) != ShardHeaderDescriptor.MAJOR_VERSION) {
            throw bad(name, "format version " + version + " is not supported (this reader reads "
                + ShardHeaderDescriptor.MAJOR_VERSION + ".x)", Kind.UNSUPPORTED_VERSION);
        }
        if (manifest.shards() == null || manifest.classes() == null) {
            throw bad(name, "shards or classes list is missing", Kind.BAD_MANIFEST);
        }
        for (int c = 0; c < manifest.classes().size(); c++) {
            if (manifest.classes().get(c) == null) {
                throw bad(name, "classes[" + c + "] is null, not a class name", Kind.BAD_MANIFEST);
            }
        }
        if (manifest.fields() != null) {
            try {
                FieldSchema.checkSchema(manifest.fields());
            } catch (ShardFormatException e) {
                throw bad(name, e.detail(), Kind.BAD_MANIFEST);
            }
        }
        long records = 0;
        long bytes = 0;
        Set<String> files = new HashSet<>();
        for (int s = 0; s < manifest.shards().size(); s++) {
            DatasetManifest.ShardEntry shard = manifest.shards().get(s);
            if (shard == null) {
                throw bad(name, "shards[" + s + "] is null, not a shard entry", Kind.BAD_MANIFEST);
            }
            String file = shard.file();
            // Shard names are plain file names inside the dataset directory: no traversal out of it.
            if (file == null || file.isEmpty() || file.contains("/") || file.contains("\\") || file.equals("..")
                || file.equals(".") || !files.add(file)) {
                throw bad(name, "shard file name " + quote(file) + " is not a unique plain file name", Kind.BAD_MANIFEST);
            }
            // No file system stores a NUL in a name, and control characters only serve to confuse terminals.
            if (file.chars().anyMatch(Character::isISOControl)) {
                throw bad(name, "shard file name " + quote(file) + " holds a control character (such as NUL or ESC)",
                    Kind.BAD_MANIFEST);
            }
            // A shard holds at most one 40-byte index entry per byte it has, which also keeps the sums below
            // from overflowing.
            if (shard.records() < 0 || shard.records() > shard.bytes() / IndexEntryDescriptor.LENGTH
                || shard.bytes() < ShardLayout.MIN_SHARD_BYTES
                || shard.bytes() > ShardLayout.MAX_SHARD_BYTES || shard.crc32c() == null
                || !shard.crc32c().matches("[0-9a-f]{8}")) {
                throw bad(name, "shard " + file + " has invalid records, bytes or crc32c", Kind.BAD_MANIFEST);
            }
            records += shard.records();
            bytes += shard.bytes();
        }
        if (records != manifest.records() || bytes != manifest.bytes()) {
            throw bad(name, "totals (" + manifest.records() + " records, " + manifest.bytes()
                + " bytes) differ from the sum over shards (" + records + ", " + bytes + ")", Kind.BAD_MANIFEST);
        }
    }

    /**
     * A shard file's actual length against its manifest entry, checked before the file is mapped: a
     * shorter file is truncated, any other difference a mismatch.
     */
    public static void checkShardSize(String dataset, DatasetManifest.ShardEntry entry, long actualBytes) {
        if (actualBytes != entry.bytes()) {
            throw new ShardFormatException(actualBytes < entry.bytes() ? Kind.TRUNCATED : Kind.MANIFEST_MISMATCH, dataset,
                entry.file(), -1, "file holds " + actualBytes + " bytes, the manifest says " + entry.bytes(), null);
        }
    }

    /**
     * The header shard number each listed shard must carry: its position among the shards whose names
     * share its prefix, the part of the name before the last {@code "shard-"} ({@code ""} for
     * {@code shard-00003.pinshard}, {@code "part-00001-of-00004-"} for a merged part's shard, whose
     * header keeps its part-local number). For a dataset written in one run that is the position in
     * the list.
     */
    public static int[] expectedShardNumbers(List<DatasetManifest.ShardEntry> shards) {
        int[] expected = new int[shards.size()];
        Map<String, Integer> seen = new HashMap<>();
        for (int i = 0; i < expected.length; i++) {
            String file = shards.get(i).file();
            int at = file.lastIndexOf("shard-");
            expected[i] = seen.merge(at < 0 ? "" : file.substring(0, at), 1, Integer::sum) - 1;
        }
        return expected;
    }

    /** A shard's header number against {@link #expectedShardNumbers}. */
    public static void checkShardNumber(String dataset, String shard, int expected, int headerNumber) {
        if (headerNumber != expected) {
            throw new ShardFormatException(Kind.MANIFEST_MISMATCH, dataset, shard, -1, "header shard number is "
                + Integer.toUnsignedString(headerNumber) + ", its place in the manifest says " + expected
                + " (a shard listed twice, or shards swapped or renamed)", null);
        }
    }

    private static String quote(String file) {
        return file == null ? "null" : "\"" + file + "\"";
    }

    private static ShardFormatException bad(String dataset, String detail, Kind kind) {
        return new ShardFormatException(kind, dataset, null, -1, "manifest: " + detail, null);
    }
}
