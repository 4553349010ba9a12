package io.pinshard.writer;

/** The writer's identity as stored in shard metadata and manifests. */
public final class WriterVersion {
    private WriterVersion() {
    }

    public static String current() {
        String version = WriterVersion.class.getPackage().getImplementationVersion();
        return "pinshard " + (version != null ? version : "0.1.0-SNAPSHOT");
    }
}
