package io.pinshard.s3.transfer;

import io.pinshard.s3.S3Location;

/** The names push and pull agree on: the user-metadata key of a shard's CRC32C, and how objects are shown. */
public final class ObjectNames {
    /**
     * User metadata (sent as {@code x-amz-meta-pinshard-crc32c}) holding the shard's whole-file CRC32C in the
     * manifest's spelling: what a resumed push trusts, since an ETag is an MD5 only for single-part uploads on
     * AWS and not on every S3-compatible store.
     */
    public static final String CRC32C_METADATA = "pinshard-crc32c";

    private ObjectNames() {
    }

    /** {@code s3://bucket/key} of dataset file {@code name} at {@code location}, for messages. */
    public static String uri(S3Location location, String name) {
        return S3Location.SCHEME + location.bucket() + "/" + location.key(name);
    }
}
