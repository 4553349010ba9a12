package io.pinshard.writer.convert;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.pinshard.format.DatasetManifest;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Listing inputs a hostile or careless user made: every image is written or rejected with a reason, never lost. */
class HostileListingTest {
    @TempDir
    Path tmp;

    private static final byte[] JPEG = TestImageFiles.jpeg(TestImageFiles.gradient(40, 48, 3, 7, 8), 40, 48, 3);

    private static List<String> keys(InputListing listing) {
        return listing.items().stream().map(InputItem::key).toList();
    }

    private static InputItem item(InputListing listing, String key) {
        return listing.items().stream().filter(i -> i.key().equals(key)).findFirst().orElseThrow(() ->
            new AssertionError(key + " not listed: " + keys(listing)));
    }

    private ConvertSummary convert(InputListing listing) throws ConvertException {
        ConvertOptions options = ConvertOptions.defaults().withShorterSide(16).withWorkers(2).withCodec(OutputCodec.RAW);
        return new Converter(options, ConvertProgress.NONE).run(listing, null, tmp.resolve("out"));
    }

    private static void assertNothingLost(ConvertSummary summary, long expectedInputs) {
        assertEquals(expectedInputs, summary.inputs());
        assertEquals(summary.inputs(), summary.written() + summary.rejected(), "images in = written + rejected");
    }

    /** An input folder with cat/a.jpg, and a folder {@code other} holding {@code images} JPEGs b.jpg, c.jpg, ... */
    private Path catFolderAnd(Path other, int images) throws IOException {
        Path root = tmp.resolve("in");
        TestImageFiles.write(root.resolve("cat/a.jpg"), JPEG);
        for (int i = 0; i < images; i++) {
            TestImageFiles.write(other.resolve((char) ('b' + i) + ".jpg"), JPEG);
        }
        return root;
    }

    @Test
    void symlinkedClassFolderIsFollowedAndItsImagesConverted() throws IOException, ConvertException {
        Path elsewhere = tmp.resolve("elsewhere/dogs");
        Path root = catFolderAnd(elsewhere, 2);
        Files.createSymbolicLink(root.resolve("dog"), elsewhere);
        InputListing listing = FolderLister.list(root, true);
        assertEquals(List.of("cat", "dog"), listing.classes());
        assertEquals(List.of("cat/a.jpg", "dog/b.jpg", "dog/c.jpg"), keys(listing));
        assertEquals(1, item(listing, "dog/c.jpg").label());
        ConvertSummary summary = convert(listing);
        assertNothingLost(summary, 3);
        assertEquals(3, summary.written());
    }

    @Test
    void symlinkLoopIsRejectedWithItsReason() throws IOException, ConvertException {
        Path root = tmp.resolve("in");
        TestImageFiles.write(root.resolve("cat/a.jpg"), JPEG);
        Files.createSymbolicLink(root.resolve("cat/again"), root.resolve("cat"));
        InputListing listing = FolderLister.list(root, true);
        assertEquals(List.of("cat/a.jpg", "cat/again/"), keys(listing));
        assertTrue(item(listing, "cat/again/").problem().contains("symbolic link loop"), item(listing, "cat/again/").problem());
        ConvertSummary summary = convert(listing);
        assertNothingLost(summary, 2);
        assertEquals(1, summary.rejected());
    }

    @Test
    void danglingSymlinkWithAnImageNameIsRejectedNotIgnored() throws IOException {
        Path root = tmp.resolve("in");
        TestImageFiles.write(root.resolve("cat/a.jpg"), JPEG);
        Files.createSymbolicLink(root.resolve("cat/gone.jpg"), tmp.resolve("missing.jpg"));
        InputListing listing = FolderLister.list(root, true);
        assertTrue(item(listing, "cat/gone.jpg").problem().contains("dangling symbolic link"));
        assertEquals(0, listing.ignored());
    }

    @org.junit.jupiter.api.Tag("process")
    @Test
    void unreadableClassFolderIsOneRejectedInputNotAnAbortedRun() throws Exception {
        Path locked = tmp.resolve("in/dog");
        Path root = catFolderAnd(locked, 1);
        Files.setPosixFilePermissions(locked, PosixFilePermissions.fromString("---------"));
        try {
            List<String> listed;
            if (!Files.isReadable(locked)) {
                listed = ListFolder.lines(FolderLister.list(root, true));
            } else {
                // Root reads anything: list in a child JVM without the capabilities that bypass permissions.
                assumeTrue(Files.isExecutable(Path.of("/usr/bin/setpriv")), "running as root without setpriv");
                Process child = new ProcessBuilder("/usr/bin/setpriv", "--bounding-set=-dac_override,-dac_read_search",
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                    System.getProperty("java.class.path"), ListFolder.class.getName(), root.toString())
                    .redirectErrorStream(true).start();
                listed = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines().toList();
                assertEquals(0, child.waitFor(), String.valueOf(listed));
            }
            assertEquals(List.of("classes [cat, dog]", "cat/a.jpg|null", "dog/|cannot list this folder (permission denied);"
                + " the images in it, if any, are not converted"), listed);
        } finally {
            Files.setPosixFilePermissions(locked, PosixFilePermissions.fromString("rwx------"));
        }
    }

    /** Lists a folder tree (labelled) and prints its classes and every input's key and problem, one a line. */
    static final class ListFolder {
        public static void main(String[] args) throws IOException {
            lines(FolderLister.list(Path.of(args[0]), true)).forEach(System.out::println);
        }

