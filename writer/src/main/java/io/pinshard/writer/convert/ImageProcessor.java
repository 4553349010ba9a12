package io.pinshard.writer.convert;

import static org.bytedeco.opencv.global.opencv_core.CV_32F;
import static org.bytedeco.opencv.global.opencv_core.CV_8U;
import static org.bytedeco.opencv.global.opencv_core.CV_8UC1;
import static org.bytedeco.opencv.global.opencv_core.CV_8UC3;
import static org.bytedeco.opencv.global.opencv_core.extractChannel;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_COLOR;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_REDUCED_COLOR_2;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_REDUCED_COLOR_4;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_REDUCED_COLOR_8;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_UNCHANGED;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMWRITE_JPEG_QUALITY;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMWRITE_JPEG_RST_INTERVAL;
import static org.bytedeco.opencv.global.opencv_imgcodecs.imdecode;
import static org.bytedeco.opencv.global.opencv_imgcodecs.imencode;
import static org.bytedeco.opencv.global.opencv_imgproc.COLOR_BGR2RGB;
import static org.bytedeco.opencv.global.opencv_imgproc.COLOR_BGRA2BGR;
import static org.bytedeco.opencv.global.opencv_imgproc.COLOR_GRAY2BGR;
import static org.bytedeco.opencv.global.opencv_imgproc.blendLinear;
import static org.bytedeco.opencv.global.opencv_imgproc.cvtColor;

import io.pinshard.format.Bt601;
import io.pinshard.format.Codec;
import io.pinshard.format.Yuv420Descriptor;
import io.pinshard.jpeg.AlphaComposite;
import io.pinshard.jpeg.AreaShrink;
import io.pinshard.jpeg.JpegEncoder;
import io.pinshard.jpeg.OpenCvRuntime;
import io.pinshard.jpeg.RegionDecoder;
import io.pinshard.jpeg.TurboJpeg;
import java.io.IOException;
import java.nio.ByteBuffer;
import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Factory;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.IntPointer;
import org.bytedeco.opencv.opencv_core.Mat;
import org.bytedeco.opencv.opencv_core.Rect;
import org.bytedeco.opencv.opencv_core.Scalar;

/**
 * Converts one encoded image into a stored record. JPEGs with EXIF orientation 1 (or none) go through
 * libjpeg-turbo's own API alone where this JVM has it ({@link TurboJpeg}): decoded at the smallest M/8 scale
 * (1/8, 2/8 ... 8/8) that keeps the shorter side at or above {@link ConvertOptions#reducingGap()} times the
 * target, shrunk and encoded natively ({@link #convertWithTurbo}), OpenCV never loaded for them. Everything else
 * goes through OpenCV, loaded on first need: reduced-size JPEG decoding (the
 * largest DCT scale 1/8, 1/4 or 1/2 that keeps the shorter side at or above that), EXIF
 * orientation (applied by OpenCV's JPEG decoder), 3-channel RGB uint8 (grey expanded, alpha
 * composited on {@link ConvertOptions#ALPHA_BACKGROUND_RGB}, 16-bit scaled by 1/257), {@link ShorterSideResize}
 * (INTER_AREA) to the exact shorter side, the aspect guard, and the output codec. One instance per thread;
 * it keeps its read buffer between images. Any failure becomes a rejection with a reason.
 *
 * <p>Three ways in, one pipeline: {@link #convert(InputItem)} (a file or tar member, {@code pinshard convert}),
 * {@link #convertEncoded} (encoded bytes already in memory, the Spark data source) and {@link #convertPixels}
 * (decoded RGB pixels, which join after the decode step).
 */
public final class ImageProcessor {
    private final ConvertOptions options;
    /** libjpeg-turbo's M/8-scaled decode, or null where this JVM decodes JPEG with OpenCV only. */
    private final RegionDecoder turbo;
    private ByteBuffer readBuffer;
    /** The libjpeg-turbo path's reused native memory: the decoded image, the shrunk one, the encoded stream. */
    private ByteBuffer decoded;
    private ByteBuffer shrunk;
    private ByteBuffer encoded;
    private JpegEncoder encoder;

    public ImageProcessor(ConvertOptions options) {
        this.options = options;
        this.turbo = TurboJpeg.available("conversion") ? new RegionDecoder() : null;
    }

