package io.pinshard.loader;

import static org.bytedeco.opencv.global.opencv_imgcodecs.IMREAD_COLOR_RGB;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMWRITE_JPEG_QUALITY;
import static org.bytedeco.opencv.global.opencv_imgcodecs.IMWRITE_JPEG_RST_INTERVAL;
import static org.bytedeco.opencv.global.opencv_imgcodecs.imencode;
import static org.bytedeco.opencv.global.opencv_imgcodecs.imread;
import static org.bytedeco.opencv.global.opencv_imgproc.COLOR_RGB2BGR;
import static org.bytedeco.opencv.global.opencv_imgproc.cvtColor;

import io.pinshard.format.Codec;
import io.pinshard.jpeg.JpegEncoder;
import io.pinshard.writer.DatasetWriter;
import io.pinshard.writer.DatasetWriterOptions;
import io.pinshard.writer.convert.ShorterSideResize;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.agrona.concurrent.UnsafeBuffer;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.IntPointer;
import org.bytedeco.opencv.opencv_core.Mat;

/**
 * Benchmark data preparation (used by scripts/bench-loader.sh until the convert tool is merged): resizes
 * an ImageFolder tree of photos to a shorter side (the converter's ShorterSideResize) and writes the same
 * images, each repeated {@code copies} times, as raw, lz4, jpeg and yuv420 pinshard datasets plus an ImageFolder of the JPEG files for
 * the PyTorch baseline. Usage: {@code PreparePhotos PHOTOS OUT SHORTER_SIDE COPIES [JPEG_QUALITY [RESTART_MCUS]]}
 * (restart markers as {@link JpegEncoder#restartInterval} picks them, up to RESTART_MCUS, default
 * {@link JpegEncoder#DEFAULT_RESTART_MCUS}, 0 for none).
 */
public final class PreparePhotos {
    private PreparePhotos() {
    }

    public static void main(String[] args) throws IOException {
        Path photos = Path.of(args[0]);
        Path out = Path.of(args[1]);
        int shorter = Integer.parseInt(args[2]);
        int copies = Integer.parseInt(args[3]);
        int quality = args.length > 4 ? Integer.parseInt(args[4]) : 90;
        // Restart markers as convert writes them (JpegEncoder), for the loader's restart-interval cut; 0: none.
        int restartMcus = args.length > 5 ? Integer.parseInt(args[5]) : JpegEncoder.DEFAULT_RESTART_MCUS;
        List<Path> files;
        try (Stream<Path> walk = Files.walk(photos)) {
            files = walk.filter(p -> p.toString().matches("(?i).*\\.(jpe?g|png)$")).sorted().toList();
        }
        List<String> classes = files.stream().map(p -> photos.relativize(p).getName(0).toString()).distinct().sorted()
            .toList();
        DatasetWriterOptions options = DatasetWriterOptions.defaults().withClasses(classes)
            .withPreprocessing(Map.of("shorter_side", shorter, "interpolation", "area", "jpeg_quality", quality));
        List<DatasetWriter> writers = new ArrayList<>();
        for (Codec codec : Codec.values()) {
            writers.add(new DatasetWriter(out.resolve(codec.label()), options));
        }
        long pixels = 0;
        for (Path file : files) {
            try (Mat rgb = imread(file.toString(), IMREAD_COLOR_RGB); Mat bgr = new Mat();
                 BytePointer jpeg = new BytePointer()) {
                if (rgb.empty()) {
                    System.err.println("skipped (unreadable): " + file);
                    continue;
                }
                Mat small = ShorterSideResize.resize(rgb, shorter, true);
                int w = small.cols();
                int h = small.rows();
                cvtColor(small, bgr, COLOR_RGB2BGR);
                try (IntPointer params = new IntPointer(IMWRITE_JPEG_QUALITY, quality, IMWRITE_JPEG_RST_INTERVAL,
                    JpegEncoder.restartInterval(w, 3, restartMcus))) {
                    imencode(".jpg", bgr, jpeg, params);
                }
                byte[] jpegBytes = new byte[(int) jpeg.limit()];
                jpeg.get(jpegBytes);
                UnsafeBuffer pixelsBuffer = new UnsafeBuffer(small.data().address(), h * w * 3);
                String theme = photos.relativize(file).getName(0).toString();
                int label = classes.indexOf(theme);
                String name = file.getFileName().toString().replaceAll("\\.[^.]+$", "");
                Path folder = out.resolve("jpeg-files").resolve(theme);
                Files.createDirectories(folder);
                for (int c = 0; c < copies; c++) {
                    String key = theme + "/" + name + "-" + c + ".jpg";
                    writers.get(0).appendPixels(pixelsBuffer, 0, h, w, 3, label, key, Codec.RAW);
                    writers.get(1).appendPixels(pixelsBuffer, 0, h, w, 3, label, key, Codec.LZ4);
                    writers.get(3).appendPixels(pixelsBuffer, 0, h, w, 3, label, key, Codec.YUV420);
                    writers.get(2).appendPayload(Codec.JPEG, new UnsafeBuffer(jpegBytes), 0, jpegBytes.length, h, w, 3,
                        label, key);
                    Files.write(folder.resolve(name + "-" + c + ".jpg"), jpegBytes);
                    pixels += (long) h * w;
                }
                small.close();
            }
        }
        for (DatasetWriter writer : writers) {
            writer.finish();
            writer.close();
        }
        System.out.printf("prepared %d images (%d photos x %d copies, %.0f kpx each on average) in %s%n",
            files.size() * copies, files.size(), copies, pixels / 1e3 / files.size() / copies, out);
    }
}
