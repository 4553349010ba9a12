package io.pinshard.loader.augment;

import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Random;
import org.agrona.BufferUtil;

/**
 * {@link KernelTruncationTest}'s child: maps an image file, runs the kernel on it until C2 has compiled it
 * ({@code -Xbatch}: compilations finish before the code goes on), truncates the file to its first page and crops
 * its last rows. Prints {@code FAULTED} and the error, or {@code READ} when nothing faulted.
 */
final class KernelTruncationChild {
    private static final int HEIGHT = 400;
    private static final int WIDTH = 400;
    private static final int STEP = WIDTH * 3;
    private static final int CROP = 32;

    private KernelTruncationChild() {
    }

    public static void main(String[] args) throws Exception {
        Path file = Path.of(args[0]);
        byte[] pixels = new byte[HEIGHT * STEP];
        new Random(3).nextBytes(pixels);
        Files.write(file, pixels);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            MappedByteBuffer mapping = channel.map(FileChannel.MapMode.READ_ONLY, 0, pixels.length);
            long image = BufferUtil.address(mapping);
            ByteBuffer output = ByteBuffer.allocateDirect(CROP * CROP * 3);
            long destination = BufferUtil.address(output);
            VectorCropResizer kernel = new VectorCropResizer(CROP);
            Random random = new Random(5);
            CropBox box = new CropBox();
            for (int i = 0; i < 40_000; i++) {
                int side = CROP + random.nextInt(CROP);
                box.set(random.nextInt(WIDTH - side), random.nextInt(HEIGHT - side), side, side, random.nextBoolean());
                kernel.resizeInto(image, STEP, box, destination);
            }
            channel.truncate(4096);
            try {
                box.set(0, HEIGHT - 2 * CROP, 2 * CROP, 2 * CROP, false);
                kernel.resizeInto(image, STEP, box, destination);
                Thread.sleep(10); // JDK 17 raises a guarded copy's fault at the thread's next call into the VM
                System.out.println("READ");
            } catch (InternalError e) {
                System.out.println("FAULTED " + e);
            }
            java.lang.ref.Reference.reachabilityFence(mapping);
            java.lang.ref.Reference.reachabilityFence(output);
        }
    }
}