    /** Converts a file (or a slice of one, a tar member) that {@code item} names. */
    public ConvertedImage convert(InputItem item) {
        if (item.problem() != null) {
            return ConvertedImage.rejected(item.problem(), 0);
        }
        try {
            readBuffer = item.read(readBuffer, options.maxInputBytes());
        } catch (IOException | RuntimeException e) {
            return ConvertedImage.rejected("cannot read: " + describe(e), 0);
        }
        return convertRead();
    }

    /**
     * Converts {@code length} encoded bytes at {@code offset} of {@code content} (a file's bytes already in memory),
     * with the same size limit, checks and reasons as {@link #convert(InputItem)}; the bytes are copied into this
     * processor's direct read buffer first, so every decoder sees what it sees for a file.
     */
    public ConvertedImage convertEncoded(byte[] content, int offset, int length) {
        if (length > options.maxInputBytes()) {
            return ConvertedImage.rejected("cannot read: " + InputItem.tooLarge(length, options.maxInputBytes()), 0);
        }
        readBuffer = InputItem.ensureCapacity(readBuffer, length, options.maxInputBytes());
        readBuffer.clear();
        readBuffer.put(content, offset, length).flip();
        return convertRead();
    }

    /**
     * Converts decoded pixels (height x width x channels uint8, row-major; 1 = grey, 2 = grey + alpha, 3 = RGB,
     * 4 = RGBA) through the steps after the decode: RGB (alpha composited on the background), the aspect guard,
     * {@link ShorterSideResize} and the output codec. {@code pixels} must hold exactly that many bytes.
     */
    public ConvertedImage convertPixels(int height, int width, int channels, byte[] pixels) {
        long expected = (long) height * width * channels;
        if (height < 1 || width < 1 || channels < 1 || channels > 4 || expected > Integer.MAX_VALUE) {
            return ConvertedImage.rejected("invalid shape " + height + "x" + width + "x" + channels
                + " (height and width at least 1, 1 to 4 channels)", pixels == null ? 0 : pixels.length);
        }
        if (pixels == null || pixels.length != expected) {
            return ConvertedImage.rejected("pixels hold " + (pixels == null ? 0 : pixels.length) + " bytes, the shape "
                + height + "x" + width + "x" + channels + " needs " + expected, pixels == null ? 0 : pixels.length);
        }
        if ((long) height * width > options.maxPixels()) {
            return ConvertedImage.rejected("image is " + width + "x" + height + " = " + (long) height * width
                + " pixels, more than the limit of " + options.maxPixels() + " (--max-pixels)", pixels.length);
        }
        OpenCvRuntime.ready(); // only when an input needs OpenCV: PNG, EXIF-turned, CMYK, enlarging
        try (BytePointer bytes = new BytePointer(pixels);
             Mat given = new Mat(height, width, org.bytedeco.opencv.global.opencv_core.CV_8UC(channels), bytes)) {
            rejectIfTooWide(height, width);
            // OpenCV's order is BGR(A); grey needs no swap.
            Mat ordered = given;
            if (channels >= 3) {
                ordered = new Mat();
                cvtColor(given, ordered, channels == 3 ? org.bytedeco.opencv.global.opencv_imgproc.COLOR_RGB2BGR
                    : org.bytedeco.opencv.global.opencv_imgproc.COLOR_RGBA2BGRA);
            }
            try {
                Mat bgr = toBgr8(ordered);
                try {
                    return encode(cropToAspect(ShorterSideResize.resize(bgr, height, width, options.shorterSide(),
                        options.upscale())), pixels.length);
                } finally {
                    if (bgr != ordered) {
                        bgr.close();
                    }
                }
            } finally {
                if (ordered != given) {
                    ordered.close();
                }
            }
        } catch (IllegalArgumentException e) {
            return ConvertedImage.rejected(e.getMessage(), pixels.length);
        } catch (RuntimeException e) {
            return ConvertedImage.rejected("cannot convert: " + describe(e), pixels.length);
        }
    }

    /** The encoded image in {@link #readBuffer}: signature, header and decode checks, then the pipeline. */
    private ConvertedImage convertRead() {
        long inputBytes = readBuffer.limit();
        if (inputBytes == 0) {
            return ConvertedImage.rejected("empty file (0 bytes)", 0);
        }
        try {
            String reason = ImageSignature.unsupportedReason(readBuffer);
            if (reason != null) {
                return ConvertedImage.rejected(reason, inputBytes);
            }
            return convertDecodable(inputBytes);
        } catch (IllegalArgumentException e) {
            return ConvertedImage.rejected(e.getMessage(), inputBytes);
        } catch (RuntimeException e) {
            // OpenCV reports its errors as RuntimeExceptions carrying cv::Exception's text.
            return ConvertedImage.rejected("cannot decode: " + describe(e), inputBytes);
        }
    }

