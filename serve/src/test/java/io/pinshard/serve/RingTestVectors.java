package io.pinshard.serve;

import static io.pinshard.serve.RingDescriptor.*;

import io.pinshard.loader.options.PixelFormat;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The ring test vectors in {@code serve/test-vectors}: one good ring (1 slot, batches of 2 images of 4 x 4 x 3,
 * 3 classes, one batch published: 8 KiB) and hostile variants of it, each with the words the Java check
 * ({@link RingDescriptor#checkHeader}, {@link RingDescriptor#checkSlot}) and the Python client
 * ({@code pinshard.client.check_ring_file}) must say, listed in {@code expected.tsv}.
 */
final class RingTestVectors {
    static final int SLOTS = 1;
    static final int CAPACITY = 2;
    static final int CROP = 4;
    static final int CLASSES = 3;

    /** A vector: how it differs from the good ring, what the Java and the Python check say ("" for none). */
    record Vector(String name, Consumer<UnsafeBuffer> tamper, String javaWords, String pythonWords) {
    }

    private RingTestVectors() {
    }

    static Map<String, Vector> all() {
        Map<String, Vector> vectors = new LinkedHashMap<>();
        for (Vector v : new Vector[] {
            new Vector("good.ring", b -> { }, "", ""),
            new Vector("wrong-magic.ring", b -> b.putByte(0, (byte) 'X'), "no \"PINSRING\" magic",
                "no \"PINSRING\" magic"),
            new Vector("wrong-version.ring", b -> b.putInt(VERSION_OFFSET, VERSION + 1),
                "is a version " + (VERSION + 1) + " ring", "is a version " + (VERSION + 1) + " ring"),
            new Vector("sizes-past-file.ring", b -> b.putLong(SLOT_STRIDE_OFFSET, 2L * PAGE),
                "inconsistent slot geometry", "inconsistent header"),
            new Vector("label-out-of-range.ring", b -> b.putInt((int) labelsOffset() + Integer.BYTES, CLASSES),
                "slot 0 holds label 3, outside -1..2", "slot 0 holds label 3, outside -1..2"),
            new Vector("bad-sequence.ring", b -> b.putLong(slotHeaderOffset(0) + SLOT_SEQUENCE_OFFSET, 5),
                "slot 0's SEQUENCE 5 is past PUBLISHED 1", "slot 0's SEQUENCE 5 is past PUBLISHED 1"),
            new Vector("fields-without-description.ring", b -> b.putInt(FIELD_COUNT_OFFSET, 1),
                "inconsistent fields block", "inconsistent fields block"),
            new Vector("fields-past-slot.ring", b -> {
                b.putInt(FIELD_COUNT_OFFSET, 1);
                String json = "[{\"name\":\"caption\",\"type\":\"utf8\",\"length\":0,\"boxes\":false,"
                    + "\"stride\":64,\"lengths\":0,\"values\":" + PAGE + "}]";
                int block = fieldsBlockOffset(SLOTS);
                b.putInt(block + FIELDS_JSON_LENGTH_OFFSET, json.length());
                b.putStringWithoutLengthAscii(block + FIELDS_JSON_OFFSET, json);
            }, "impossible field", "impossible field"),
            new Vector("unknown-pixel-format.ring", b -> b.putInt(DTYPE_BITS_OFFSET, 64), "unknown pixel format",
                "unknown pixel format"),
        }) {
            vectors.put(v.name(), v);
        }
        return vectors;
    }

    static long labelsOffset() {
        return slotsOffset(SLOTS) + align64((long) CAPACITY * CROP * CROP * 3);
    }

    private static long align64(long n) {
        return (n + 63) & -64L;
    }

    /** The bytes of vector {@code v}: the good ring, then its tampering. */
    static byte[] bytes(Vector v) {
        long stride = slotStride(labelsOffset() - slotsOffset(SLOTS) + 64 + CAPACITY * 8L);
        byte[] file = new byte[(int) fileLength(SLOTS, stride)];
        UnsafeBuffer b = new UnsafeBuffer(file);
        long slot = slotsOffset(SLOTS);
        new RingHeader().wrap(b, 0).magicAndVersion()
            .headerLength((int) slot)
            .fileLength(file.length)
            .slotCount(SLOTS)
            .capacity(CAPACITY)
            .height(CROP)
            .width(CROP)
            .channels(3)
            .slotsOffset(slot)
            .slotStride(stride)
            .batchesPerEpoch(1)
            .samplesPerEpoch(CAPACITY)
            .records(CAPACITY)
            .seed(7)
            .worldSize(1)
            .serverPid(1)
            .classCount(CLASSES)
            .pixels(PixelFormat.UINT8_NHWC);
        new RingServerBlock().wrap(b, 0).status(STATUS_READY).publishedRelease(1);
        long ids = labelsOffset() + 64;
        new RingSlotHeader().wrapSlot(b, 0).stream(1).size(CAPACITY).imagesOffset(slot).labelsOffset(labelsOffset())
            .idsOffset(ids).sequenceRelease(1);
        for (int i = 0; i < CAPACITY * CROP * CROP * 3; i++) {
            b.putByte((int) slot + i, (byte) i);
        }
        for (int i = 0; i < CAPACITY; i++) {
            b.putInt((int) labelsOffset() + i * Integer.BYTES, 2 * i % CLASSES);
            b.putLong((int) ids + i * Long.BYTES, i);
        }
        v.tamper().accept(b);
        return file;
    }

    /** The expected.tsv text: name, Java words, Python words. */
    static String expected() {
        StringBuilder out = new StringBuilder("# vector\tJava check says\tPython check_ring_file says (empty: accepted)\n");
        all().values().forEach(v -> out.append(v.name()).append('\t').append(v.javaWords()).append('\t')
            .append(v.pythonWords()).append('\n'));
        return out.toString();
    }

    /** Writes every vector and expected.tsv into {@code directory}. */
    static void writeAll(Path directory) throws IOException {
        Files.createDirectories(directory);
        for (Vector v : all().values()) {
            Files.write(directory.resolve(v.name()), bytes(v));
        }
        Files.writeString(directory.resolve("expected.tsv"), expected(), StandardCharsets.UTF_8);
    }

    public static void main(String[] args) throws IOException {
        writeAll(Path.of(args[0]));
    }
}
