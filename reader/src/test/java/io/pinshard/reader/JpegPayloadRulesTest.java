package io.pinshard.reader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.format.Codec;
import io.pinshard.format.ShardFormatException;
import io.pinshard.writer.DatasetWriter;
import io.pinshard.writer.DatasetWriterOptions;
import io.pinshard.writer.vectors.TestVectorCatalog;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** SPEC.md's jpeg rules: Exif orientation ignored, frame checked before decoding, components converted. */
class JpegPayloadRulesTest {
    /** An Exif APP1 segment holding one tag: orientation 6 ("rotate 90 degrees clockwise"). */
    private static final byte[] EXIF_ROTATE_90 = {(byte) 0xFF, (byte) 0xE1, 0, 34, 'E', 'x', 'i', 'f', 0, 0,
        'I', 'I', 0x2A, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0};

    @TempDir
    Path dir;

    @Test
    void exifOrientationDoesNotRotateTheStoredFrame() throws IOException {
        byte[] plain = input("rgb-6x10.jpg");
        byte[] rotated = new byte[plain.length + EXIF_ROTATE_90.length];
        System.arraycopy(plain, 0, rotated, 0, 2);
        System.arraycopy(EXIF_ROTATE_90, 0, rotated, 2, EXIF_ROTATE_90.length);
        System.arraycopy(plain, 2, rotated, 2 + EXIF_ROTATE_90.length, plain.length - 2);

        assertArrayEquals(decode(plain, 6, 10, 3), decode(rotated, 6, 10, 3));
    }

    @Test
    void aFrameLargerThanTheIndexSaysIsRefusedBeforeDecoding() throws IOException {
        byte[] jpeg = input("rgb-8x8.jpg");
        int sof = sofOffset(jpeg);
        jpeg[sof + 5] = (byte) 0xEA; // height 0xEA60 = 60000
        jpeg[sof + 6] = 0x60;
        jpeg[sof + 7] = (byte) 0xEA; // width 60000
        jpeg[sof + 8] = 0x60;

        ShardFormatException e = assertThrows(ShardFormatException.class, () -> decode(jpeg, 8, 8, 3));
        assertEquals(ShardFormatException.Kind.UNDECODABLE_PAYLOAD, e.kind());
        assertTrue(e.getMessage().contains("jpeg frame is 60000x60000"), e.getMessage());
    }

    @Test
    void aGrayJpegInAnRgbRecordDecodesToEqualChannels() throws IOException {
        byte[] pixels = decode(input("gray-8x8.jpg"), 8, 8, 3);
        for (int i = 0; i < pixels.length; i += 3) {
            assertEquals(pixels[i], pixels[i + 1]);
            assertEquals(pixels[i], pixels[i + 2]);
        }
    }

    private byte[] decode(byte[] jpeg, int height, int width, int channels) throws IOException {
        Path dataset = Files.createTempDirectory(dir, "jpeg");
        try (DatasetWriter writer = new DatasetWriter(dataset, DatasetWriterOptions.defaults())) {
            writer.appendPayload(Codec.JPEG, new UnsafeBuffer(jpeg), 0, jpeg.length, height, width, channels, -1, "a.jpg");
            writer.finish();
        }
        try (Dataset opened = Dataset.open(dataset)) {
            RecordView view = opened.record(0, new RecordView());
            UnsafeBuffer destination = new UnsafeBuffer(ByteBuffer.allocateDirect(view.decodedBytes()));
            new RecordDecoder(true).decode(view, destination, 0);
            byte[] pixels = new byte[view.decodedBytes()];
            destination.getBytes(0, pixels);
            return pixels;
        }
    }

    private static byte[] input(String name) throws IOException {
        return Files.readAllBytes(TestVectorCatalog.inputsDirectory().resolve(name));
    }

    /** Offset of the SOF0 marker's 0xFF. */
    private static int sofOffset(byte[] jpeg) {
        for (int i = 2; i + 1 < jpeg.length; i++) {
            if ((jpeg[i] & 0xFF) == 0xFF && (jpeg[i + 1] & 0xFF) == 0xC0) {
                return i;
            }
        }
        throw new IllegalArgumentException("no SOF0 marker");
    }
}
