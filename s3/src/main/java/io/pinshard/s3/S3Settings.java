package io.pinshard.s3;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.apache.ApacheHttpClient;

/**
 * How to reach an S3-compatible store. Every setting left empty comes from the AWS SDK's standard configuration
 * ({@code AWS_ENDPOINT_URL}, {@code AWS_REGION}, {@code AWS_ACCESS_KEY_ID}/{@code AWS_SECRET_ACCESS_KEY},
 * {@code AWS_PROFILE} and the shared config files), so a user who already has those set passes nothing.
 * Credentials given here are held only in memory: {@link #toString()} never prints the secret.
 */
public final class S3Settings {
    /** The region used when neither this object nor the SDK's configuration names one (local stores ignore it). */
    public static final String FALLBACK_REGION = "us-east-1";

    private final URI endpoint;
    private final String region;
    private final boolean pathStyle;
    private final String accessKeyId;
    private final String secretAccessKey;
    private final int maxAttempts;
    private final Duration attemptTimeout;
    private final Duration callTimeout;
    private final int concurrentFetches;
    private final ChunkedEncoding chunkedEncoding;
    private final SdkHttpClient.Builder<?> httpClient;
    private final List<ExecutionInterceptor> interceptors;

    /**
     * Whether the SDK sends request bodies aws-chunked (signed chunk by chunk; it does so over http, not over https).
     * Some S3 implementations (node's s3rver) accept such bodies but store them verbatim, framing included.
     */
    public enum ChunkedEncoding {
        /** On, and a push that finds framing stored pushes again with it off (the default). */
        AUTO,
        ON,
        OFF;

        /** The environment setting that gives the default. */
        public static final String ENVIRONMENT = "PINSHARD_S3_CHUNKED_ENCODING";

        /**
         * {@code auto}, {@code on} or {@code off}, any case.
         *
         * @throws IllegalArgumentException naming {@code source} (an option or the environment setting)
         */
        public static ChunkedEncoding parse(String text, String source) {
            for (ChunkedEncoding mode : values()) {
                if (mode.name().equalsIgnoreCase(text.strip())) {
                    return mode;
                }
            }
            throw new IllegalArgumentException(source + ": '" + text + "' is not auto, on or off");
        }

        /** What {@value #ENVIRONMENT} says, else {@link #AUTO}. */
        static ChunkedEncoding fromEnvironment() {
            String value = System.getenv(ENVIRONMENT);
            return value == null || value.isBlank() ? AUTO : parse(value, ENVIRONMENT);
        }
    }

    private S3Settings(Builder b) {
        this.endpoint = b.endpoint;
        this.region = b.region;
        this.pathStyle = b.pathStyle;
        this.accessKeyId = b.accessKeyId;
        this.secretAccessKey = b.secretAccessKey;
        this.maxAttempts = b.maxAttempts;
        this.attemptTimeout = b.attemptTimeout;
        this.callTimeout = b.callTimeout;
        this.concurrentFetches = b.concurrentFetches;
        this.chunkedEncoding = b.chunkedEncoding;
        this.httpClient = b.httpClient;
        this.interceptors = List.copyOf(b.interceptors);
    }

    /** Settings that take everything from the SDK's standard configuration. */
    public static S3Settings defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    public Optional<URI> endpoint() {
        return Optional.ofNullable(endpoint);
    }

    public Optional<String> region() {
        return Optional.ofNullable(region);
    }

    /** Path-style addressing ({@code endpoint/bucket/key}), which MinIO, Ceph and local servers need. */
    public boolean pathStyle() {
        return pathStyle;
    }

    /** Static credentials when both parts were given; otherwise the SDK's default provider chain is used. */
    public boolean hasStaticCredentials() {
        return accessKeyId != null && secretAccessKey != null;
    }

    String accessKeyId() {
        return accessKeyId;
    }

    String secretAccessKey() {
        return secretAccessKey;
    }

    /** Attempts per request, the first included, before the SDK gives up (retries back off between attempts). */
    public int maxAttempts() {
        return maxAttempts;
    }

    /** The limit on one attempt of a request (connect, send, read the whole response). */
    public Duration attemptTimeout() {
        return attemptTimeout;
    }

    /** The limit on one request with all its retries: the bound on how long a failing fetch can take. */
    public Duration callTimeout() {
        return callTimeout;
    }

    /** Shards a loader may download at once from this store (default {@value Builder#DEFAULT_CONCURRENT_FETCHES}). */
    public int concurrentFetches() {
        return concurrentFetches;
    }

    /** Whether request bodies go aws-chunked; {@link ChunkedEncoding#AUTO} sends them so. */
    public ChunkedEncoding chunkedEncoding() {
        return chunkedEncoding;
    }

    /** The HTTP client the S3 client is built over: Apache's unless the builder set another (a benchmark's). */
    public SdkHttpClient.Builder<?> httpClient() {
        return httpClient != null ? httpClient : ApacheHttpClient.builder();
    }

    /** Interceptors the client runs on every request (a test's or benchmark's request counter); none by default. */
    public List<ExecutionInterceptor> interceptors() {
        return interceptors;
    }

