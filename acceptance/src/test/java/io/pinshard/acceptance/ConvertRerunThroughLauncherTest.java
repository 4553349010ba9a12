package io.pinshard.acceptance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.reader.Dataset;
import io.pinshard.reader.RecordView;
import io.pinshard.writer.convert.TestImageFiles;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32;
import java.util.zip.Deflater;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A rerun of {@code ./pinshard convert} over inputs that changed since: never the old dataset kept silently. The
 * tar is replaced by one whose members have the same names and sizes (uncompressed PNGs of other random pixels).
 */
@Tag("process")
class ConvertRerunThroughLauncherTest {
    private static final int SIDE = 16;
    private static final int SAMPLES = 4;

    @TempDir
    Path temp;

    private Launcher.Result pinshard(String... args) throws Exception {
        return Launcher.run(Launcher.pinshard(temp, args), temp.resolve("logs"), 120);
    }

    private String[] convert(Path tar, Path out, String... more) {
        List<String> args = new ArrayList<>(List.of("convert", tar.toString(), "-o", out.toString(), "--codec", "raw",
            "--progress", "none"));
        args.addAll(List.of(more));
        return args.toArray(String[]::new);
    }

    @Test
    void anUnchangedRerunIsAlreadyCompleteAChangedMemberIsRefusedNamingItAndOverwriteRebuildsWithTheNewPixels()
        throws Exception {
        Path tar = temp.resolve("data.tar");
        List<byte[]> first = writeTar(tar, 1);
        Path out = temp.resolve("dataset");
        Launcher.Result made = pinshard(convert(tar, out));
        assertEquals(0, made.status(), made.toString());
        assertSamePixels(first, pixels(out));
        byte[] shard = Files.readAllBytes(out.resolve("shard-00000.pinshard"));

        Launcher.Result same = pinshard(convert(tar, out));
        assertEquals(0, same.status(), same.toString());
        assertTrue(same.stdout().startsWith("already complete: " + out + " is a finished dataset of this conversion"),
            same.toString());
        assertEquals(1, same.stdout().lines().count(), "one line, no table of zero throughput: " + same);

        long size = Files.size(tar);
        List<byte[]> second = writeTar(tar, 2);
        assertEquals(size, Files.size(tar), "same names and sizes, other pixels");
        Files.setLastModifiedTime(tar, FileTime.from(Instant.now())); // touch
        Launcher.Result changed = pinshard(convert(tar, out));
        assertEquals(2, changed.status(), changed.toString());
        assertTrue(changed.stderr().contains("input data.tar/000000.png changed: its file " + tar), changed.toString());
        assertTrue(changed.stderr().contains("rerun the same command with --overwrite"), changed.toString());
        assertFalse(changed.stderr().contains("\tat ") || changed.stderr().contains("Exception"), changed.toString());
        assertArrayEquals(shard, Files.readAllBytes(out.resolve("shard-00000.pinshard")), "refused: nothing written");

        Launcher.Result rebuilt = pinshard(convert(tar, out, "--overwrite"));
        assertEquals(0, rebuilt.status(), rebuilt.toString());
        assertTrue(rebuilt.stdout().contains("wrote " + out), rebuilt.toString());
        assertSamePixels(second, pixels(out));
    }

    @Test
    void anUnfinishedConversionWhoseInputChangedRefusesToResume() throws Exception {
        Path tar = temp.resolve("data.tar");
        writeTar(tar, 1);
        Path out = temp.resolve("dataset");
        ProcessBuilder killed = Launcher.pinshard(temp, convert(tar, out, "--shard-size", "1KiB"));
        // Halts as kill -9 would, right after the first shard is renamed into place.
        killed.environment().put("PINSHARD_JAVA_OPTS", "-Dpinshard.convert.testHaltAfterShards=1");
        Launcher.Result halted = Launcher.run(killed, temp.resolve("logs"), 120);
        assertEquals(137, halted.status(), halted.toString());
        assertTrue(Files.exists(out.resolve("convert-journal.json")), "an unfinished conversion: " + halted);
        assertFalse(Files.exists(out.resolve("manifest.json")), halted.toString());

        List<byte[]> second = writeTar(tar, 2);
        Files.setLastModifiedTime(tar, FileTime.from(Instant.now()));
        Launcher.Result resumed = pinshard(convert(tar, out, "--shard-size", "1KiB"));
        assertEquals(2, resumed.status(), resumed.toString());
        assertTrue(resumed.stderr().contains("holds an unfinished conversion of these inputs, but they changed since it"
            + " started: input data.tar/000000.png changed"), resumed.toString());
        assertTrue(resumed.stderr().contains("--overwrite"), resumed.toString());
        assertFalse(Files.exists(out.resolve("manifest.json")), "no dataset mixing old and new pixels: " + resumed);
        assertTrue(Files.exists(out.resolve("convert-journal.json")), "nothing removed: " + resumed);

        Launcher.Result rebuilt = pinshard(convert(tar, out, "--shard-size", "1KiB", "--overwrite"));
        assertEquals(0, rebuilt.status(), rebuilt.toString());
        assertSamePixels(second, pixels(out));
    }