        static List<String> lines(InputListing listing) {
            List<String> lines = new java.util.ArrayList<>();
            lines.add("classes " + listing.classes());
            listing.items().forEach(item -> lines.add(item.key() + "|" + item.problem()));
            return lines;
        }
    }

    @Test
    void fileNameWithABackslashIsConverted() throws IOException, ConvertException {
        Path root = tmp.resolve("in");
        TestImageFiles.write(root.resolve("cat").resolve("back\\slash.jpg"), JPEG);
        InputListing listing = FolderLister.list(root, true);
        assertEquals(List.of("cat/back\\slash.jpg"), keys(listing));
        ConvertSummary summary = convert(listing);
        assertEquals(1, summary.written(), String.valueOf(summary.rejections()));
    }

    private static void add(TarArchiveOutputStream out, String name, byte[] bytes) throws IOException {
        TarArchiveEntry entry = new TarArchiveEntry(name);
        entry.setSize(bytes.length);
        out.putArchiveEntry(entry);
        out.write(bytes);
        out.closeArchiveEntry();
    }

    @Test
    void webDatasetMemberWithARepeatedNameIsRejectedNotSilentlyReplaced() throws IOException, ConvertException {
        Path tar = tmp.resolve("shard.tar");
        byte[] png = TestImageFiles.png(TestImageFiles.gradient(40, 48, 3, 3, 8), 40, 48, 3);
        try (OutputStream file = Files.newOutputStream(tar); TarArchiveOutputStream out = new TarArchiveOutputStream(file)) {
            add(out, "s/000.jpg", JPEG);
            add(out, "s/000.cls", "1".getBytes(StandardCharsets.US_ASCII));
            add(out, "s/001.jpg", JPEG);
            add(out, "s/001.cls", "0".getBytes(StandardCharsets.US_ASCII));
            add(out, "s/000.jpg", JPEG); // the same member name again
            add(out, "s/001.png", png);  // a second image for the same key
        }
        InputListing listing = WebDatasetLister.list(tar, true);
        assertEquals(4, listing.items().size(), String.valueOf(keys(listing)));
        long rejected = listing.items().stream().filter(i -> i.problem() != null).count();
        assertEquals(2, rejected, String.valueOf(listing.items()));
        assertTrue(listing.items().stream().anyMatch(i -> i.problem() != null && i.problem().contains("repeats")),
            String.valueOf(listing.items()));
        assertTrue(listing.items().stream().anyMatch(i -> i.problem() != null && i.problem().contains("second image")),
            String.valueOf(listing.items()));
        ConvertSummary summary = convert(listing);
        assertNothingLost(summary, 4);
        assertEquals(2, summary.written());
        assertEquals(List.of("shard.tar/s/000.jpg", "shard.tar/s/001.png"),
            summary.rejections().stream().map(DatasetManifest.Rejected::path).sorted().toList());
    }

    @Test
    void manifestPathsWithDotDotStayInsideTheManifestFolderUnlessAllowed() throws IOException {
        Path folder = tmp.resolve("data/manifests");
        TestImageFiles.write(folder.resolve("in/a.jpg"), JPEG);
        TestImageFiles.write(tmp.resolve("secret.jpg"), JPEG);
        Path csv = folder.resolve("list.csv");
        Files.writeString(csv, "path,label\nin/a.jpg,x\n../../secret.jpg,y\nin/../in/a.jpg,x\n"
            + tmp.resolve("secret.jpg").toAbsolutePath() + ",y\n");
        InputListing listing = ManifestLister.list(csv, true);
        assertNull(item(listing, "in/a.jpg").problem());
        assertNull(item(listing, "in/../in/a.jpg").problem(), "a .. that stays inside is fine");
        String outside = item(listing, "../../secret.jpg").problem();
        assertNotNull(outside, "../../secret.jpg must not be read");
        assertTrue(outside.contains("outside the manifest's folder") && outside.contains("--allow-outside-paths"), outside);
        assertNull(item(listing, tmp.resolve("secret.jpg").toAbsolutePath().toString()).problem(),
            "an absolute path is the user's explicit choice");
        InputListing allowed = ManifestLister.list(csv, true, true);
        assertNull(item(allowed, "../../secret.jpg").problem());
        assertNotEquals(listing.fingerprint(), allowed.fingerprint(), "a run cannot resume under the other rule");
    }

    @Test
    void jsonlLabelsThatAreNotAStringOrAWholeNumberRejectTheLine() throws IOException {
        TestImageFiles.write(tmp.resolve("a.jpg"), JPEG);
        Path jsonl = tmp.resolve("list.jsonl");
        Files.writeString(jsonl, String.join("\n",
            "{\"path\":\"a.jpg\",\"label\":\"cat\"}",
            "{\"path\":\"a.jpg\",\"label\":{\"x\":1}}",
            "{\"path\":\"a.jpg\",\"label\":1e400}",
            "{\"path\":\"a.jpg\",\"label\":2.5}",
            "{\"path\":\"a.jpg\",\"label\":[1]}",
            "{\"path\":\"a.jpg\",\"label\":\"\"}",
            "{\"path\":\"a.jpg\",\"label\":true}",
            "{\"path\":\"a.jpg\",\"label\":\"dog\"}") + "\n");
        InputListing listing = ManifestLister.list(jsonl, true);
        assertEquals(List.of("cat", "dog"), listing.classes(), "no class \"\" or \"Infinity\"");
        assertEquals(8, listing.items().size());
        for (int i = 1; i <= 6; i++) {
            String problem = listing.items().get(i).problem();
            assertNotNull(problem, "line " + (i + 1));
            assertTrue(problem.contains("line " + (i + 1)) && problem.contains("label"), problem);
        }
    }
}
