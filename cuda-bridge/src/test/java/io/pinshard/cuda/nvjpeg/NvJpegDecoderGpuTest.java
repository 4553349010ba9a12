package io.pinshard.cuda.nvjpeg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.pinshard.cuda.CudaTestSupport;
import io.pinshard.cuda.device.CudaBackend;
import io.pinshard.cuda.device.DeviceBuffer;
import io.pinshard.cuda.runtime.CudaException;
import io.pinshard.memory.HostMemoryAllocator;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.agrona.BufferUtil;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * nvJPEG's batched decode from payloads in host memory laid out as shards lay them out, against the JDK's own
 * decode of the same JPEGs. Needs a CUDA device and libnvjpeg.so.13; skips with the reason elsewhere (gpu-check.sh
 * runs it on a GPU machine).
 */
class NvJpegDecoderGpuTest {
    private static final int[][] SIZES = {{48, 64}, {33, 17}, {64, 40}, {20, 20}, {64, 64}};

    @BeforeEach
    void needsNvJpeg() {
        NvJpegAvailability.Status status = NvJpegAvailability.status();
        assumeTrue(status.available(), () -> "skipped, needs nvJPEG on a CUDA device: " + status.describe());
    }

    private static NvJpegDecoder openOrSkip(NvJpegDecoder.Backend backend) {
        try {
            return NvJpegDecoder.open(backend, 2);
        } catch (CudaException e) {
            assumeTrue(false, "skipped, this GPU has no " + backend + " backend: " + e.getMessage());
            throw e;
        }
    }

    @ParameterizedTest
    @EnumSource(NvJpegDecoder.Backend.class)
    void decodesABatchAsTheCpuDoesAndAShortLastBatchToo(NvJpegDecoder.Backend backend) {
        byte[][] jpegs = new byte[SIZES.length][];
        for (int i = 0; i < SIZES.length; i++) {
            jpegs[i] = TestJpegs.encode(i == 1 ? TestJpegs.gray(SIZES[i][0], SIZES[i][1])
                : TestJpegs.rgb(SIZES[i][0], SIZES[i][1], i));
        }
        ByteBuffer shard = TestJpegs.packed(jpegs);
        long base = BufferUtil.address(shard);
        try (CudaBackend cuda = CudaBackend.open(0);
             NvJpegDecoder decoder = openOrSkip(backend);
             NvJpegBatch batch = new NvJpegBatch(HostMemoryAllocator.INSTANCE, SIZES.length, 64, 64);
             DeviceBuffer output = cuda.allocateDevice(SIZES.length * batch.outputStride())) {
            for (int[] range : new int[][] {{0, SIZES.length}, {1, 3}}) { // the second batch re-sizes nvJPEG's state
                batch.reset(output.address(), output.length());
                long at = base;
                for (int i = 0; i < range[0]; i++) {
                    at += jpegs[i].length;
                }
                for (int i = range[0]; i < range[1]; i++) {
                    batch.add(at, jpegs[i].length, i, SIZES[i][0], SIZES[i][1]);
                    at += jpegs[i].length;
                }
                decoder.decode(batch, cuda.computeStream());
                cuda.synchronize();
                for (int k = 0; k < batch.count(); k++) {
                    int i = range[0] + k;
                    byte[] gpu = CudaTestSupport.readBack(cuda, batch.outputAddress(k), SIZES[i][0] * SIZES[i][1] * 3);
                    byte[] cpu = TestJpegs.decodeRgb(jpegs[i]);
                    assertClose(cpu, gpu, backend + " image " + i);
                }
            }
        }
    }

    /**
     * The stream that crashed nvJPEG (SIGSEGV in nvjpegDecodeBatched, H200, nvJPEG 13.0): its second half overwritten
     * with 0xFF, which leaves a scan of fill bytes only. The batch refuses it before nvJPEG sees it.
     */
    @ParameterizedTest
    @EnumSource(value = NvJpegDecoder.Backend.class, names = {"DEFAULT", "HARDWARE"})
    void aCorruptStreamIsRefusedBeforeNvJpegAndTheDecoderStaysUsable(NvJpegDecoder.Backend backend) {
        byte[] good = TestJpegs.encode(TestJpegs.rgb(32, 32, 9));
        byte[] corrupt = good.clone();
        for (int i = corrupt.length / 2; i < corrupt.length - 2; i++) {
            corrupt[i] = (byte) 0xFF;
        }
        decodeAfter(backend, corrupt, good, true);
    }

