package io.pinshard.acceptance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.pinshard.testkit.S3rverTestServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * scripts/local-s3.sh, the local store the README's object-storage part offers: {@code eval} of its output in a
 * shell points pinshard at it, and a dataset pushed there is intact when verified from it.
 */
@Tag("process")
class LocalS3ScriptTest {
    @TempDir
    Path temp;

    @Test
    void pushAndVerifyThroughTheLocalStore() throws Exception {
        assumeTrue(S3rverTestServer.unavailable().isEmpty(), () -> "skipped: " + S3rverTestServer.unavailable().get());
        Path photos = ImageFolders.classFolders(temp.resolve("photos"), 2, "cat", "dog");
        Path store = temp.resolve("store");
        String script = "eval \"$(scripts/local-s3.sh --background --dir " + store + ")\"\n"
            + "./pinshard convert " + photos + " -o " + temp.resolve("data") + " --progress none >/dev/null\n"
            + "./pinshard push " + temp.resolve("data") + " s3://bucket/tried/pets --progress none\n"
            + "./pinshard verify s3://bucket/tried/pets\n";
        ProcessBuilder shell = Launcher.pinshard(Files.createDirectories(temp.resolve("home")));
        shell.command("bash", "-euo", "pipefail", "-c", script);
        Launcher.Result result;
        try {
            result = Launcher.run(shell, temp.resolve("logs"), 180);
        } finally {
            stopServer(store);
        }
        assertEquals(0, result.status(), result.toString());
        assertTrue(result.stdout().contains("s3://bucket/tried/pets: intact"), result.toString());
        assertTrue(Files.isDirectory(store.resolve("data/bucket")), "the objects are in the store's folder");
    }

    /** Stops the server the script detached: the process serving this test's own store folder. */
    private static void stopServer(Path store) {
        String data = store.resolve("data").toString();
        ProcessHandle.allProcesses().filter(p -> p.info().arguments().map(a -> List.of(a).contains(data))
            .orElse(false)).forEach(ProcessHandle::destroy);
    }
}
