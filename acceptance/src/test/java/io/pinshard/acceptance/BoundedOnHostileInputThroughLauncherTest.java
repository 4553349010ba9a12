package io.pinshard.acceptance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Arguments and files that would cost unbounded memory or run a server nobody can use are refused up front, naming
 * the option or the file (issue 37, path 5): before, {@code serve} took {@code --owner-pid -1},
 * {@code --client-timeout -1}, {@code --cache-limit -1GiB} and {@code --ring ""} and served, and a 1 GiB sparse
 * Parquet file claiming a gigabyte of footer took 90 s and 3.2 GB before {@code convert} refused it.
 */
@Tag("process")
class BoundedOnHostileInputThroughLauncherTest {
    @TempDir
    static Path temp;

    private static Launcher.Result pinshard(String... args) throws Exception {
        // A guard, not a wait: before the fix each of these served until a client came, so it would run past it.
        return Launcher.run(Launcher.pinshard(temp, args), temp.resolve("logs"), 60);
    }

    @Test
    void serveRefusesNonsenseOptionsNamingThem() throws Exception {
        String dataset = Launcher.repo().resolve("format-spec/test-vectors/tiny-dataset").toString();
        Path ring = temp.resolve("never.ring");
        String[][] cases = {
            {"--owner-pid", "-1"},
            {"--client-timeout", "-1"},
            {"--cache-limit", "-1GiB"},
            {"--ring", ""},
        };
        for (String[] option : cases) {
            List<String> args = new ArrayList<>(List.of("serve", dataset, "--once"));
            if (!option[0].equals("--ring")) {
                args.addAll(List.of("--ring", ring.toString()));
            }
            args.addAll(List.of(option));
            Launcher.Result serve = pinshard(args.toArray(String[]::new));
            assertEquals(2, serve.status(), String.join(" ", option) + ": " + serve);
            assertTrue(serve.stderr().startsWith("pinshard serve: " + option[0]), "names " + option[0] + ": " + serve);
            assertFalse(serve.stdout().contains("ready"), serve.toString());
            assertFalse(Files.exists(ring), "no ring made: " + serve);
        }
    }

    @Test
    void convertRefusesAParquetFooterClaimingAGigabyte() throws Exception {
        Path file = temp.resolve("train-00000-of-00001.parquet");
        long size = 1L << 30;
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) { // sparse: no gigabyte on disk
            raf.setLength(size);
            raf.write("PAR1".getBytes(StandardCharsets.US_ASCII));
            raf.seek(size - 8);
            int claimed = (int) (size - 1024);
            raf.write(new byte[] {(byte) claimed, (byte) (claimed >> 8), (byte) (claimed >> 16), (byte) (claimed >> 24)});
            raf.write("PAR1".getBytes(StandardCharsets.US_ASCII));
        }
        Path out = temp.resolve("out");
        Launcher.Result convert = pinshard("convert", file.toString(), "-o", out.toString(), "--progress", "none");
        assertTrue(convert.status() != 0, convert.toString());
        assertTrue(convert.stderr().contains(file + " claims " + (size - 1024) + " bytes of footer metadata, more than"
            + " the 64 MiB this reader accepts"), convert.toString());
        assertFalse(Files.exists(out.resolve("manifest.json")), convert.toString());
    }
}
