package io.pinshard.s3;

import io.pinshard.testkit.S3Endpoint;

/** Client settings for a test S3 server (testkit's, which knows nothing of S3Settings): its endpoint and account, path style. */
public final class S3TestSettings {
    private S3TestSettings() {
    }

    public static S3Settings.Builder of(S3Endpoint server) {
        return S3Settings.builder().endpoint(server.endpoint()).pathStyle(true).region("us-east-1")
            .credentials(server.accessKey(), server.secretKey());
    }
}
