package io.pinshard.acceptance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a newcomer meets with convert and verify: empty inputs, an output already taken, an empty dataset. */
@org.junit.jupiter.api.Tag("process")
class ConvertThroughLauncherTest {
    @TempDir
    Path temp;

    private Launcher.Result pinshard(String... args) throws Exception {
        return Launcher.run(Launcher.pinshard(temp, args), temp.resolve("logs"), 120);
    }

    @Test
    void anInputWithoutImagesIsAnErrorNamingItAndNothingIsWritten() throws Exception {
        Path folder = Files.createDirectories(temp.resolve("photos/cats"));
        Files.writeString(temp.resolve("photos/README.txt"), "not an image");
        Path manifest = Files.writeString(temp.resolve("rows.csv"), "path,label\n");
        Path tar = Files.write(temp.resolve("shard.tar"), new byte[1024]); // the end-of-archive blocks, no member
        for (Path input : new Path[] {folder.getParent(), manifest, tar}) {
            Path out = temp.resolve("out-" + input.getFileName());
            Launcher.Result result = pinshard("convert", input.toString(), "-o", out.toString());
            assertEquals(2, result.status(), result.toString());
            assertTrue(result.stderr().contains("input " + input + " "), "names the input: " + result);
            assertTrue(result.stderr().contains("no dataset written"), result.toString());
            assertFalse(Files.exists(out), "nothing written: " + result);
        }
    }

    @Test
    void everyCodecConvertsVerifiesAndInspectsAndAnUnknownOneListsThem() throws Exception {
        Path input = ImageFolders.classFolders(temp.resolve("codecs"), 2, "a", "b");
        for (String codec : new String[] {"raw", "lz4", "jpeg", "yuv420"}) {
            Path out = temp.resolve("out-" + codec);
            Launcher.Result convert = pinshard("convert", input.toString(), "-o", out.toString(), "--codec", codec,
                "--progress", "none");
            assertEquals(0, convert.status(), convert.toString());
            Launcher.Result verify = pinshard("verify", out.toString());
            assertEquals(0, verify.status(), verify.toString());
            Launcher.Result inspect = pinshard("inspect", out.toString(), "--json");
            assertEquals(0, inspect.status(), inspect.toString());
            assertTrue(inspect.stdout().contains("\"" + codec + "\""), "inspect names the codec: " + inspect);
        }
        Launcher.Result unknown = pinshard("convert", input.toString(), "-o", temp.resolve("out-x").toString(),
            "--codec", "yuv422");
        assertEquals(2, unknown.status(), unknown.toString());
        assertTrue(unknown.stderr().contains("unknown codec 'yuv422' (expected raw, lz4, jpeg, yuv420 or auto)"),
            unknown.toString());
    }

    @Test
    void verifyOfAnIntactButEmptyDatasetSaysSoAndFails() throws Exception {
        Path input = ImageFolders.classFolders(temp.resolve("one"), 1, "only");
        Path part = temp.resolve("part0");
        // Slice 0 of 2 of one image is empty: the one way convert still writes a dataset of 0 records.
        Launcher.Result convert = pinshard("convert", input.toString(), "-o", part.toString(), "--part", "0/2",
            "--progress", "none");
        assertEquals(0, convert.status(), convert.toString());
        Launcher.Result verify = pinshard("verify", part.toString());
        assertEquals(1, verify.status(), verify.toString());
        assertTrue(verify.stdout().contains(part + ": intact but empty: 0 records"), verify.toString());
    }

    @Test
    void anOutputHoldingAnotherDatasetSaysWhatToDoAndTheSameConversionIsStillRecognised() throws Exception {
        Path input = ImageFolders.classFolders(temp.resolve("in"), 2, "a", "b");
        Path out = temp.resolve("dataset");
        assertEquals(0, pinshard("convert", input.toString(), "-o", out.toString(), "--progress", "none").status());
        Launcher.Result other = pinshard("convert", input.toString(), "-o", out.toString(), "--shorter-side", "32",
            "--progress", "none");
        assertEquals(1, other.status(), other.toString());
        assertTrue(other.stderr().contains(out + " already holds a different dataset (4 records"), other.toString());
        assertTrue(other.stderr().contains("give -o a new directory") && other.stderr().contains("rm -r " + out),
            "says which flag, or what to remove: " + other);
        Launcher.Result same = pinshard("convert", input.toString(), "-o", out.toString(), "--progress", "none");
        assertEquals(0, same.status(), same.toString());
        assertTrue(same.stdout().contains("already complete: "), same.toString());
    }
}
