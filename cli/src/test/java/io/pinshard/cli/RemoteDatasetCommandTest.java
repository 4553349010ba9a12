package io.pinshard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.format.Json;
import io.pinshard.s3.S3Clients;
import io.pinshard.s3.S3TestSettings;
import io.pinshard.testkit.S3ServerExtension;
import io.pinshard.testkit.S3TestServer;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/** inspect, verify, bench and preview given s3://bucket/prefix, against a real S3 server on loopback. */
@org.junit.jupiter.api.Tag("process")
class RemoteDatasetCommandTest {
    @RegisterExtension
    static final S3ServerExtension server = new S3ServerExtension();
    private static Path credentials;
    private static Path local;
    private static final String LOCATION = "s3://remote-cli/sets/one";

    @TempDir
    static Path tmp;

    @BeforeAll
    static void upload() throws Exception {
        local = tmp.resolve("local");
        CommandTestSupport.writeDataset(local, 60);
        try (S3Client s3 = S3Clients.create(S3TestSettings.of(server).build())) {
            s3.createBucket(b -> b.bucket("remote-cli"));
            List<Path> files = new ArrayList<>();
            try (DirectoryStream<Path> listing = Files.newDirectoryStream(local)) {
                listing.forEach(files::add);
            }
            files.sort((a, b) -> a.endsWith("manifest.json") ? 1 : b.endsWith("manifest.json") ? -1 : a.compareTo(b));
            for (Path file : files) {
                s3.putObject(p -> p.bucket("remote-cli").key("sets/one/" + file.getFileName()), RequestBody.fromFile(file));
            }
        }
        credentials = tmp.resolve("credentials");
        Files.writeString(credentials, "[default]\naws_access_key_id = " + S3TestServer.ACCESS_KEY
            + "\naws_secret_access_key = " + S3TestServer.SECRET_KEY + "\n");
    }

    private static CommandTestSupport.Result run(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--s3-endpoint", server.endpoint().toString(), "--s3-path-style", "--s3-region", "us-east-1",
            "--s3-credentials-file", credentials.toString(), "--cache-dir", tmp.resolve("cache").toString()));
        CommandTestSupport.Result result = CommandTestSupport.run(all.toArray(String[]::new));
        assertFalse(result.out().contains(S3TestServer.SECRET_KEY) || result.err().contains(S3TestServer.SECRET_KEY));
        return result;
    }

    @Test
    void inspectAndVerifyReadTheRemoteDatasetLikeTheLocalOne() throws IOException {
        CommandTestSupport.Result remote = run("inspect", LOCATION, "--json");
        assertEquals(0, remote.exitCode(), remote.err());
        CommandTestSupport.Result here = CommandTestSupport.run("inspect", local.toString(), "--json");
        Map<String, Object> a = Json.parseObject(remote.out().getBytes());
        Map<String, Object> b = Json.parseObject(here.out().getBytes());
        assertEquals(LOCATION, a.remove("dataset"));
        b.remove("dataset");
        assertEquals(b, a);

        CommandTestSupport.Result verify = run("verify", LOCATION);
        assertEquals(0, verify.exitCode(), verify.out() + verify.err());
        assertTrue(verify.out().contains(LOCATION + ": intact"), verify.out());
        CommandTestSupport.Result missing = run("verify", "s3://remote-cli/none");
        assertEquals(PinshardCommand.EXIT_USAGE, missing.exitCode(), missing.out());
        assertTrue(missing.err().contains("s3://remote-cli/none/manifest.json"), missing.err());
    }

    @Test
    void benchStreamsQuasiRandomWindowsUnderACacheLimitAndReportsTheBytesFetched() throws IOException {
        long total = Json.readManifest(local).bytes();
        CommandTestSupport.Result bench = run("bench", LOCATION, "--workers", "1", "--batch", "8", "--crop", "8",
            "--seconds", "0.3", "--warmup", "0", "--order", "quasi-random", "--interleave", "1", "--cache-limit",
            Long.toString(total / 2), "--json");
        assertEquals(0, bench.exitCode(), bench.err());
        Map<String, Object> result = Json.parseObject(bench.out().getBytes());
        assertEquals(total, ((Number) result.get("dataset_bytes")).longValue());
        assertTrue(((Number) result.get("bytes_fetched")).longValue() >= total, bench.out());

        CommandTestSupport.Result refused = run("bench", LOCATION, "--workers", "1", "--batch", "8", "--crop", "8",
            "--seconds", "0.3", "--order", "random", "--cache-limit", Long.toString(total / 2));
        assertTrue(refused.exitCode() != 0);
        assertTrue(refused.err().contains("quasi-random"), refused.err());

        // The automatic interleave shuffles more windows together than half of this dataset holds: refused, with
        // the interleave that fits.
        CommandTestSupport.Result interleaved = run("bench", LOCATION, "--workers", "1", "--batch", "8", "--crop",
            "8", "--seconds", "0.3", "--order", "quasi-random", "--cache-limit", Long.toString(total / 2));
        assertTrue(interleaved.exitCode() != 0);
        assertTrue(interleaved.err().contains("--interleave 1"), interleaved.err());
    }

    @Test
    void previewDrawsARemoteDataset() {
        Path sheet = tmp.resolve("sheet.png");
        CommandTestSupport.Result preview = run("preview", LOCATION, "--out", sheet.toString(), "--count", "4",
            "--crop", "16", "--epochs", "1");
        assertEquals(0, preview.exitCode(), preview.err());
        assertTrue(Files.isRegularFile(sheet));
    }
}
