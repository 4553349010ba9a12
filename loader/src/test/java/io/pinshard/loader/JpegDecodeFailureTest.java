package io.pinshard.loader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.jpeg.OpenCvJpegDecoder;
import java.nio.ByteBuffer;
import org.agrona.BufferUtil;
import org.junit.jupiter.api.Test;

/**
 * A JPEG stream whose headers parse but whose decoding fails part-way (a Huffman table that libjpeg rejects only
 * when it builds its decoding tables, after OpenCV has sized the output) must be an error from every decode entry
 * point: before, {@code decodeInto} reported success without writing a pixel, and the reduced decodes handed out
 * whatever the output image held, while the loader's full-size decode refused it (so verify passed what the loader
 * failed on). Found by an attack on the built tool with re-sealed jpeg payloads.
 */
class JpegDecodeFailureTest {
    private static final int HEIGHT = 64;
    private static final int WIDTH = 102;

    @Test
    void aStreamThatFailsAfterItsHeadersIsAnErrorInEveryDecodeNotStalePixels() {
        byte[] sound = TestDatasets.jpeg(ByteBuffer.wrap(TestDatasets.pixels(3, HEIGHT, WIDTH, 3)), HEIGHT, WIDTH, 3);
        byte[] bogus = withBogusHuffmanTable(sound);
        ByteBuffer input = ByteBuffer.allocateDirect(sound.length);
        ByteBuffer output = ByteBuffer.allocateDirect(HEIGHT * WIDTH * 3);
        try (OpenCvJpegDecoder decoder = new OpenCvJpegDecoder()) {
            input.put(0, sound);
            assertNull(decoder.decodeInto(BufferUtil.address(input), sound.length, HEIGHT, WIDTH, 3,
                BufferUtil.address(output)), "the sound stream decodes");
            for (int factor : new int[] {1, 2, 4, 8}) {
                assertNull(decoder.decode(BufferUtil.address(input), sound.length, HEIGHT, WIDTH, factor));
            }

            input.put(0, bogus);
            for (int i = 0; i < output.capacity(); i++) {
                output.put(i, (byte) 0x5A);
            }
            String problem = decoder.decodeInto(BufferUtil.address(input), bogus.length, HEIGHT, WIDTH, 3,
                BufferUtil.address(output));
            assertNotNull(problem, "decodeInto reported success for a stream libjpeg gave up on");
            assertTrue(problem.contains("cannot be decoded"), problem);
            for (int factor : new int[] {8, 4, 2, 1}) { // each after a sound decode left pixels in the output image
                input.put(0, sound);
                assertNull(decoder.decode(BufferUtil.address(input), sound.length, HEIGHT, WIDTH, factor));
                input.put(0, bogus);
                assertNotNull(decoder.decode(BufferUtil.address(input), bogus.length, HEIGHT, WIDTH, factor),
                    "a failed decode at 1/" + factor + " scale handed out the previous image");
            }
        }
    }

    /**
     * The stream with its first Huffman table's code counts rearranged (same total, so the segment still parses):
     * three codes of length 1 cannot exist, which libjpeg notices only when it derives its decoding tables.
     */
    static byte[] withBogusHuffmanTable(byte[] jpeg) {
        byte[] copy = jpeg.clone();
        int at = 2;
        while (at + 4 < copy.length) {
            int marker = copy[at + 1] & 0xFF;
            int length = ((copy[at + 2] & 0xFF) << 8) | (copy[at + 3] & 0xFF);
            if (marker == 0xC4) {
                int counts = at + 5; // after marker, length and the table class/id byte
                int moved = 3 - (copy[counts] & 0xFF);
                for (int i = 15; i > 0 && moved > 0; i--) {
                    int take = Math.min(moved, copy[counts + i] & 0xFF);
                    copy[counts + i] -= (byte) take;
                    moved -= take;
                }
                assertEquals(0, moved, "the table has codes to move");
                copy[counts] = 3;
                return copy;
            }
            at += 2 + length;
        }
        throw new AssertionError("no DHT segment");
    }
}