    private ConvertedImage convertDecodable(long inputBytes) {
        int target = options.shorterSide();
        int flags = IMREAD_UNCHANGED;
        // Before any decoder allocates from the header's numbers: the decompression-bomb guard.
        ImageHeader header = ImageHeader.read(readBuffer);
        if (header.pixels() > options.maxPixels()) {
            return ConvertedImage.rejected("image declares " + header.width() + "x" + header.height() + " = "
                + header.pixels() + " pixels, more than the limit of " + options.maxPixels()
                + " (--max-pixels; a decompression-bomb guard)", inputBytes);
        }
        int originalHeight = -1;
        int originalWidth = -1;
        if (header.jpeg()) {
            originalHeight = header.height();
            originalWidth = header.width();
            rejectIfTooWide(originalHeight, originalWidth);
            if (turbo != null && readBuffer.isDirect() && ExifOrientation.of(readBuffer) == 1) {
                ConvertedImage converted = convertWithTurbo(originalHeight, originalWidth, inputBytes);
                if (converted != null) {
                    return converted;
                }
            }
            flags = jpegFlags(Math.min(originalHeight, originalWidth), target, options.reducingGap());
        }
        OpenCvRuntime.ready(); // only when an input needs OpenCV: PNG, EXIF-turned, CMYK, enlarging
        try (BytePointer bytes = new BytePointer(readBuffer);
             Mat encoded = new Mat(1, (int) inputBytes, CV_8UC1, bytes);
             Mat decoded = imdecode(encoded, flags)) {
            if (decoded == null || decoded.empty()) {
                return ConvertedImage.rejected("cannot decode: not a readable image (corrupt or truncated?)", inputBytes);
            }
            if (header.jpeg() && JpegWarnings.mayHaveFilledGrey(decoded)) {
                String warning = JpegWarnings.firstWarning(readBuffer);
                if (warning != null) {
                    return ConvertedImage.rejected("corrupt JPEG data: the decoder warns \"" + warning
                        + "\" (it would fill what is missing with grey)", inputBytes);
                }
            }
            Mat bgr = toBgr8(decoded);
            try {
                if (originalHeight < 0) {
                    originalHeight = bgr.rows();
                    originalWidth = bgr.cols();
                    rejectIfTooWide(originalHeight, originalWidth);
                } else if ((bgr.rows() >= bgr.cols()) != (originalHeight >= originalWidth)) {
                    // EXIF orientation turned the image by 90 degrees.
                    int swap = originalHeight;
                    originalHeight = originalWidth;
                    originalWidth = swap;
                }
                return encode(cropToAspect(ShorterSideResize.resize(bgr, originalHeight, originalWidth, target, options.upscale())),
                    inputBytes);
            } finally {
                if (bgr != decoded) {
                    bgr.close();
                }
            }
        }
    }

