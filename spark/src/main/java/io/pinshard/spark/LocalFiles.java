package io.pinshard.spark;

import java.nio.file.Path;

/** Which of Spark's path strings name a local file, and which file: one rule for the driver's input and the tasks' rows. */
final class LocalFiles {
    private LocalFiles() {
    }

    /**
     * The local file {@code path} names (a plain path or a {@code file:} URI, as binaryFile writes it: not
     * percent-encoded, so parsed by Hadoop's {@code Path}), or null for another file system ({@code hdfs://},
     * {@code s3a://}, or a {@code file:} URI with a host).
     *
     * @throws IllegalArgumentException when {@code path} is no path at all ({@code file:}, {@code file:relative}, a NUL)
     */
    static Path of(String path) {
        if (path.startsWith("file:")) {
            java.net.URI uri = new org.apache.hadoop.fs.Path(path).toUri();
            String host = uri.getAuthority();
            return host == null || host.isEmpty() || host.equals("localhost") ? Path.of(uri.getPath()) : null;
        }
        return path.matches("^[A-Za-z][A-Za-z0-9+.-]*://.*") ? null : Path.of(path);
    }
}
