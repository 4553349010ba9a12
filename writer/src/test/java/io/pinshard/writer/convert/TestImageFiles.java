package io.pinshard.writer.convert;

import static org.bytedeco.opencv.global.opencv_core.CV_16UC3;
import static org.bytedeco.opencv.global.opencv_core.CV_8UC;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMWRITE_JPEG_PROGRESSIVE;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMWRITE_JPEG_QUALITY;
import static org.bytedeco.opencv.global.opencv_imgcodecs.imencode;

import java.awt.image.BufferedImage;
import java.awt.image.IndexColorModel;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.SplittableRandom;
import javax.imageio.ImageIO;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.IntPointer;
import org.bytedeco.javacpp.ShortPointer;
import org.bytedeco.opencv.opencv_core.Mat;

/** Writes test images of every kind conversion accepts, generated with OpenCV (and ImageIO for palette PNG). */
public final class TestImageFiles {
    private TestImageFiles() {
    }

    /** Interleaved 8-bit BGR(A)/grey samples: a smooth gradient plus a little deterministic noise. */
    public static byte[] gradient(int height, int width, int channels, long seed, int noise) {
        byte[] pixels = new byte[height * width * channels];
        SplittableRandom random = new SplittableRandom(seed);
        for (int y = 0, i = 0; y < height; y++) {
            for (int x = 0; x < width; x++) {
                for (int c = 0; c < channels; c++, i++) {
                    int value = (x * 255 / Math.max(1, width - 1) + y * 128 / Math.max(1, height - 1) + c * 60 + (int) seed) & 0xFF;
                    pixels[i] = (byte) Math.min(255, value + (noise > 0 ? random.nextInt(noise) : 0));
                }
            }
        }
        return pixels;
    }

    public static byte[] uniform(int height, int width, int channels, int... value) {
        byte[] pixels = new byte[height * width * channels];
        for (int i = 0; i < pixels.length; i++) {
            pixels[i] = (byte) value[i % channels];
        }
        return pixels;
    }

    /** Encodes 8-bit pixels (BGR order for 3 channels, BGRA for 4) with OpenCV to the format of {@code ext}. */
    public static byte[] encode(String ext, byte[] pixels, int height, int width, int channels, int... params) {
        try (BytePointer data = new BytePointer(pixels);
             Mat mat = new Mat(height, width, CV_8UC(channels), data);
             BytePointer out = new BytePointer();
             IntPointer p = new IntPointer(params.length == 0 ? new int[] {IMWRITE_JPEG_QUALITY, 95} : params)) {
            if (!imencode(ext, mat, out, p)) {
                throw new IllegalStateException("OpenCV cannot encode " + ext);
            }
            byte[] bytes = new byte[(int) out.limit()];
            out.get(bytes);
            return bytes;
        }
    }

    public static byte[] jpeg(byte[] bgr, int height, int width, int channels) {
        return encode(".jpg", bgr, height, width, channels);
    }

    public static byte[] progressiveJpeg(byte[] bgr, int height, int width) {
        return encode(".jpg", bgr, height, width, 3, IMWRITE_JPEG_QUALITY, 95, IMWRITE_JPEG_PROGRESSIVE, 1);
    }

    public static byte[] png(byte[] pixels, int height, int width, int channels) {
        return encode(".png", pixels, height, width, channels, 16, 1); // IMWRITE_PNG_COMPRESSION 1
    }

    /** A 16-bit BGR PNG whose every sample is {@code value}. */
    public static byte[] png16(int height, int width, int value) {
        short[] samples = new short[height * width * 3];
        Arrays.fill(samples, (short) value);
        try (ShortPointer data = new ShortPointer(samples);
             Mat mat = new Mat(height, width, CV_16UC3, data);
             BytePointer out = new BytePointer()) {
            if (!imencode(".png", mat, out)) {
                throw new IllegalStateException("OpenCV cannot write 16-bit PNG");
            }
            byte[] bytes = new byte[(int) out.limit()];
            out.get(bytes);
            return bytes;
        }
    }

    /** A palette (indexed) PNG: left half palette entry 0 (pure red), right half entry 1 (pure blue). */
    public static byte[] palettePng(int height, int width) throws IOException {
        byte[] r = {(byte) 255, 0};
        byte[] g = {0, 0};
        byte[] b = {0, (byte) 255};
        BufferedImage image = new BufferedImage(width, height, BufferedImage.TYPE_BYTE_BINARY, new IndexColorModel(1, 2, r, g, b));
        for (int y = 0; y < height; y++) {
            for (int x = 0; x < width; x++) {
                image.setRGB(x, y, x < width / 2 ? 0xFFFF0000 : 0xFF0000FF);
            }
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ImageIO.write(image, "png", out);
        return out.toByteArray();
    }

    /** Inserts an EXIF APP1 segment with the given orientation tag right after the JPEG's SOI marker. */
    public static byte[] withExifOrientation(byte[] jpeg, int orientation) {
        ByteBuffer tiff = ByteBuffer.allocate(26).order(ByteOrder.LITTLE_ENDIAN);
        tiff.put((byte) 'I').put((byte) 'I').putShort((short) 42).putInt(8); // TIFF header, IFD0 at 8
        tiff.putShort((short) 1); // one entry
        tiff.putShort((short) 0x0112).putShort((short) 3).putInt(1).putShort((short) orientation).putShort((short) 0);
        tiff.putInt(0); // no next IFD
        byte[] exif = new byte[6 + tiff.capacity()];
        System.arraycopy("Exif\0\0".getBytes(java.nio.charset.StandardCharsets.US_ASCII), 0, exif, 0, 6);
        System.arraycopy(tiff.array(), 0, exif, 6, tiff.capacity());
        int segmentLength = exif.length + 2;
        byte[] out = new byte[jpeg.length + 2 + segmentLength];
        out[0] = (byte) 0xFF;
        out[1] = (byte) 0xD8;
        out[2] = (byte) 0xFF;
        out[3] = (byte) 0xE1;
        out[4] = (byte) (segmentLength >> 8);
        out[5] = (byte) segmentLength;
        System.arraycopy(exif, 0, out, 6, exif.length);
        System.arraycopy(jpeg, 2, out, 6 + exif.length, jpeg.length - 2);
        return out;
    }

    /** Writes {@code bytes} as {@code dir/name} and converts that file with {@code options} (label 0). */
    static ConvertedImage convertFile(Path dir, ConvertOptions options, String name, byte[] bytes) throws IOException {
        return new ImageProcessor(options).convert(InputItem.file(name, 0, write(dir.resolve(name), bytes)));
    }

    public static Path write(Path file, byte[] bytes) throws IOException {
        Files.createDirectories(file.getParent());
        return Files.write(file, bytes);
    }

    /** Appends one member to a tar being written, modification time 0 (so tars are reproducible). */
    public static void addTarMember(TarArchiveOutputStream out, String name, byte[] bytes) throws IOException {
        TarArchiveEntry entry = new TarArchiveEntry(name);
        entry.setSize(bytes.length);
        entry.setModTime(0);
        out.putArchiveEntry(entry);
        out.write(bytes);
        out.closeArchiveEntry();
    }
}
