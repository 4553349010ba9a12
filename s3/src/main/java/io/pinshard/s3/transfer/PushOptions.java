package io.pinshard.s3.transfer;

/**
 * How {@link DatasetPush} uploads.
 *
 * @param threads            shards uploaded at once (the parts of one shard go one after another)
 * @param multipartThreshold shards of at least this many bytes go up in parts
 * @param partSize           bytes per part (the last one smaller); at least S3's minimum of 5 MiB, and raised for a
 *                           shard that would otherwise need more than S3's 10,000 parts
 * @param check              what is verified locally before anything is uploaded
 * @param force              replace a different dataset's manifest at the destination
 * @param deleteStale        once the new manifest is in place, delete {@code *.pinshard} objects directly under the
 *                           prefix that it does not list
 */
public record PushOptions(int threads, long multipartThreshold, long partSize, LocalCheck check, boolean force,
                          boolean deleteStale) {
    /** S3's smallest part but the last. */
    public static final long MIN_PART_SIZE = 5L << 20;
    /** S3's most parts per upload. */
    public static final int MAX_PARTS = 10_000;

    /** What is checked in the local dataset before the first byte goes up. */
    public enum LocalCheck {
        /** Manifest, file rules and each shard's structure and index checksum; whole-file CRCs while uploading. */
        STRUCTURE,
        /** {@code verify --no-decode}: every checksum (whole file, payloads, index, metadata) and every structure rule. */
        CHECKSUMS,
        /** {@code verify}: checksums, and every payload decoded as the loader decodes it. */
        DECODE
    }

    public PushOptions {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be at least 1: " + threads);
        }
        if (partSize < MIN_PART_SIZE) {
            throw new IllegalArgumentException("part size " + partSize + " is below S3's minimum of " + MIN_PART_SIZE);
        }
        if (multipartThreshold < partSize) {
            throw new IllegalArgumentException("multipart threshold " + multipartThreshold + " is below the part size "
                + partSize);
        }
        if (check == null) {
            throw new IllegalArgumentException("check must be given");
        }
    }

    /** 4 threads, parts of 16 MiB above 64 MiB, checksums verified, nothing replaced or deleted. */
    public static PushOptions defaults() {
        return new PushOptions(4, 64L << 20, 16L << 20, LocalCheck.CHECKSUMS, false, false);
    }

    public PushOptions withThreads(int n) {
        return new PushOptions(n, multipartThreshold, partSize, check, force, deleteStale);
    }

    public PushOptions withMultipart(long threshold, long part) {
        return new PushOptions(threads, threshold, part, check, force, deleteStale);
    }

    public PushOptions withCheck(LocalCheck c) {
        return new PushOptions(threads, multipartThreshold, partSize, c, force, deleteStale);
    }

    public PushOptions withForce(boolean f) {
        return new PushOptions(threads, multipartThreshold, partSize, check, f, deleteStale);
    }

    public PushOptions withDeleteStale(boolean d) {
        return new PushOptions(threads, multipartThreshold, partSize, check, force, d);
    }

    /** The part size for a shard of {@code bytes}: {@link #partSize}, or larger to stay within {@link #MAX_PARTS}. */
    long partSizeFor(long bytes) {
        long needed = (bytes + MAX_PARTS - 1) / MAX_PARTS;
        long mib = 1L << 20;
        return needed <= partSize ? partSize : (needed + mib - 1) / mib * mib;
    }
}
