package io.pinshard.s3.transfer;

/** The names push and pull agree on: the user-metadata key of a shard's CRC32C. */
public final class ObjectNames {
    /**
     * User metadata (sent as {@code x-amz-meta-pinshard-crc32c}) holding the shard's whole-file CRC32C in the
     * manifest's spelling: what a resumed push trusts, since an ETag is an MD5 only for single-part uploads on
     * AWS and not on every S3-compatible store.
     */
    public static final String CRC32C_METADATA = "pinshard-crc32c";

    private ObjectNames() {
    }
}
