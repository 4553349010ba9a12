package io.pinshard.loader.augment;

import io.pinshard.loader.options.Resampler;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Random;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * {@link SourceRowsTest}'s child: prints the {@link SourceRows} form of this JVM and a SHA-256 of the kernel's
 * outputs for seeded random boxes (every scale the kernel takes, mirrored and not, some on the image's last rows
 * and columns, where windows reach past the box's span) of a seeded random image.
 */
final class SourceRowsDigestChild {
    private static final int HEIGHT = 200;
    private static final int WIDTH = 500;
    private static final int STEP = WIDTH * 3 + 7;

    private SourceRowsDigestChild() {
    }

    public static void main(String[] args) throws Exception {
        Random random = new Random(28);
        ByteBuffer image = ByteBuffer.allocateDirect(HEIGHT * STEP);
        for (int i = 0; i < image.capacity(); i++) {
            image.put(i, (byte) random.nextInt(256));
        }
        long source = new UnsafeBuffer(image).addressOffset();
        MessageDigest digest = MessageDigest.getInstance("SHA-256");
        for (int crop : new int[] {7, 64, 224}) {
            ByteBuffer output = ByteBuffer.allocateDirect(crop * crop * 3);
            UnsafeBuffer out = new UnsafeBuffer(output);
            byte[] bytes = new byte[output.capacity()];
            VectorCropResizer kernel = new VectorCropResizer(crop);
            int widest = Math.min(WIDTH, (int) (Resampler.VECTOR_SURE_SCALE * crop));
            CropBox box = new CropBox();
            for (int i = 0; i < 200; i++) {
                int width = 1 + random.nextInt(widest);
                int height = 1 + random.nextInt(HEIGHT);
                boolean corner = i % 4 == 0;
                int x = corner ? WIDTH - width : random.nextInt(WIDTH - width + 1);
                int y = corner ? HEIGHT - height : random.nextInt(HEIGHT - height + 1);
                box.set(x, y, width, height, random.nextBoolean());
                if (!kernel.resizeInto(source, STEP, box, out.addressOffset())) {
                    throw new AssertionError("kernel refused " + box);
                }
                out.getBytes(0, bytes);
                digest.update(bytes);
            }
        }
        System.out.println("FORM " + SourceRows.implementation());
        System.out.println("DIGEST " + HexFormat.of().formatHex(digest.digest()));
    }
}
