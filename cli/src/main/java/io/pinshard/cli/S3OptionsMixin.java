package io.pinshard.cli;

import io.pinshard.s3.S3Settings;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import software.amazon.awssdk.profiles.Profile;
import software.amazon.awssdk.profiles.ProfileFile;

/**
 * How every command that reads or writes {@code s3://} locations reaches the store. Whatever is not given comes
 * from the AWS SDK's standard configuration, so a user with {@code AWS_ENDPOINT_URL}, {@code AWS_REGION},
 * {@code AWS_ACCESS_KEY_ID}/{@code AWS_SECRET_ACCESS_KEY} or {@code AWS_PROFILE} set passes nothing. There is
 * deliberately no option taking the secret itself: a secret on the command line shows in {@code ps} and shell
 * history.
 *
 * <p>The options are one section at the end of {@code --help}, and the synopsis of each command that mixes them in
 * is abbreviated ({@code [OPTIONS]}) rather than listing them all again.
 */
@Command(abbreviateSynopsis = true)
final class S3OptionsMixin {
    /** In a section of their own at the end of --help, not among each command's options. */
    @ArgGroup(validate = false, heading = "%nS3 options (for s3:// locations; what is not given comes from the AWS "
        + "SDK's configuration, AWS_* variables and ~/.aws; see docs/object-storage.md):%n", order = 100)
    Options options = new Options();

    /** The options themselves; defaults are field values, which an argument group keeps when none is given. */
    static final class Options {
        @Option(names = "--s3-endpoint", paramLabel = "URL", description = "S3-compatible endpoint, e.g. "
            + "http://minio:9000 or https://<account>.r2.cloudflarestorage.com (default: AWS_ENDPOINT_URL, else AWS).")
        URI endpoint;

        @Option(names = "--s3-region", paramLabel = "NAME", description = "Region (default: AWS_REGION or the "
            + "profile's, else " + S3Settings.FALLBACK_REGION
            + "; most S3-compatible stores ignore it, R2 wants 'auto').")
        String region;

        @Option(names = "--s3-path-style", description = "Path-style addressing (endpoint/bucket/key), which MinIO, "
            + "Ceph RGW and most local stores need (default: virtual-hosted, bucket.endpoint/key).")
        boolean pathStyle;

        @Option(names = "--s3-credentials-file", paramLabel = "FILE", description = "Static credentials from FILE, in "
            + "the format of ~/.aws/credentials (aws_access_key_id, aws_secret_access_key under [default] or the "
            + "--s3-profile section). Default: the SDK's chain (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_PROFILE, "
            + "~/.aws/credentials, instance roles). The secret is never taken on the command line, logged or written.")
        Path credentialsFile;

        @Option(names = "--s3-profile", paramLabel = "NAME", description = "The section of --s3-credentials-file "
            + "to use (default: default). Without --s3-credentials-file, set AWS_PROFILE instead.")
        String profile;

        @Option(names = "--s3-max-attempts", paramLabel = "N", defaultValue = "5", description = "Attempts per request "
            + "before giving up, with backoff between them (default ${DEFAULT-VALUE}).")
        int maxAttempts = 5;

        @Option(names = "--s3-timeout", paramLabel = "SECONDS", defaultValue = "300", description = "Limit on fetching "
            + "one object, every attempt included, per 256 MiB of it (default ${DEFAULT-VALUE}).")
        long callTimeoutSeconds = 300;

        @Option(names = "--s3-concurrent-fetches", paramLabel = "N", defaultValue = "4", description = "Shards "
            + "the loader downloads at once, ahead of its workers, when it streams a dataset (default "
            + "${DEFAULT-VALUE}).")
        int concurrentFetches = 4;

        @Option(names = "--s3-chunked-encoding", paramLabel = "auto|on|off", description = "Send request bodies "
            + "aws-chunked, as the SDK does over http: 'auto' (the default, or " + S3Settings.ChunkedEncoding.ENVIRONMENT
            + ") sends them so and, when a pushed object was stored with the framing (node's s3rver keeps it), "
            + "pushes again with it off; 'off' for such stores; 'on' never falls back.")
        String chunkedEncoding;
    }

    /**
     * The settings these options describe.
     *
     * @throws IllegalArgumentException naming the option or file that is wrong (the secret is never in the message)
     */
    S3Settings settings() {
        Options o = options;
        S3Settings.Builder builder = S3Settings.builder().endpoint(o.endpoint).region(o.region)
            .pathStyle(o.pathStyle).maxAttempts(o.maxAttempts).callTimeout(Duration.ofSeconds(o.callTimeoutSeconds))
            .concurrentFetches(o.concurrentFetches);
        if (o.chunkedEncoding != null) {
            builder.chunkedEncoding(S3Settings.ChunkedEncoding.parse(o.chunkedEncoding, "--s3-chunked-encoding"));
        }
        Path credentialsFile = o.credentialsFile;
        String profile = o.profile;
        if (credentialsFile != null) {
            String section = profile == null ? "default" : profile;
            Profile found = readProfile(credentialsFile, section);
            String keyId = found.property("aws_access_key_id").orElse(null);
            String secret = found.property("aws_secret_access_key").orElse(null);
            if (keyId == null || secret == null) {
                throw new IllegalArgumentException("--s3-credentials-file " + credentialsFile + ": section [" + section
                    + "] needs both aws_access_key_id and aws_secret_access_key");
            }
            if (found.property("aws_session_token").isPresent()) {
                throw new IllegalArgumentException("--s3-credentials-file " + credentialsFile + ": section [" + section
                    + "] has a session token, which static credentials cannot carry: use AWS_PROFILE=" + section
                    + " and AWS_SHARED_CREDENTIALS_FILE instead");
            }
            builder.credentials(keyId, secret);
        } else if (profile != null) {
            throw new IllegalArgumentException("--s3-profile needs --s3-credentials-file (or set AWS_PROFILE)");
        }
        return builder.build();
    }

    private static Profile readProfile(Path file, String section) {
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException("--s3-credentials-file " + file + ": not a readable file");
        }
        ProfileFile parsed;
        try {
            parsed = ProfileFile.builder().content(file).type(ProfileFile.Type.CREDENTIALS).build();
        } catch (RuntimeException e) {
            // The SDK's parse errors quote line numbers, not values; still, do not pass its message through.
            throw new IllegalArgumentException("--s3-credentials-file " + file + ": not a credentials file");
        }
        Optional<Profile> found = parsed.profile(section);
        return found.orElseThrow(() -> new IllegalArgumentException(
            "--s3-credentials-file " + file + ": no section [" + section + "]"));
    }
}
