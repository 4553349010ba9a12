package io.pinshard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.pinshard.s3.S3Settings;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** The S3 options reach S3Settings as given, credentials come from a file, and the secret never shows. */
class S3OptionsMixinTest {
    private static final String SECRET = "wJalrXUtnFEMI-not-a-real-secret";

    @TempDir
    Path dir;

    @Command(name = "holder")
    static final class Holder {
        @Mixin
        S3OptionsMixin s3 = new S3OptionsMixin();
    }

    private static S3Settings parse(String... args) {
        Holder holder = new Holder();
        new CommandLine(holder).parseArgs(args);
        return holder.s3.settings();
    }

    @Test
    void withoutOptionsEverythingComesFromTheSdk() {
        S3Settings settings = parse();
        assertEquals(Optional.empty(), settings.endpoint());
        assertEquals(Optional.empty(), settings.region());
        assertFalse(settings.pathStyle());
        assertFalse(settings.hasStaticCredentials());
    }

    @Test
    void endpointRegionPathStyleAndLimitsReachTheSettings() {
        S3Settings settings = parse("--s3-endpoint", "http://127.0.0.1:9000", "--s3-region", "auto",
            "--s3-path-style", "--s3-max-attempts", "2", "--s3-timeout", "7");
        assertEquals(Optional.of(URI.create("http://127.0.0.1:9000")), settings.endpoint());
        assertEquals(Optional.of("auto"), settings.region());
        assertTrue(settings.pathStyle());
        assertEquals(2, settings.maxAttempts());
        assertEquals(Duration.ofSeconds(7), settings.callTimeout());
    }

    @Test
    void credentialsComeFromTheNamedSectionOfTheFileAndAreNeverPrinted() throws IOException {
        Path file = dir.resolve("credentials");
        Files.writeString(file, "[default]\naws_access_key_id = AKIADEFAULT\naws_secret_access_key = other\n"
            + "[minio]\naws_access_key_id = AKIAMINIO\naws_secret_access_key = " + SECRET + "\n");
        S3Settings settings = parse("--s3-credentials-file", file.toString(), "--s3-profile", "minio");
        assertTrue(settings.hasStaticCredentials());
        assertTrue(settings.toString().contains("AKIAMINIO"), settings.toString());
        assertFalse(settings.toString().contains(SECRET), settings.toString());
        assertTrue(parse("--s3-credentials-file", file.toString()).toString().contains("AKIADEFAULT"));
    }

    @Test
    void incompleteOrMisplacedCredentialsAreRefusedWithoutQuotingTheSecret() throws IOException {
        Path file = dir.resolve("credentials");
        Files.writeString(file, "[default]\naws_secret_access_key = " + SECRET + "\n"
            + "[session]\naws_access_key_id = A\naws_secret_access_key = " + SECRET + "\naws_session_token = T\n");
        String args = "--s3-credentials-file=" + file;
        IllegalArgumentException noKey = assertThrows(IllegalArgumentException.class, () -> parse(args));
        assertTrue(noKey.getMessage().contains("aws_access_key_id"), noKey.getMessage());
        IllegalArgumentException session = assertThrows(IllegalArgumentException.class,
            () -> parse(args, "--s3-profile", "session"));
        assertTrue(session.getMessage().contains("session token"), session.getMessage());
        IllegalArgumentException missing = assertThrows(IllegalArgumentException.class,
            () -> parse(args, "--s3-profile", "nope"));
        assertTrue(missing.getMessage().contains("[nope]"), missing.getMessage());
        IllegalArgumentException noFile = assertThrows(IllegalArgumentException.class,
            () -> parse("--s3-credentials-file", dir.resolve("absent").toString()));
        assertTrue(noFile.getMessage().contains("absent"), noFile.getMessage());
        assertThrows(IllegalArgumentException.class, () -> parse("--s3-profile", "minio"));
        for (IllegalArgumentException e : new IllegalArgumentException[] {noKey, session, missing}) {
            assertFalse(e.getMessage().contains(SECRET), e.getMessage());
        }
    }

