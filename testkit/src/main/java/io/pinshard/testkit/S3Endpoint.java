package io.pinshard.testkit;

import java.net.URI;

/**
 * Where a test S3 server listens and the account it accepts: what a client needs (the s3 module's tests turn it into
 * their settings, path style and region us-east-1), so the testkit needs nothing of the s3 module.
 */
public interface S3Endpoint {
    URI endpoint();

    String accessKey();

    String secretKey();

    /** An endpoint and account known by value (a server in another JVM). */
    static S3Endpoint of(URI endpoint, String accessKey, String secretKey) {
        record Known(URI endpoint, String accessKey, String secretKey) implements S3Endpoint {
            @Override
            public String toString() {
                return "S3Endpoint[" + endpoint + ", " + accessKey + "]"; // never the secret
            }
        }
        return new Known(endpoint, accessKey, secretKey);
    }
}
