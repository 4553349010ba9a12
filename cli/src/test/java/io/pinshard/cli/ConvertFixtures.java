package io.pinshard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pinshard.reader.Dataset;
import io.pinshard.reader.DatasetVerifier;
import io.pinshard.reader.RecordView;
import io.pinshard.writer.convert.TestImageFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.stream.Stream;

/** Input trees with good and bad images, and ways to compare the datasets made from them. */
final class ConvertFixtures {
    /** Good images written by {@link #imageFolder}. */
    static final int GOOD = 15;
    /** Bad images written by {@link #imageFolder}: zero-byte, not an image, truncated JPEG, truncated PNG. */
    static final int BAD = 4;

    private ConvertFixtures() {
    }

    /**
     * A three-class ImageFolder tree of small images of every kind (JPEG baseline/progressive/grey,
     * PNG 8/16-bit/alpha/palette/grey, WebP, BMP, TIFF) plus four bad files and one non-image file.
     */
    static Path imageFolder(Path root) throws IOException {
        String[] classes = {"cat", "dog", "zebra"};
        for (int i = 0; i < GOOD; i++) {
            Path dir = root.resolve(classes[i % 3]);
            int h = 40 + 7 * i;
            int w = 90 - 3 * i;
            byte[] bgr = TestImageFiles.gradient(h, w, 3, i, 24);
            byte[] bytes;
            String name;
            switch (i % 10) {
                case 0 -> { name = "img%02d.jpg"; bytes = TestImageFiles.jpeg(bgr, h, w, 3); }
                case 1 -> { name = "img%02d.jpeg"; bytes = TestImageFiles.progressiveJpeg(bgr, h, w); }
                case 2 -> { name = "img%02d.png"; bytes = TestImageFiles.png(bgr, h, w, 3); }
                case 3 -> { name = "img%02d.png"; bytes = TestImageFiles.png16(h, w, 300 * i); }
                case 4 -> { name = "img%02d.png"; bytes = TestImageFiles.png(TestImageFiles.gradient(h, w, 4, i, 9), h, w, 4); }
                case 5 -> { name = "img%02d.png"; bytes = TestImageFiles.palettePng(h, w); }
                case 6 -> { name = "img%02d.webp"; bytes = TestImageFiles.encode(".webp", bgr, h, w, 3); }
                case 7 -> { name = "img%02d.bmp"; bytes = TestImageFiles.encode(".bmp", bgr, h, w, 3); }
                case 8 -> { name = "img%02d.tif"; bytes = TestImageFiles.encode(".tiff", bgr, h, w, 3); }
                default -> { name = "img%02d.JPG"; bytes = TestImageFiles.jpeg(TestImageFiles.gradient(h, w, 1, i, 9), h, w, 1); }
            }
            TestImageFiles.write(dir.resolve(String.format(name, i)), bytes);
        }
        byte[] jpeg = TestImageFiles.jpeg(TestImageFiles.gradient(64, 64, 3, 99, 40), 64, 64, 3);
        byte[] png = TestImageFiles.png(TestImageFiles.gradient(64, 64, 3, 98, 40), 64, 64, 3);
        TestImageFiles.write(root.resolve("cat/zero.jpg"), new byte[0]);
        TestImageFiles.write(root.resolve("dog/notes.png"), "not a picture".getBytes(StandardCharsets.UTF_8));
        TestImageFiles.write(root.resolve("dog/half.jpg"), java.util.Arrays.copyOf(jpeg, jpeg.length / 2));
        TestImageFiles.write(root.resolve("zebra/half.png"), java.util.Arrays.copyOf(png, png.length / 2));
        TestImageFiles.write(root.resolve("zebra/README.txt"), "ignored".getBytes(StandardCharsets.UTF_8));
        return root;
    }

    /** Every file of a directory by name, for byte-for-byte comparison. */
    static TreeMap<String, byte[]> files(Path dir) throws IOException {
        TreeMap<String, byte[]> files = new TreeMap<>();
        try (Stream<Path> list = Files.list(dir)) {
            for (Path p : list.toList()) {
                files.put(p.getFileName().toString(), Files.readAllBytes(p));
            }
        }
        return files;
    }

    static void assertSameFiles(Path expected, Path actual) throws IOException {
        TreeMap<String, byte[]> a = files(expected);
        TreeMap<String, byte[]> b = files(actual);
        assertEquals(a.keySet(), b.keySet(), "file names of " + actual);
        for (String name : a.keySet()) {
            org.junit.jupiter.api.Assertions.assertArrayEquals(a.get(name), b.get(name), name + " differs in " + actual);
        }
    }

    /** One line per record: key, label, codec, shape, payload length and CRC. */
    static List<String> records(Path dir) {
        List<String> lines = new ArrayList<>();
        try (Dataset dataset = Dataset.open(dir)) {
            RecordView view = new RecordView();
            for (long i = 0; i < dataset.size(); i++) {
                dataset.record(i, view);
                lines.add(view.key() + "|" + view.label() + "|" + view.codec() + "|" + view.height() + "x" + view.width()
                    + "x" + view.channels() + "|" + view.payloadLength() + "|" + Integer.toHexString(view.storedCrc()));
            }
        }
        return lines;
    }

    static void assertVerifies(Path dir) {
        assertEquals(List.of(), new DatasetVerifier().verify(dir), "verify " + dir);
    }
}
