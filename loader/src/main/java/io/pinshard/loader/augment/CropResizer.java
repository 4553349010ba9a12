package io.pinshard.loader.augment;

import static org.bytedeco.opencv.global.opencv_core.CV_8UC;
import static org.bytedeco.opencv.global.opencv_core.flip;
import static org.bytedeco.opencv.global.opencv_imgproc.COLOR_GRAY2RGB;
import static org.bytedeco.opencv.global.opencv_imgproc.COLOR_RGBA2RGB;
import static org.bytedeco.opencv.global.opencv_imgproc.INTER_LINEAR;
import static org.bytedeco.opencv.global.opencv_imgproc.cvtColor;
import static org.bytedeco.opencv.global.opencv_imgproc.resize;

import io.pinshard.jpeg.MatHeader;
import io.pinshard.jpeg.OpenCvRuntime;
import io.pinshard.loader.options.PixelFormat;
import io.pinshard.loader.options.Resampler;
import java.lang.reflect.InvocationTargetException;
import org.agrona.concurrent.UnsafeBuffer;
import org.bytedeco.opencv.opencv_core.Mat;
import org.bytedeco.opencv.opencv_core.Size;


/**
 * Crop box -> bilinear resize -> optional mirror, from any uint8 image in native memory (a mapped raw
 * payload, decompressed or decoded scratch) straight into a batch slot. 3-channel crops go to the
 * {@link io.pinshard.loader.options.Resampler}'s vector kernel when there is one; the rest, and boxes the kernel refuses, go through
 * OpenCV's {@code resize} (INTER_LINEAR, half-pixel centres as torchvision) on re-aimed headers.
 * OpenCV beat a scalar separable Java bilinear by about 2x on this machine; the vector kernel beats OpenCV.
 *
 * <p>A destination another process can truncate (pinshard serve's ring, {@code sharedDestination}) is never
 * written by OpenCV: it resizes into a private image, which one JVM-guarded copy moves to the destination, so a
 * truncated ring faults as an {@link InternalError} instead of a SIGBUS in native code. The vector kernel writes
 * its rows with guarded copies anyway.
 *
 * <p>Pixels in another format than uint8 NHWC (a float type, NCHW: {@link PixelFormat}) are converted as they are
 * written: the vector kernel converts each finished row on its way out ({@link PixelRows}); OpenCV's crops go to the
 * private image first (one crop, about 150 KB at 224, which stays in L2) and are converted from there in one pass.
 */
public final class CropResizer implements AutoCloseable {
    /** The kernel's factory, loaded by name so its jdk.incubator imports stay unloaded where the module is absent. */
    private static final String LOADER_KERNEL_CLASS = "io.pinshard.loader.augment.WarmingCropKernel";

    private final int crop;
    private final CropKernel kernel;
    private final boolean shared;
    /** The last step of every crop: the kernel's rows, or scalar ones without a kernel. */
    private final PixelRows rows;
    /** OpenCV's images, made by the first crop that needs them (see {@link OpenCvImages}); null until then. */
    private OpenCvImages opencv;
    private final UnsafeBuffer sharedDestination = new UnsafeBuffer(0, 0);

    public CropResizer(int crop, Resampler resampler) {
        this(crop, resampler, false);
    }

    /** @param sharedDestination whether destinations are memory another process can change (see the class note) */
    public CropResizer(int crop, Resampler resampler, boolean sharedDestination) {
        this(crop, resampler, sharedDestination, PixelFormat.UINT8_NHWC);
    }

    /** @param pixels the format the destination holds (uint8 NHWC: the crop as it is) */
    public CropResizer(int crop, Resampler resampler, boolean sharedDestination, PixelFormat pixels) {
        this(crop, resampler, sharedDestination, pixels, 0);
    }

    /**
     * @param warmUpAfter crops this JVM's loaders make (with the vector kernel's scalar twin) before the kernel's warm-up
     *                    thread starts: a loader's batch size, so a fresh process's first batch has every core (on two
     *                    cores the warm-up took a third of them and the first batch of 256 took 1.9 s instead of
     *                    1.0-1.4 s: docs/benchmarks.md); 0 starts it at once
     */
    public CropResizer(int crop, Resampler resampler, boolean sharedDestination, PixelFormat pixels, int warmUpAfter) {
        this.crop = crop;
        this.kernel = newKernel(resampler, crop, pixels, warmUpAfter);
        this.rows = kernel != null ? kernel.rows() : new PixelRows(crop, pixels);
        this.shared = sharedDestination || !pixels.isCrop(); // OpenCV writes a private crop, which rows convert
        if (kernel == null) {
            this.opencv = new OpenCvImages(crop, shared); // every crop is OpenCV's: fail here, not later
        }
    }

    /**
     * Whether a vector kernel of this JVM is still being compiled: until then the workers crop with its scalar twin
     * (the same bytes, slower), so a measurement of the loader's rate waits for this to be false.
     */
    public static boolean kernelWarmingUp() {
        return KernelWarmUps.running();
    }

    /** Whether OpenCV's images were made (the first crop the vector kernel could not take makes them). */
    public boolean openCvLoaded() {
        return opencv != null;
    }

    /**
     * Writes the {@code crop x crop x 3} RGB result of {@code box} of the image at {@code image} (rows
     * {@code step} bytes apart, {@code channels} of 1, 3 or 4) to {@code destination}.
     */
    public void resizeInto(long image, long step, int channels, CropBox box, long destination) {
        if (!resizeWithKernel(image, step, channels, box, destination)) {
            resizeWithOpenCv(image, step, channels, box, destination);
        }
    }

