package io.pinshard.format;

import io.pinshard.format.ShardFormatException.Kind;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;

/** What a manifest must satisfy before any of its numbers or names are used. */
final class ManifestRules {
    private ManifestRules() {
    }

    static void check(Path dir, DatasetManifest manifest) {
        String name = dir.toString();
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
        long records = 0;
        long bytes = 0;
        Set<String> files = new HashSet<>();
        for (DatasetManifest.ShardEntry shard : manifest.shards()) {
            String file = shard.file();
            // Shard names are plain file names inside the dataset directory: no traversal out of it.
            if (file == null || file.isEmpty() || file.contains("/") || file.contains("\\") || file.equals("..")
                || file.equals(".") || !files.add(file)) {
                throw bad(name, "shard file name " + file + " is not a unique plain file name", Kind.BAD_MANIFEST);
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

    private static ShardFormatException bad(String dataset, String detail, Kind kind) {
        return new ShardFormatException(kind, dataset, null, -1, "manifest: " + detail, null);
    }
}