    /**
     * A JPEG through libjpeg-turbo alone, OpenCV never loaded: decoded as RGB at the smallest M/8 scale that keeps
     * the shorter side at least {@code --reducing-gap} times the target, area-shrunk ({@link AreaShrink},
     * OpenCV's INTER_AREA) to the exact size, cropped to the aspect limit by moving the start of the rows, and
     * encoded by libjpeg-turbo ({@link JpegEncoder}) or copied as RGB for raw and lz4. Null for what it leaves to
     * OpenCV: CMYK and YCCK streams, and sizes that need enlarging (INTER_LINEAR). Only for EXIF orientation 1:
     * libjpeg does not turn images.
     */
    private ConvertedImage convertWithTurbo(int height, int width, long inputBytes) {
        int target = options.shorterSide();
        int shorter = Math.min(height, width);
        int scale = scaleEighths(shorter, target, options.reducingGap());
        int rows = RegionDecoder.scaledSide(height, scale);
        int cols = RegionDecoder.scaledSide(width, scale);
        int outRows = rows;
        int outCols = cols;
        if (shorter >= target || options.upscale()) {
            outRows = ShorterSideResize.scaledSide(height, shorter, target);
            outCols = ShorterSideResize.scaledSide(width, shorter, target);
        }
        if (outRows > rows || outCols > cols) {
            return null;
        }
        long stride = (long) cols * 3;
        decoded = atLeast(decoded, stride * rows);
        long decodedAddress = BufferUtil.address(decoded);
        RegionDecoder.Status status = turbo.decodeWhole(BufferUtil.address(readBuffer), (int) inputBytes, scale, rows,
            cols, RegionDecoder.Format.RGB, decodedAddress, stride, stride * rows);
        switch (status) {
            case UNSUPPORTED -> {
                return null;
            }
            case CORRUPT, ARGUMENT -> {
                return ConvertedImage.rejected("cannot decode: " + turbo.problem(), inputBytes);
            }
            default -> {
            }
        }
        // libjpeg's own warning, where OpenCV's path needs a second decode to see it.
        if (turbo.warnings() > 0 && JpegWarnings.mayHaveFilledGrey(decodedAddress, rows, cols, stride, 3)) {
            return ConvertedImage.rejected("corrupt JPEG data: the decoder warns \"" + turbo.firstWarning()
                + "\" (it would fill what is missing with grey)", inputBytes);
        }
        long pixels = decodedAddress;
        long pixelStride = stride;
        if (outRows != rows || outCols != cols) {
            pixelStride = (long) outCols * 3;
            shrunk = atLeast(shrunk, pixelStride * outRows);
            pixels = BufferUtil.address(shrunk);
            AreaShrink.shrink(decodedAddress, rows, cols, stride, 3, pixels, outRows, outCols, pixelStride);
        }
        double maxAspect = options.maxAspect();
        if (maxAspect > 0 && options.aspectPolicy() == AspectPolicy.CROP
            && (double) Math.max(outRows, outCols) / Math.min(outRows, outCols) > maxAspect) {
            int keep = (int) Math.floor(Math.min(outRows, outCols) * maxAspect);
            if (outRows > outCols) {
                pixels += (outRows - keep) / 2 * pixelStride;
                outRows = keep;
            } else {
                pixels += (outCols - keep) / 2 * 3L;
                outCols = keep;
            }
        }
        return encodeRgb(pixels, outRows, outCols, pixelStride, inputBytes);
    }

    /** The stored record of an RGB image at {@code pixels} (rows {@code stride} bytes apart), in the output codec. */
    private ConvertedImage encodeRgb(long pixels, int height, int width, long stride, long inputBytes) {
        if (options.codec() == OutputCodec.JPEG) {
            if (encoder == null) {
                encoder = new JpegEncoder();
            }
            long capacity = JpegEncoder.maxEncodedLength(height, width);
            encoded = atLeast(encoded, capacity);
            int length = encoder.encode(pixels, height, width, stride, RegionDecoder.Format.RGB, options.jpegQuality(),
                BufferUtil.address(encoded), capacity);
            byte[] payload = new byte[length];
            encoded.get(0, payload);
            return new ConvertedImage(Codec.JPEG, payload, height, width, 3, inputBytes, null);
        }
        byte[] raw = new byte[height * width * 3];
        UnsafeBuffer rows = new UnsafeBuffer(pixels, (int) (stride * (height - 1) + (long) width * 3));
        for (int y = 0; y < height; y++) {
            rows.getBytes((int) (y * stride), raw, y * width * 3, width * 3);
        }
        return rawOrLz4(raw, height, width, inputBytes);
    }

    /**
     * The smallest M of libjpeg-turbo's M/8 scales whose result keeps a shorter side of {@code shorter} at
     * least {@code gap * target} (libjpeg rounds scaled sizes up); 8 (full size) when gap is 0.
     */
    static int scaleEighths(int shorter, int target, double gap) {
        if (gap <= 0) {
            return 8;
        }
        double needed = gap * target;
        int scale = 1;
        while (scale < 8 && RegionDecoder.scaledSide(shorter, scale) < needed) {
            scale++;
        }
        return scale;
    }

