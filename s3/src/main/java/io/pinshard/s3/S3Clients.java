package io.pinshard.s3;

import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.regions.providers.DefaultAwsRegionProviderChain;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;
import software.amazon.awssdk.services.s3.S3Configuration;

/** Builds the one kind of S3 client pinshard uses, configured for S3-compatible stores as well as AWS. */
public final class S3Clients {
    private S3Clients() {
    }

    /**
     * A synchronous client for {@code settings}. Request checksums are computed and response checksums validated
     * only when the operation requires them: since SDK 2.30 the default sends CRC headers many S3-compatible
     * servers reject, and pinshard verifies shards with its own checksums anyway. Request bodies go aws-chunked
     * (over http, where the SDK signs them) unless the settings turn it {@link S3Settings.ChunkedEncoding#OFF off}.
     */
    public static S3Client create(S3Settings settings) {
        S3ClientBuilder builder = S3Client.builder()
            .httpClientBuilder(settings.httpClient())
            .region(region(settings))
            .forcePathStyle(settings.pathStyle())
            .serviceConfiguration(S3Configuration.builder()
                .chunkedEncodingEnabled(settings.chunkedEncoding() != S3Settings.ChunkedEncoding.OFF).build())
            .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
            .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
            .overrideConfiguration(o -> o
                .retryStrategy(AwsRetryStrategy.standardRetryStrategy().toBuilder()
                    .maxAttempts(settings.maxAttempts()).build())
                .apiCallAttemptTimeout(settings.attemptTimeout())
                .apiCallTimeout(settings.callTimeout())
                .executionInterceptors(settings.interceptors()));
        settings.endpoint().ifPresent(builder::endpointOverride);
        builder.credentialsProvider(settings.hasStaticCredentials()
            ? StaticCredentialsProvider.create(
                AwsBasicCredentials.create(settings.accessKeyId(), settings.secretAccessKey()))
            : DefaultCredentialsProvider.builder().build());
        return builder.build();
    }

    /** The configured region, else the SDK's (environment, profile), else {@link S3Settings#FALLBACK_REGION}. */
    static Region region(S3Settings settings) {
        if (settings.region().isPresent()) {
            return Region.of(settings.region().get());
        }
        try {
            return new DefaultAwsRegionProviderChain().getRegion();
        } catch (RuntimeException noneConfigured) {
            // S3-compatible stores mostly ignore the region, but the SDK refuses to build without one.
            return Region.of(S3Settings.FALLBACK_REGION);
        }
    }
}