    /**
     * Scan data changed without breaking its byte structure (no 0xFF made or removed) passes every check short of
     * entropy decoding: nvJPEG decodes it to some image or fails the call naming the record, and stays usable.
     */
    @ParameterizedTest
    @EnumSource(value = NvJpegDecoder.Backend.class, names = {"DEFAULT", "HARDWARE"})
    void corruptScanDataFailsOrDecodesButTheDecoderStaysUsable(NvJpegDecoder.Backend backend) {
        byte[] good = TestJpegs.encode(TestJpegs.rgb(32, 32, 9));
        byte[] corrupt = good.clone();
        int scan = TestJpegs.markerAt(good, 0xDA);
        int data = scan + 2 + (((good[scan + 2] & 0xFF) << 8) | (good[scan + 3] & 0xFF));
        for (int i = data; i < corrupt.length - 2; i++) {
            int changed = (corrupt[i] & 0xFF) ^ 0x5A;
            if ((corrupt[i] & 0xFF) != 0xFF && (i == 0 || (corrupt[i - 1] & 0xFF) != 0xFF) && changed != 0xFF) {
                corrupt[i] = (byte) changed;
            }
        }
        decodeAfter(backend, corrupt, good, false);
    }

    /** Adds {@code bad} (refused by the batch when {@code refused}), then decodes {@code good} with the same decoder. */
    private static void decodeAfter(NvJpegDecoder.Backend backend, byte[] bad, byte[] good, boolean refused) {
        ByteBuffer shard = TestJpegs.packed(bad, good);
        long base = BufferUtil.address(shard);
        try (CudaBackend cuda = CudaBackend.open(0);
             NvJpegDecoder decoder = openOrSkip(backend);
             NvJpegBatch batch = new NvJpegBatch(HostMemoryAllocator.INSTANCE, 1, 32, 32);
             DeviceBuffer output = cuda.allocateDevice(batch.outputStride())) {
            batch.reset(output.address(), output.length());
            if (refused) {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> batch.add(base, bad.length, 0, 32, 32));
                assertTrue(e.getMessage().startsWith("record 0: corrupt JPEG"), e.getMessage());
            } else {
                batch.add(base, bad.length, 0, 32, 32);
                try {
                    decoder.decode(batch, cuda.computeStream());
                    cuda.synchronize();
                } catch (CudaException e) {
                    assertTrue(e.getMessage().contains("records 0..0"), e.getMessage());
                }
            }
            batch.reset(output.address(), output.length()).add(base + bad.length, good.length, 1, 32, 32);
            decoder.decode(batch, cuda.computeStream());
            cuda.synchronize();
            assertClose(TestJpegs.decodeRgb(good), CudaTestSupport.readBack(cuda, output.address(), 32 * 32 * 3),
                backend + " after a corrupt batch");
        }
    }

    /** Two JPEG decoders differ in IDCT rounding and chroma upsampling, by a few levels on average. */
    private static void assertClose(byte[] expected, byte[] actual, String what) {
        assertEquals(expected.length, actual.length, what);
        long sum = 0;
        int worst = 0;
        for (int i = 0; i < expected.length; i++) {
            int d = Math.abs((expected[i] & 0xFF) - (actual[i] & 0xFF));
            sum += d;
            worst = Math.max(worst, d);
        }
        double mean = (double) sum / expected.length;
        assertTrue(mean < 3.0, what + ": mean difference " + mean + " (worst " + worst + ") of " + expected.length
            + " bytes; first bytes cpu " + Arrays.toString(Arrays.copyOf(expected, 6)) + " gpu "
            + Arrays.toString(Arrays.copyOf(actual, 6)));
    }
}