    /** These settings with request bodies sent aws-chunked or not. */
    public S3Settings withChunkedEncoding(ChunkedEncoding mode) {
        Builder b = new Builder();
        b.endpoint = endpoint;
        b.region = region;
        b.pathStyle = pathStyle;
        b.accessKeyId = accessKeyId;
        b.secretAccessKey = secretAccessKey;
        b.maxAttempts = maxAttempts;
        b.attemptTimeout = attemptTimeout;
        b.callTimeout = callTimeout;
        b.concurrentFetches = concurrentFetches;
        b.httpClient = httpClient;
        b.interceptors.addAll(interceptors);
        return b.chunkedEncoding(mode).build();
    }

    @Override
    public String toString() {
        return "S3Settings{endpoint=" + (endpoint == null ? "(sdk default)" : endpoint)
            + ", region=" + (region == null ? "(sdk default)" : region)
            + ", pathStyle=" + pathStyle
            + ", credentials=" + (hasStaticCredentials() ? "static key " + accessKeyId : "(sdk default chain)")
            + ", maxAttempts=" + maxAttempts + ", attemptTimeout=" + attemptTimeout
            + ", callTimeout=" + callTimeout + ", concurrentFetches=" + concurrentFetches
            + ", chunkedEncoding=" + chunkedEncoding + "}";
    }

    /** Builder; every setting is optional. */
    public static final class Builder {
        private URI endpoint;
        private String region;
        private boolean pathStyle;
        private String accessKeyId;
        private String secretAccessKey;
        private int maxAttempts = 5;
        private Duration attemptTimeout = Duration.ofSeconds(60);
        /**
         * Four downloads in flight: enough to hide a loopback or LAN store's latency and the cache's fsync behind
         * a window's decode (one at a time the loader waited on them), few enough not to crowd the decode workers.
         */
        public static final int DEFAULT_CONCURRENT_FETCHES = 4;

        private Duration callTimeout = Duration.ofMinutes(5);
        private int concurrentFetches = DEFAULT_CONCURRENT_FETCHES;
        private ChunkedEncoding chunkedEncoding;
        private SdkHttpClient.Builder<?> httpClient;
        private final List<ExecutionInterceptor> interceptors = new ArrayList<>();

        private Builder() {
        }

        /** An endpoint such as {@code http://127.0.0.1:9000}; implies nothing about path style. */
        public Builder endpoint(URI endpoint) {
            if (endpoint != null && (endpoint.getScheme() == null || endpoint.getHost() == null)) {
                throw new IllegalArgumentException("endpoint needs a scheme and a host: '" + endpoint + "'");
            }
            this.endpoint = endpoint;
            return this;
        }

        public Builder region(String region) {
            this.region = region == null || region.isBlank() ? null : region;
            return this;
        }

        public Builder pathStyle(boolean pathStyle) {
            this.pathStyle = pathStyle;
            return this;
        }

        /** Static credentials; both or neither. */
        public Builder credentials(String accessKeyId, String secretAccessKey) {
            if ((accessKeyId == null) != (secretAccessKey == null)) {
                throw new IllegalArgumentException("give both the access key id and the secret, or neither");
            }
            this.accessKeyId = accessKeyId;
            this.secretAccessKey = secretAccessKey;
            return this;
        }

        public Builder maxAttempts(int maxAttempts) {
            if (maxAttempts < 1) {
                throw new IllegalArgumentException("maxAttempts must be at least 1, not " + maxAttempts);
            }
            this.maxAttempts = maxAttempts;
            return this;
        }

        public Builder attemptTimeout(Duration attemptTimeout) {
            this.attemptTimeout = positive(attemptTimeout, "attemptTimeout");
            return this;
        }

        public Builder callTimeout(Duration callTimeout) {
            this.callTimeout = positive(callTimeout, "callTimeout");
            return this;
        }

        /** Shards a loader may download at once (1 to 64). */
        public Builder concurrentFetches(int concurrentFetches) {
            if (concurrentFetches < 1 || concurrentFetches > 64) {
                throw new IllegalArgumentException("concurrentFetches must be 1 to 64, not " + concurrentFetches);
            }
            this.concurrentFetches = concurrentFetches;
            return this;
        }

        /** Whether request bodies go aws-chunked (default: {@value ChunkedEncoding#ENVIRONMENT}, else auto). */
        public Builder chunkedEncoding(ChunkedEncoding mode) {
            this.chunkedEncoding = mode;
            return this;
        }

        /** Another HTTP client than Apache's (DownloadCpuBench compares them); null: Apache's. */
        public Builder httpClient(SdkHttpClient.Builder<?> httpClient) {
            this.httpClient = httpClient;
            return this;
        }

        /** Adds an interceptor run on every request of the clients built from these settings. */
        public Builder interceptor(ExecutionInterceptor interceptor) {
            this.interceptors.add(Objects.requireNonNull(interceptor, "interceptor"));
            return this;
        }

        /** @throws IllegalArgumentException when {@value ChunkedEncoding#ENVIRONMENT} is not auto, on or off */
        public S3Settings build() {
            if (chunkedEncoding == null) {
                chunkedEncoding = ChunkedEncoding.fromEnvironment();
            }
            return new S3Settings(this);
        }

        private static Duration positive(Duration d, String name) {
            Objects.requireNonNull(d, name);
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(name + " must be positive, not " + d);
            }
            return d;
        }
    }
}