    /**
     * The decode flags for a JPEG whose shorter side is {@code shorter}: the largest DCT reduction
     * that keeps it at least {@code gap * target} (libjpeg rounds scaled sizes up); no reduction when gap is 0.
     */
    static int jpegFlags(int shorter, int target, double gap) {
        if (gap <= 0) {
            return IMREAD_COLOR;
        }
        double needed = gap * target;
        if (RegionDecoder.scaledSide(shorter, 1) >= needed) {
            return IMREAD_REDUCED_COLOR_8;
        }
        if (RegionDecoder.scaledSide(shorter, 2) >= needed) {
            return IMREAD_REDUCED_COLOR_4;
        }
        if (RegionDecoder.scaledSide(shorter, 4) >= needed) {
            return IMREAD_REDUCED_COLOR_2;
        }
        return IMREAD_COLOR;
    }

    private void rejectIfTooWide(int height, int width) {
        if (options.maxAspect() > 0 && options.aspectPolicy() == AspectPolicy.REJECT
            && (double) Math.max(height, width) / Math.min(height, width) > options.maxAspect()) {
            throw new IllegalArgumentException("aspect ratio " + String.format(java.util.Locale.ROOT, "%.2f",
                (double) Math.max(height, width) / Math.min(height, width)) + " exceeds --max-aspect " + options.maxAspect());
        }
    }

    /**
     * Any decoded image (1-4 channels, 8 or 16 bit) as 8-bit BGR, alpha composited on the background;
     * an 8-bit BGR image is returned as it is (no copy of a possibly 40 MB frame).
     */
    private static Mat toBgr8(Mat decoded) {
        if (decoded.depth() == CV_8U && decoded.channels() == 3) {
            return decoded;
        }
        Mat eight = decoded;
        if (decoded.depth() != CV_8U) {
            if (decoded.depth() != org.bytedeco.opencv.global.opencv_core.CV_16U) {
                throw new IllegalArgumentException("unsupported sample depth (OpenCV depth " + decoded.depth() + ")");
            }
            eight = new Mat();
            decoded.convertTo(eight, CV_8U, 1.0 / 257.0, 0);
        }
        Mat bgr = new Mat();
        switch (eight.channels()) {
            case 1 -> cvtColor(eight, bgr, COLOR_GRAY2BGR);
            case 3 -> eight.copyTo(bgr);
            case 2, 4 -> compositeOnBackground(eight, bgr);
            default -> throw new IllegalArgumentException("unsupported channel count " + eight.channels());
        }
        if (eight != decoded) {
            eight.close();
        }
        return bgr;
    }

    private static void compositeOnBackground(Mat withAlpha, Mat bgr) {
        if (TurboJpeg.unavailableReason() == null && withAlpha.isContinuous()) {
            // One native integer pass: OpenCV's float blend below costs more than the decode of a large PNG.
            bgr.create(withAlpha.rows(), withAlpha.cols(), CV_8UC3);
            AlphaComposite.onBackground(withAlpha.data().address(), withAlpha.rows(), withAlpha.cols(), withAlpha.step(),
                withAlpha.channels(), (int) ALPHA_B, (int) ALPHA_G, (int) ALPHA_R, bgr.data().address(), bgr.step());
            return;
        }
        int alphaChannel = withAlpha.channels() - 1;
        try (Mat color = new Mat(); Mat alpha = new Mat(); Mat weights = new Mat(); Mat inverse = new Mat();
             Mat background = new Mat(withAlpha.rows(), withAlpha.cols(), CV_8UC3,
                 new Scalar(ALPHA_B, ALPHA_G, ALPHA_R, 0))) {
            if (withAlpha.channels() == 2) {
                try (Mat grey = new Mat()) {
                    extractChannel(withAlpha, grey, 0);
                    cvtColor(grey, color, COLOR_GRAY2BGR);
                }
            } else {
                cvtColor(withAlpha, color, COLOR_BGRA2BGR);
            }
            extractChannel(withAlpha, alpha, alphaChannel);
            alpha.convertTo(weights, CV_32F, 1.0, 0);
            alpha.convertTo(inverse, CV_32F, -1.0, 255.0);
            blendLinear(color, background, weights, inverse, bgr);
        }
    }

    private static final double ALPHA_R = ConvertOptions.ALPHA_BACKGROUND_RGB[0];
    private static final double ALPHA_G = ConvertOptions.ALPHA_BACKGROUND_RGB[1];
    private static final double ALPHA_B = ConvertOptions.ALPHA_BACKGROUND_RGB[2];

