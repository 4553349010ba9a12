package io.pinshard.cli;

import static org.bytedeco.opencv.global.opencv_core.CV_8UC3;
import static org.bytedeco.opencv.global.opencv_imgcodecs.imwrite;
import static org.bytedeco.opencv.global.opencv_imgproc.COLOR_RGB2BGR;
import static org.bytedeco.opencv.global.opencv_imgproc.INTER_AREA;
import static org.bytedeco.opencv.global.opencv_imgproc.cvtColor;
import static org.bytedeco.opencv.global.opencv_imgproc.resize;

import io.pinshard.reader.AddressPointer;
import io.pinshard.reader.Dataset;
import io.pinshard.reader.RecordView;
import io.pinshard.reader.loader.Batch;
import io.pinshard.reader.loader.Epoch;
import io.pinshard.reader.loader.Loader;
import io.pinshard.reader.loader.LoaderMode;
import io.pinshard.reader.loader.LoaderOptions;
import io.pinshard.reader.loader.SampleOrder;
import io.pinshard.memory.HostMemoryAllocator;
import io.pinshard.memory.NativeRegion;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.bytedeco.opencv.opencv_core.Mat;
import org.bytedeco.opencv.opencv_core.Rect;
import org.bytedeco.opencv.opencv_core.Scalar;
import org.bytedeco.opencv.opencv_core.Size;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code pinshard preview DIR --out sheet.png}: a contact sheet whose first row shows stored images
 * (whole, scaled to fit a tile) and whose next rows show the loader's augmented crops of the same
 * records in successive epochs, plus one eval-mode row, so a person can check crops, flips and colours.
 */
@Command(name = "preview", mixinStandardHelpOptions = true,
    description = "Write a contact sheet (PNG) of stored images and the loader's augmented crops of them.")
final class PreviewCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "DATASET", description = "Dataset directory (holds manifest.json), or "
        + "s3://bucket/prefix (streamed through the node's shard cache: see --cache-dir, --cache-limit).")
    String directory;

    @CommandLine.Mixin
    DatasetLocationMixin location = new DatasetLocationMixin();

    @Option(names = "--out", required = true, description = "PNG file to write.")
    Path out;

    @Option(names = "--count", defaultValue = "8", description = "Records shown (default ${DEFAULT-VALUE}).")
    int count;

    @Option(names = "--crop", defaultValue = "224", description = "Crop side (default ${DEFAULT-VALUE}).")
    int crop;

    @Option(names = "--epochs", defaultValue = "3", description = "Rows of training crops (default ${DEFAULT-VALUE}).")
    int epochs;

    @Mixin
    CrcOption crc = new CrcOption();

    @Option(names = "--seed", defaultValue = "0", description = "Seed (default ${DEFAULT-VALUE}).")
    long seed;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    private static final int GAP = 4;

    @Override
    public Integer call() {
        if (count < 1 || epochs < 0 || crop < 8) {
            throw new IllegalArgumentException("need --count >= 1, --epochs >= 0, --crop >= 8");
        }
        try (Dataset dataset = location.open(directory)) {
            int shown = (int) Math.min(count, dataset.size());
            int rows = 2 + epochs;
            try (Mat sheet = new Mat(rows * (crop + GAP) + GAP, shown * (crop + GAP) + GAP, CV_8UC3,
                    new Scalar(40, 40, 40, 0))) {
                drawStored(dataset, sheet, shown);
                LoaderOptions train = LoaderOptions.builder().batchSize(shown).crop(crop).workers(2).seed(seed)
                    .crcCheck(crc.mode())
                    .order(SampleOrder.SEQUENTIAL).build();
                drawCrops(dataset, train, sheet, shown, 1, epochs);
                drawCrops(dataset, train.toBuilder().mode(LoaderMode.EVAL).build(), sheet, shown, 1 + epochs, 1);
                try (Mat bgr = new Mat()) {
                    cvtColor(sheet, bgr, COLOR_RGB2BGR);
                    if (!imwrite(out.toString(), bgr)) {
                        throw new IllegalArgumentException("cannot write " + out);
                    }
                }
            }
            spec.commandLine().getOut().printf("wrote %s: row 1 stored images, rows 2-%d training crops (epochs 0-%d), "
                + "last row eval crops; records 0-%d%n", out, 1 + epochs, epochs - 1, shown - 1);
        }
        return 0;
    }

    private void drawStored(Dataset dataset, Mat sheet, int shown) {
        io.pinshard.reader.RecordDecoder decoder = new io.pinshard.reader.RecordDecoder(crc.mode());
        RecordView view = new RecordView();
        for (int i = 0; i < shown; i++) {
            dataset.record(i, view);
            try (NativeRegion pixels = HostMemoryAllocator.INSTANCE.allocate(view.decodedBytes(), 64)) {
                decoder.decode(view, pixels.address(), view.decodedBytes());
                int type = org.bytedeco.opencv.global.opencv_core.CV_8UC(view.channels());
                try (Mat image = new Mat(view.height(), view.width(), type,
                        new AddressPointer().at(pixels.address(), view.decodedBytes()));
                     Mat rgb = new Mat(); Mat fitted = new Mat()) {
                    if (view.channels() == 1) {
                        cvtColor(image, rgb, org.bytedeco.opencv.global.opencv_imgproc.COLOR_GRAY2RGB);
                    } else if (view.channels() == 4) {
                        cvtColor(image, rgb, org.bytedeco.opencv.global.opencv_imgproc.COLOR_RGBA2RGB);
                    } else {
                        image.copyTo(rgb);
                    }
                    double scale = (double) crop / Math.max(view.height(), view.width());
                    int w = Math.max(1, (int) Math.round(view.width() * scale));
                    int h = Math.max(1, (int) Math.round(view.height() * scale));
                    resize(rgb, fitted, new Size(w, h), 0, 0, INTER_AREA);
                    try (Mat tile = new Mat(sheet, new Rect(GAP + i * (crop + GAP) + (crop - w) / 2,
                            GAP + (crop - h) / 2, w, h))) {
                        fitted.copyTo(tile);
                    }
                }
            }
        }
    }

    private void drawCrops(Dataset dataset, LoaderOptions options, Mat sheet, int shown, int row, int rows) {
        try (Loader loader = Loader.open(dataset, options)) {
            for (int r = 0; r < rows; r++) {
                try (Epoch epoch = loader.epoch(r)) {
                    try (Batch batch = epoch.next()) {
                        for (int i = 0; i < batch.size(); i++) {
                            try (Mat image = new Mat(crop, crop, CV_8UC3,
                                    new AddressPointer().at(batch.imageAddress(i), batch.imageBytes()));
                                 Mat tile = new Mat(sheet, new Rect(GAP + i * (crop + GAP), GAP + (row + r) * (crop + GAP),
                                     crop, crop))) {
                                image.copyTo(tile);
                            }
                        }
                    }
                }
            }
        }
    }
}