    /** Writes {@code tar} (atomically replaced): SAMPLES uncompressed PNGs of random pixels and .cls labels. */
    private static List<byte[]> writeTar(Path tar, long seed) throws IOException {
        Random random = new Random(seed);
        List<byte[]> pixels = new ArrayList<>();
        Path next = tar.resolveSibling(tar.getFileName() + ".new");
        try (TarArchiveOutputStream out = new TarArchiveOutputStream(Files.newOutputStream(next))) {
            for (int i = 0; i < SAMPLES; i++) {
                byte[] rgb = new byte[SIDE * SIDE * 3];
                random.nextBytes(rgb);
                pixels.add(rgb);
                TestImageFiles.addTarMember(out, String.format("%06d.png", i), storedPng(rgb));
                TestImageFiles.addTarMember(out, String.format("%06d.cls", i), Integer.toString(i % 2).getBytes(StandardCharsets.US_ASCII));
            }
        }
        Files.move(next, tar, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        return pixels;
    }

    /** An RGB PNG whose zlib stream is stored (not compressed): its size depends only on the image's size. */
    private static byte[] storedPng(byte[] rgb) throws IOException {
        byte[] rows = new byte[SIDE * (1 + SIDE * 3)];
        for (int y = 0; y < SIDE; y++) {
            System.arraycopy(rgb, y * SIDE * 3, rows, y * (1 + SIDE * 3) + 1, SIDE * 3);
        }
        Deflater deflater = new Deflater(Deflater.NO_COMPRESSION);
        deflater.setInput(rows);
        deflater.finish();
        ByteArrayOutputStream zlib = new ByteArrayOutputStream();
        byte[] buffer = new byte[4096];
        while (!deflater.finished()) {
            zlib.write(buffer, 0, deflater.deflate(buffer));
        }
        deflater.end();
        ByteArrayOutputStream png = new ByteArrayOutputStream();
        png.write(new byte[] {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'});
        chunk(png, "IHDR", ByteBuffer.allocate(13).putInt(SIDE).putInt(SIDE).put((byte) 8).put((byte) 2).array());
        chunk(png, "IDAT", zlib.toByteArray());
        chunk(png, "IEND", new byte[0]);
        return png.toByteArray();
    }

    private static void chunk(OutputStream out, String type, byte[] data) throws IOException {
        byte[] name = type.getBytes(StandardCharsets.US_ASCII);
        CRC32 crc = new CRC32();
        crc.update(name);
        crc.update(data);
        out.write(ByteBuffer.allocate(4).putInt(data.length).array());
        out.write(name);
        out.write(data);
        out.write(ByteBuffer.allocate(4).putInt((int) crc.getValue()).array());
    }

    /** The raw pixels of every record, in order. */
    private static List<byte[]> pixels(Path dataset) {
        List<byte[]> pixels = new ArrayList<>();
        try (Dataset open = Dataset.open(dataset)) {
            RecordView view = new RecordView();
            for (long i = 0; i < open.size(); i++) {
                open.record(i, view);
                byte[] payload = new byte[view.payloadLength()];
                view.buffer().getBytes(view.payloadOffset(), payload);
                pixels.add(payload);
            }
        }
        return pixels;
    }

    private static void assertSamePixels(List<byte[]> expected, List<byte[]> actual) {
        HexFormat hex = HexFormat.of();
        assertEquals(expected.stream().map(hex::formatHex).toList(), actual.stream().map(hex::formatHex).toList());
    }
}