    /**
     * The vector kernel's part of {@link #resizeInto}: false when there is none for this image or it refuses
     * the box. The kernel reads the source with JVM-guarded copies only, so it may read a mapping.
     */
    public boolean resizeWithKernel(long image, long step, int channels, CropBox box, long destination) {
        return channels == 3 && kernel != null && kernel.resizeInto(image, step, box, destination);
    }

    /**
     * The vector kernel's crop of a yuv420 image, converted to RGB row by row as it is read: false when there is no
     * kernel or it refuses the box (the caller then converts the box's rows and gives them to {@link #resizeWithOpenCv}).
     */
    public boolean resizeWithKernel(Yuv420Rows image, CropBox box, long destination) {
        return kernel != null && kernel.resizeInto(image, box, destination);
    }

    /**
     * OpenCV's part of {@link #resizeInto}. Native code: the source must not be a mapping (a truncated file would
     * crash it), and a shared destination gets a guarded copy of OpenCV's private output.
     */
    public void resizeWithOpenCv(long image, long step, int channels, CropBox box, long destination) {
        if (opencv == null) {
            opencv = new OpenCvImages(crop, shared); // once per resizer: its first crop the kernel did not take
        }
        if (opencv.staged == null) {
            opencv.cropInto(image, step, channels, box, destination);
            return;
        }
        UnsafeBuffer stagedPixels = opencv.stagedPixels;
        opencv.cropInto(image, step, channels, box, stagedPixels.addressOffset());
        if (rows.isCopy()) {
            sharedDestination.wrap(destination, stagedPixels.capacity());
            sharedDestination.putBytes(0, stagedPixels, 0, stagedPixels.capacity());
            return;
        }
        sharedDestination.wrap(destination, Math.toIntExact(rows.imageBytes()));
        rows.writeTile(stagedPixels, sharedDestination);
    }

    @Override
    public void close() {
        if (opencv != null) {
            opencv.close();
        }
    }

    /**
     * OpenCV's headers and output images for one resizer. Making them loads OpenCV's natives (about a CPU second,
     * {@link OpenCvRuntime}), so a resizer with a vector kernel makes them only when a crop first needs OpenCV
     * (1- or 4-channel images, boxes the kernel refuses): a loader over 3-channel raw or lz4 shards never does.
     */
    private static final class OpenCvImages implements AutoCloseable {
        private final int crop;
        private final Size size;
        private final MatHeader source;
        private final MatHeader target;
        private final Mat resized3;
        private final Mat resized1;
        private final Mat resized4;
        private final Mat converted;
        /** The private image OpenCV writes when the destination is shared (null otherwise), and its pixels. */
        private final Mat staged;
        private final UnsafeBuffer stagedPixels;

        OpenCvImages(int crop, boolean sharedDestination) {
            OpenCvRuntime.ready();
            this.crop = crop;
            this.size = new Size(crop, crop);
            this.source = new MatHeader();
            this.target = new MatHeader();
            this.resized3 = new Mat(crop, crop, CV_8UC(3));
            this.resized1 = new Mat(crop, crop, CV_8UC(1));
            this.resized4 = new Mat(crop, crop, CV_8UC(4));
            this.converted = new Mat(crop, crop, CV_8UC(3));
            this.staged = sharedDestination ? new Mat(crop, crop, CV_8UC(3)) : null;
            this.stagedPixels = sharedDestination ? new UnsafeBuffer(staged.data().address(), crop * crop * 3) : null;
        }

        void cropInto(long image, long step, int channels, CropBox box, long destination) {
            Mat roi = source.point(image + box.y * step + (long) box.x * channels, box.height, box.width, channels,
                step);
            Mat out = target.point(destination, crop, crop, 3, crop * 3L);
            if (channels == 3) {
                if (box.flip) {
                    resize(roi, resized3, size, 0, 0, INTER_LINEAR);
                    flip(resized3, out, 1);
                } else {
                    resize(roi, out, size, 0, 0, INTER_LINEAR);
                }
                return;
            }
            Mat resized = channels == 1 ? resized1 : resized4;
            int conversion = channels == 1 ? COLOR_GRAY2RGB : COLOR_RGBA2RGB;
            resize(roi, resized, size, 0, 0, INTER_LINEAR);
            if (box.flip) {
                cvtColor(resized, converted, conversion);
                flip(converted, out, 1);
            } else {
                cvtColor(resized, out, conversion);
            }
        }

        @Override
        public void close() {
            source.close();
            target.close();
            resized3.close();
            resized1.close();
            resized4.close();
            converted.close();
            if (staged != null) {
                staged.close();
            }
            size.close();
        }
    }

    /** A kernel for {@code crop}-pixel outputs in {@code pixels}, or null when {@code resampler} runs OpenCV. */
    private static CropKernel newKernel(Resampler resampler, int crop, PixelFormat pixels, int warmUpAfter) {
        if (resampler.effective() != Resampler.VECTOR) {
            return null;
        }
        try {
            return (CropKernel) Class.forName(LOADER_KERNEL_CLASS).getDeclaredMethod("forLoader", int.class,
                PixelFormat.class, int.class).invoke(null, crop, pixels, warmUpAfter);
        } catch (InvocationTargetException e) {
            throw new IllegalStateException("vector kernel failed to start: " + e.getCause(), e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("vector kernel failed to start: " + e, e);
        }
    }
}
