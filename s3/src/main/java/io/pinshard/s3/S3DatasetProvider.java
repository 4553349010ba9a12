package io.pinshard.s3;

import io.pinshard.reader.ShardSource;
import io.pinshard.reader.ShardSourceProvider;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * Serves {@code s3://} locations to {@link io.pinshard.reader.Dataset#open(String)} (registered in
 * {@code META-INF/services}). Options by name, each also read from the system property {@code pinshard.s3.NAME}:
 * {@code endpoint}, {@code region}, {@code pathStyle} (true/false), {@code cacheDir} (the base: each dataset gets {@code <bucket>/<hash>} under it), {@code cacheLimit} (bytes),
 * {@code maxAttempts}, {@code attemptTimeoutMs}, {@code callTimeoutMs}, {@code concurrentFetches}. What is not given comes from the AWS SDK's
 * standard configuration, credentials always (environment, system properties, profiles): never from here.
 */
public final class S3DatasetProvider implements ShardSourceProvider {
    /** Prefix of the system properties that supply options not given in the map. */
    public static final String PROPERTY_PREFIX = "pinshard.s3.";

    @Override
    public String scheme() {
        return S3Location.SCHEME;
    }

    @Override
    public ShardSource open(String location, Map<String, String> options) {
        S3Settings.Builder settings = S3Settings.builder();
        String endpoint = option(options, "endpoint");
        if (endpoint != null) {
            settings.endpoint(URI.create(endpoint));
        }
        settings.region(option(options, "region"));
        settings.pathStyle(Boolean.parseBoolean(option(options, "pathStyle")));
        String attempts = option(options, "maxAttempts");
        if (attempts != null) {
            settings.maxAttempts(Integer.parseInt(attempts));
        }
        String attemptTimeout = option(options, "attemptTimeoutMs");
        if (attemptTimeout != null) {
            settings.attemptTimeout(Duration.ofMillis(Long.parseLong(attemptTimeout)));
        }
        String callTimeout = option(options, "callTimeoutMs");
        if (callTimeout != null) {
            settings.callTimeout(Duration.ofMillis(Long.parseLong(callTimeout)));
        }
        String fetches = option(options, "concurrentFetches");
        if (fetches != null) {
            settings.concurrentFetches(Integer.parseInt(fetches));
        }
        String cacheDir = option(options, "cacheDir");
        String limit = option(options, "cacheLimit");
        S3Location parsed = S3Location.parse(location);
        return source(parsed, settings.build(), cacheDir == null ? null : Path.of(cacheDir),
            limit == null ? Long.MAX_VALUE : Long.parseLong(limit));
    }

    /**
     * The cache-backed source of {@code location}, the one way an {@code s3://} dataset is opened: by
     * {@link io.pinshard.reader.Dataset#open(String)} through {@link #open(String, Map)}, and by the CLI with its
     * S3 and cache options. Its shards are cached under {@code cacheBase} ({@code null}: the default base), in the
     * dataset's own {@code <bucket>/<hash>} folder, holding at most {@code limitBytes} at once.
     */
    public static S3ShardSource source(S3Location location, S3Settings settings, Path cacheBase, long limitBytes) {
        return S3ShardSource.open(location, settings, S3ShardSource.cacheDirectory(cacheBase, location, settings),
            limitBytes);
    }

    private static String option(Map<String, String> options, String name) {
        String value = options.get(name);
        return value != null ? value : System.getProperty(PROPERTY_PREFIX + name);
    }
}
