package io.pinshard.format;

/**
 * A shard, manifest or record that breaks the format. The message names the dataset, shard file and
 * record (when known) and what is wrong; {@link #kind()} lets callers and tests tell problems apart.
 */
public final class ShardFormatException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** The distinct ways input can be wrong. */
    public enum Kind {
        NOT_A_DATASET,
        BAD_MAGIC,
        UNSUPPORTED_VERSION,
        TRUNCATED,
        TOO_LARGE,
        BAD_HEADER,
        BAD_FOOTER,
        OFFSET_OUT_OF_BOUNDS,
        OVERLAPPING_RECORDS,
        MISALIGNED,
        BAD_INDEX_ENTRY,
        NONZERO_PADDING,
        CHECKSUM_MISMATCH,
        MANIFEST_MISMATCH,
        BAD_MANIFEST,
        UNDECODABLE_PAYLOAD,
        /** A fields section (format 1.1) or a field value that breaks SPEC.md section 17. */
        BAD_FIELDS,
        /** A listed file that is not a regular file, or a link out of the dataset directory (SPEC.md section 14). */
        UNSAFE_FILE,
        IO_ERROR
    }

    private final Kind kind;
    private final String dataset;
    private final String shard;
    private final long record;
    private final String detail;

    public ShardFormatException(Kind kind, String detail) {
        this(kind, null, null, -1, detail, null);
    }

    public ShardFormatException(Kind kind, long record, String detail) {
        this(kind, null, null, record, detail, null);
    }

    public ShardFormatException(Kind kind, String dataset, String shard, long record, String detail, Throwable cause) {
        super(format(kind, dataset, shard, record, detail), cause);
        this.kind = kind;
        this.dataset = dataset;
        this.shard = shard;
        this.record = record;
        this.detail = detail;
    }

    /** The same problem with the dataset and shard it was found in filled in. */
    public ShardFormatException in(String datasetName, String shardName) {
        return new ShardFormatException(kind, dataset != null ? dataset : datasetName,
            shard != null ? shard : shardName, record, detail, getCause());
    }

    /** The same problem at a given record number (within its shard). */
    public ShardFormatException atRecord(long recordNumber) {
        return new ShardFormatException(kind, dataset, shard, recordNumber, detail, getCause());
    }

    public Kind kind() {
        return kind;
    }

    public String dataset() {
        return dataset;
    }

    public String shard() {
        return shard;
    }

    /** Record number within the shard, or -1 when the problem is not about one record. */
    public long record() {
        return record;
    }

    public String detail() {
        return detail;
    }

    /** The message, with every control character escaped: names come from untrusted manifests. */
    private static String format(Kind kind, String dataset, String shard, long record, String detail) {
        StringBuilder text = new StringBuilder();
        if (dataset != null) {
            text.append("dataset ").append(dataset).append(": ");
        }
        if (shard != null) {
            text.append("shard ").append(shard).append(": ");
        }
        if (record >= 0) {
            text.append("record ").append(record).append(": ");
        }
        return Printable.escape(text.append(detail).append(" [").append(kind).append(']').toString());
    }
}
