package io.pinshard.writer.convert;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Iterator;
import javax.imageio.ImageIO;
import javax.imageio.ImageReadParam;
import javax.imageio.ImageReader;
import javax.imageio.stream.ImageInputStream;
import javax.imageio.stream.MemoryCacheImageInputStream;
import org.agrona.concurrent.UnsafeBuffer;
import org.bytedeco.opencv.opencv_core.Mat;

/**
 * Finds JPEGs that decode "successfully" into garbage. libjpeg treats a scan that ends early (a
 * truncated file with an end-of-image marker appended) as a warning: it prints "Corrupt JPEG data:
 * premature end of data segment" to stderr, leaves every remaining block's coefficients zero, and
 * hands back mostly uniform grey (128, 128, 128). OpenCV's decoder keeps libjpeg's default message
 * handler and reports nothing (OpenCV 4.13: only {@code error_exit} is replaced), and no marker scan
 * can see a scan cut short, because only entropy decoding knows where it should end.
 *
 * <p>So the check is in two steps. The cheap one runs on every JPEG: the stream's last block always
 * lies past a truncation and lands in a corner of the decoded image (which corner depends on the EXIF
 * orientation), so when no corner pixel is exactly (128, 128, 128) nothing was filled in. Only when a
 * corner is exactly that grey (rare in photos) is the stream decoded again with javax.imageio's JPEG
 * reader, which passes libjpeg's warnings to an {@code IIOReadWarningListener}; a warning means reject.
 * Not caught: a baseline JPEG cut inside its very last block, and a progressive JPEG cut inside its
 * last scan (scans missing before it are found by {@code JpegFrame.inspect}; a cut in the last scan
 * costs the remaining blocks their finest refinement bits, not their content).
 */
final class JpegWarnings {
    private static final int FILL = 128;

    private JpegWarnings() {
    }

    /** Whether a corner of {@code decoded} (8-bit, 1 or 3 channels) is exactly the grey libjpeg fills missing data with. */
    static boolean mayHaveFilledGrey(Mat decoded) {
        return mayHaveFilledGrey(decoded.data().address(), decoded.rows(), decoded.cols(), decoded.step(),
            decoded.channels());
    }

    /** The same for {@code rows x cols} pixels of {@code channels} bytes at {@code address}, rows {@code stride} apart. */
    static boolean mayHaveFilledGrey(long address, int rows, int cols, long stride, int channels) {
        long last = (long) (cols - 1) * channels;
        long bottom = (long) (rows - 1) * stride;
        UnsafeBuffer image = new UnsafeBuffer(address, Math.toIntExact(bottom + last + channels));
        return isFill(image, 0, channels) || isFill(image, last, channels) || isFill(image, bottom, channels)
            || isFill(image, bottom + last, channels);
    }

    private static boolean isFill(UnsafeBuffer image, long pixel, int channels) {
        for (int c = 0; c < channels; c++) {
            if ((image.getByte((int) pixel + c) & 0xFF) != FILL) {
                return false;
            }
        }
        return true;
    }

    /**
     * Decodes {@code data} with javax.imageio's JPEG reader and returns libjpeg's first warning, or
     * null when it decodes without one (or cannot decode it at all, e.g. CMYK: then OpenCV's result stands).
     */
    static String firstWarning(ByteBuffer data) {
        byte[] bytes = new byte[data.limit()];
        data.duplicate().get(bytes);
        Iterator<ImageReader> readers = ImageIO.getImageReadersByFormatName("jpeg");
        if (!readers.hasNext()) {
            return null;
        }
        ImageReader reader = readers.next();
        String[] first = {null};
        reader.addIIOReadWarningListener((source, warning) -> {
            if (first[0] == null) {
                first[0] = warning;
            }
        });
        // In memory: ImageIO.createImageInputStream would cache to a temporary file.
        try (ImageInputStream in = new MemoryCacheImageInputStream(new ByteArrayInputStream(bytes))) {
            reader.setInput(in, true, true);
            ImageReadParam param = reader.getDefaultReadParam();
            param.setSourceSubsampling(8, 8, 0, 0); // libjpeg still entropy-decodes every block; less to store
            reader.read(0, param);
        } catch (IOException | RuntimeException e) {
            return first[0]; // an error after a warning still rejects; an error alone leaves OpenCV's result
        } finally {
            reader.dispose();
        }
        return first[0];
    }
}
