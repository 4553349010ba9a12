package io.pinshard.s3;

import java.util.Objects;

/**
 * Where a dataset lives in object storage: {@code s3://bucket/prefix}. The prefix is a folder: the dataset's files
 * are the objects {@code prefix/<file name>} (or {@code <file name>} for an empty prefix).
 *
 * @param bucket the bucket name, as the store spells it
 * @param prefix the key prefix without leading or trailing '/', possibly empty
 */
public record S3Location(String bucket, String prefix) {
    /** The URI scheme this class parses. */
    public static final String SCHEME = "s3://";

    public S3Location {
        Objects.requireNonNull(bucket, "bucket");
        Objects.requireNonNull(prefix, "prefix");
        if (bucket.isEmpty() || bucket.contains("/")) {
            throw new IllegalArgumentException("not a bucket name: '" + bucket + "'");
        }
        if (prefix.startsWith("/") || prefix.endsWith("/")) {
            throw new IllegalArgumentException("prefix must not start or end with '/': '" + prefix + "'");
        }
    }

    /** True when {@code location} names object storage rather than a local path. */
    public static boolean isRemote(String location) {
        return location != null && location.startsWith(SCHEME);
    }

    /** Parses {@code s3://bucket[/prefix[/]]}; repeated slashes in the prefix are refused, not guessed at. */
    public static S3Location parse(String uri) {
        if (!isRemote(uri)) {
            throw new IllegalArgumentException("not an s3:// location: '" + uri + "'");
        }
        String rest = uri.substring(SCHEME.length());
        int slash = rest.indexOf('/');
        String bucket = slash < 0 ? rest : rest.substring(0, slash);
        String prefix = slash < 0 ? "" : rest.substring(slash + 1);
        while (prefix.endsWith("/")) {
            prefix = prefix.substring(0, prefix.length() - 1);
        }
        if (prefix.contains("//")) {
            throw new IllegalArgumentException("empty path segment in '" + uri + "'");
        }
        return new S3Location(bucket, prefix);
    }

    /** The object key of the dataset file {@code name}. */
    public String key(String name) {
        if (name.isEmpty() || name.startsWith("/")) {
            throw new IllegalArgumentException("not a file name: '" + name + "'");
        }
        return prefix.isEmpty() ? name : prefix + "/" + name;
    }

    /** {@code s3://bucket/key} of the dataset file {@code name}, for messages. */
    public String uri(String name) {
        return SCHEME + bucket + "/" + key(name);
    }

    /** The prefix used to list the dataset's objects: {@code prefix/}, or empty. */
    public String listPrefix() {
        return prefix.isEmpty() ? "" : prefix + "/";
    }

    @Override
    public String toString() {
        return SCHEME + bucket + (prefix.isEmpty() ? "" : "/" + prefix);
    }
}