    /** Cuts the longer side to floor(shorter * maxAspect), centred, when CROP applies; otherwise returns the image. */
    private Mat cropToAspect(Mat image) {
        double maxAspect = options.maxAspect();
        int rows = image.rows();
        int cols = image.cols();
        if (maxAspect <= 0 || options.aspectPolicy() != AspectPolicy.CROP
            || (double) Math.max(rows, cols) / Math.min(rows, cols) <= maxAspect) {
            return image;
        }
        int keep = (int) Math.floor(Math.min(rows, cols) * maxAspect);
        try (Rect roi = rows > cols ? new Rect(0, (rows - keep) / 2, cols, keep) : new Rect((cols - keep) / 2, 0, keep, rows)) {
            Mat cropped = image.apply(roi).clone();
            image.close();
            return cropped;
        }
    }

    private ConvertedImage encode(Mat bgr, long inputBytes) {
        try (bgr) {
            int height = bgr.rows();
            int width = bgr.cols();
            if (options.codec() == OutputCodec.JPEG) {
                // The restart markers libjpeg-turbo's encode writes too (JpegEncoder), for the loader's cut.
                int restart = JpegEncoder.restartInterval(width, 3, JpegEncoder.DEFAULT_RESTART_MCUS);
                try (BytePointer out = new BytePointer(); IntPointer params = new IntPointer(IMWRITE_JPEG_QUALITY,
                    options.jpegQuality(), IMWRITE_JPEG_RST_INTERVAL, restart)) {
                    if (!imencode(".jpg", bgr, out, params)) {
                        return ConvertedImage.rejected("jpeg encoder failed", inputBytes);
                    }
                    byte[] payload = new byte[(int) out.limit()];
                    out.get(payload);
                    return new ConvertedImage(Codec.JPEG, payload, height, width, 3, inputBytes, null);
                }
            }
            byte[] raw = new byte[height * width * 3];
            try (Mat rgb = new Mat()) {
                cvtColor(bgr, rgb, COLOR_BGR2RGB);
                rgb.data().get(raw);
            }
            return rawOrLz4(raw, height, width, inputBytes);
        }
    }

    /** {@code raw} (RGB) as the raw record, as one LZ4 block or as YUV 4:2:0 planes where the codec asks for it. */
    private ConvertedImage rawOrLz4(byte[] raw, int height, int width, long inputBytes) {
        if (options.codec() == OutputCodec.RAW) {
            return new ConvertedImage(Codec.RAW, raw, height, width, 3, inputBytes, null);
        }
        if (options.codec() == OutputCodec.YUV420) {
            byte[] planes = new byte[(int) Yuv420Descriptor.payloadLength(height, width)];
            Bt601.encode(raw, 0, height, width, planes, 0);
            return new ConvertedImage(Codec.YUV420, planes, height, width, 3, inputBytes, null);
        }
        LZ4Compressor lz4 = Lz4.COMPRESSOR;
        byte[] block = new byte[lz4.maxCompressedLength(raw.length)];
        int compressed = lz4.compress(raw, 0, raw.length, block, 0, block.length);
        if (options.codec() == OutputCodec.AUTO && compressed > raw.length * OutputCodec.AUTO_LZ4_MAX_RATIO) {
            return new ConvertedImage(Codec.RAW, raw, height, width, 3, inputBytes, null);
        }
        return new ConvertedImage(Codec.LZ4, java.util.Arrays.copyOf(block, compressed), height, width, 3, inputBytes, null);
    }

    /** {@code buffer} when it holds {@code bytes}, else a larger direct buffer (the old one freed now, not at GC). */
    private static ByteBuffer atLeast(ByteBuffer buffer, long bytes) {
        if (buffer != null && buffer.capacity() >= bytes) {
            return buffer;
        }
        if (bytes > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("an image of " + bytes + " bytes is larger than a buffer holds");
        }
        if (buffer != null) {
            BufferUtil.free(buffer);
        }
        return ByteBuffer.allocateDirect((int) Math.max(bytes, 1 << 16));
    }

    /** The LZ4 compressor, loaded (lz4-java's JNI library) only when a raw-or-lz4 codec first needs it. */
    private static final class Lz4 {
        static final LZ4Compressor COMPRESSOR = LZ4Factory.fastestInstance().fastCompressor();
    }

    private static String describe(Throwable e) {
        String message = e.getMessage();
        if (message == null || message.isBlank()) {
            return e.getClass().getSimpleName();
        }
        // OpenCV messages span lines; keep the manifest's reason on one line.
        return message.replaceAll("\\s+", " ").trim();
    }
}