    @Test
    void chunkedEncodingComesFromTheOptionElseTheEnvironmentElseAuto() {
        assumeTrue(System.getenv(S3Settings.ChunkedEncoding.ENVIRONMENT) == null, "the environment sets it");
        assertEquals(S3Settings.ChunkedEncoding.AUTO, parse().chunkedEncoding());
        assertEquals(S3Settings.ChunkedEncoding.OFF, parse("--s3-chunked-encoding", "off").chunkedEncoding());
        assertEquals(S3Settings.ChunkedEncoding.ON, parse("--s3-chunked-encoding=ON").chunkedEncoding());
        IllegalArgumentException wrong = assertThrows(IllegalArgumentException.class,
            () -> parse("--s3-chunked-encoding", "sometimes"));
        assertTrue(wrong.getMessage().contains("--s3-chunked-encoding"), wrong.getMessage());
    }

    /** Issue 23, finding 6: the S3 and cache options are one section at the end of --help, not among the command's. */
    @Test
    void helpShowsTheS3OptionsInASectionOfTheirOwnAfterTheCommandsOptions() {
        CommandLine pinshard = PinshardCommand.newCommandLine();
        List<String> withS3 = List.of("push", "pull", "convert", "inspect", "verify", "bench", "preview", "serve");
        for (String name : withS3) {
            String usage = pinshard.getSubcommands().get(name).getUsageMessage(CommandLine.Help.Ansi.OFF);
            int heading = usage.indexOf("S3 options (");
            assertTrue(heading > 0 && usage.indexOf("S3 options (", heading + 1) < 0, name + ":\n" + usage);
            String before = usage.substring(0, heading);
            String after = usage.substring(heading);
            assertFalse(Pattern.compile("^\\s+--s3-", Pattern.MULTILINE).matcher(before).find(), name + ":\n" + usage);
            for (String option : List.of("--s3-endpoint", "--s3-region", "--s3-path-style", "--s3-credentials-file",
                "--s3-profile", "--s3-max-attempts", "--s3-timeout", "--s3-concurrent-fetches",
                "--s3-chunked-encoding")) {
                assertTrue(Pattern.compile("^\\s+" + option, Pattern.MULTILINE).matcher(after).find(),
                    name + " lists " + option + " under the heading:\n" + usage);
            }
        }
        String verify = pinshard.getSubcommands().get("verify").getUsageMessage(CommandLine.Help.Ansi.OFF);
        int cache = verify.indexOf("Shard cache (for s3:// datasets):");
        assertTrue(cache > verify.indexOf("S3 options ("), verify);
        assertTrue(Pattern.compile("^Usage: pinshard verify \\[OPTIONS] DATASET$", Pattern.MULTILINE).matcher(verify)
            .find(), "the synopsis does not list them again:\n" + verify);
        Matcher cacheOption = Pattern.compile("^\\s+--cache-(dir|limit)", Pattern.MULTILINE).matcher(verify);
        assertTrue(cacheOption.find() && cacheOption.start() > cache, verify);
    }

    @Test
    void optionsInTheGroupStillReachTheSettingsThroughACommand() {
        PushCommand push = new PushCommand();
        new CommandLine(push).setCaseInsensitiveEnumValuesAllowed(true).parseArgs("dir", "s3://b/p",
            "--s3-endpoint", "http://127.0.0.1:9", "--s3-path-style",
            "--s3-max-attempts", "3", "--s3-chunked-encoding", "off");
        S3Settings settings = push.transfer.s3.settings();
        assertEquals(Optional.of(URI.create("http://127.0.0.1:9")), settings.endpoint());
        assertTrue(settings.pathStyle());
        assertEquals(3, settings.maxAttempts());
        assertEquals(Duration.ofSeconds(300), settings.callTimeout(), "the default of an option not given");
        assertEquals(S3Settings.ChunkedEncoding.OFF, settings.chunkedEncoding());
    }
}
