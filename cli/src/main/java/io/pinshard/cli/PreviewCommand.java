package io.pinshard.cli;

import static org.bytedeco.opencv.global.opencv_core.CV_8UC3;
import static org.bytedeco.opencv.global.opencv_imgcodecs.haveImageWriter;
import static org.bytedeco.opencv.global.opencv_imgcodecs.imwrite;
import static org.bytedeco.opencv.global.opencv_imgproc.COLOR_RGB2BGR;
import static org.bytedeco.opencv.global.opencv_imgproc.INTER_AREA;
import static org.bytedeco.opencv.global.opencv_imgproc.FONT_HERSHEY_SIMPLEX;
import static org.bytedeco.opencv.global.opencv_imgproc.LINE_AA;
import static org.bytedeco.opencv.global.opencv_imgproc.cvtColor;
import static org.bytedeco.opencv.global.opencv_imgproc.getTextSize;
import static org.bytedeco.opencv.global.opencv_imgproc.putText;
import static org.bytedeco.opencv.global.opencv_imgproc.resize;

import io.pinshard.format.Printable;
import io.pinshard.memory.AddressPointer;
import io.pinshard.reader.Dataset;
import io.pinshard.reader.RecordView;
import io.pinshard.loader.options.LoaderMode;
import io.pinshard.loader.options.LoaderOptions;
import io.pinshard.loader.RecordCropper;
import io.pinshard.memory.HostMemoryAllocator;
import io.pinshard.memory.NativeRegion;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.bytedeco.opencv.opencv_core.Mat;
import org.bytedeco.opencv.opencv_core.Point;
import org.bytedeco.opencv.opencv_core.Rect;
import org.bytedeco.opencv.opencv_core.Scalar;
import org.bytedeco.opencv.opencv_core.Size;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code pinshard preview DIR --out sheet.png}: a contact sheet of records chosen across the classes (one column
 * each, captioned with its class and key), whose first row shows the stored images (whole, scaled to fit a tile)
 * and whose next rows show the loader's augmented crops of the same records in successive epochs, plus one
 * eval-mode row, each row captioned, so a person can check labels, crops, flips and colours.
 */
@Command(name = "preview", mixinStandardHelpOptions = true,
    description = {"Write a contact sheet (PNG) of stored images and the loader's augmented crops of them.",
        "The records are chosen across the classes (round-robin, shuffled within a class by --seed; with more classes"
            + " than --count, one record of each of --count classes spread over the class list); each column is"
            + " captioned with the record's class and key, each row with what it shows, and the records are listed."})
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

    @Option(names = "--seed", defaultValue = "0", description = "Seed of the records chosen and of the crops (default ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--caption", paramLabel = "FIELD", description = "Also caption each column with this record "
        + "field's value (docs/fields.md), e.g. caption; numbers are listed.")
    String captionField;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    private static final int GAP = 4;
    /** Caption text: white Hershey simplex, small enough for about 28 characters over a 224-px tile. */
    private static final double FONT_SCALE = 0.4;
    static final int LINE = 14;

    /**
     * The caption colour, made on first use: a Scalar loads OpenCV's natives (and OpenBLAS's), and picocli makes this
     * command's object at every start of the CLI, so a static field here cost every command, `serve` included, that
     * load.
     */
    private static final class TextColour {
        static final Scalar WHITE = new Scalar(255, 255, 255, 0);
    }

    @Override
    public Integer call() {
        if (count < 1 || epochs < 0 || crop < 8) {
            throw new IllegalArgumentException("need --count >= 1, --epochs >= 0, --crop >= 8");
        }
        checkOut(out);
        try (Dataset dataset = location.open(directory)) {
            int field = captionField == null ? -1 : dataset.fieldIndex(captionField);
            if (captionField != null && field < 0) {
                throw new IllegalArgumentException(dataset.location() + " has no field " + captionField
                    + "; its fields: " + dataset.fields().stream().map(io.pinshard.format.FieldSchema::describe).toList());
            }
            captionLines = field < 0 ? 2 : 3;
            long[] records = PreviewSample.choose(dataset, count, seed);
            int shown = records.length;
            int rows = 2 + epochs;
            try (Mat sheet = new Mat(top() + rows * rowHeight(), shown * (crop + GAP) + GAP, CV_8UC3,
                    new Scalar(40, 40, 40, 0))) {
                String[] classNames = captionRecords(dataset, sheet, records, field);
                caption(sheet, 0, "stored images (whole, scaled to fit)");
                drawStored(dataset, sheet, records);
                LoaderOptions train = LoaderOptions.builder().batchSize(shown).crop(crop).workers(1).seed(seed)
                    .crcCheck(crc.mode()).build();
                for (int e = 0; e < epochs; e++) {
                    caption(sheet, 1 + e, "training crops, epoch " + e);
                    drawCrops(dataset, train, sheet, records, 1 + e, e);
                }
                caption(sheet, 1 + epochs, "eval crops");
                drawCrops(dataset, train.toBuilder().mode(LoaderMode.EVAL).build(), sheet, records, 1 + epochs, 0);
                try (Mat bgr = new Mat()) {
                    cvtColor(sheet, bgr, COLOR_RGB2BGR);
                    if (!imwrite(out.toString(), bgr)) {
                        throw new IllegalStateException("cannot write " + out + " (is the folder writable, the disk"
                            + " full?)");
                    }
                }
                PrintWriter printer = spec.commandLine().getOut();
                printer.printf(Locale.ROOT, "wrote %s: %d records of %d classes; row 1 stored images, rows 2-%d training"
                    + " crops (epochs 0-%d), last row eval crops%n", Printable.escape(out.toString()), shown,
                    java.util.Arrays.stream(classNames).distinct().count(), 1 + epochs, epochs - 1);
                for (int i = 0; i < shown; i++) {
                    RecordView view = dataset.record(records[i], new RecordView());
                    // Class names, keys and field values come from the files: escaped, as every name is.
                    printer.printf(Locale.ROOT, "  column %d: record %d  class %s  key %s%s%n", i + 1, records[i],
                        Printable.escape(classNames[i]), Printable.escape(view.key()),
                        field < 0 ? "" : "  " + captionField + " " + Printable.escape(fieldText(dataset, view, field)));
                }
                printer.flush();
            }
        }
        return 0;
    }

    /** Refuses an --out that cannot be written, before any work: OpenCV would fail at the end, in its own words. */
    static void checkOut(Path out) {
        Path parent = out.toAbsolutePath().getParent();
        if (Files.isDirectory(out)) {
            throw new IllegalArgumentException("--out " + out + " is a directory: give a file name, e.g. "
                + out.resolve("sheet.png"));
        }
        if (parent != null && !Files.isDirectory(parent)) {
            throw new IllegalArgumentException("--out " + out + ": the folder " + parent + " does not exist (create it,"
                + " or write the sheet elsewhere)");
        }
        if (!haveImageWriter(out.toString())) {
            throw new IllegalArgumentException("--out " + out + ": no image format for that name; give a name ending"
                + " in .png");
        }
    }

    /** Caption lines above each column: class and key, and the --caption field's value. */
    private int captionLines = 2;

    /** Height of the record captions above the first row: class, key (and the chosen field). */
    private int top() {
        return GAP + captionLines * LINE + 2;
    }

    /** A row: its caption line, then the tiles. */
    private int rowHeight() {
        return LINE + crop + GAP;
    }

    private int tileX(int column) {
        return GAP + column * (crop + GAP);
    }

    private int tileY(int row) {
        return top() + row * rowHeight() + LINE;
    }

    /** Writes each column's class, key and (field >= 0) field value above the first row; returns the class names. */
    private String[] captionRecords(Dataset dataset, Mat sheet, long[] records, int field) {
        List<String> classes = dataset.classes();
        String[] names = new String[records.length];
        RecordView view = new RecordView();
        for (int i = 0; i < records.length; i++) {
            dataset.record(records[i], view);
            int label = view.label();
            names[i] = label >= 0 && label < classes.size() ? classes.get(label) : "(unlabeled)";
            text(sheet, fitted(names[i], false), tileX(i), GAP + LINE - 3);
            text(sheet, fitted(view.key(), true), tileX(i), GAP + 2 * LINE - 3);
            if (field >= 0) {
                text(sheet, fitted(fieldText(dataset, view, field), false), tileX(i), GAP + 3 * LINE - 3);
            }
        }
        return names;
    }

    /** A record's value of {@code field} as text: itself for text and JSON, the numbers comma-separated otherwise. */
    static String fieldText(Dataset dataset, RecordView view, int field) {
        io.pinshard.format.FieldType type = dataset.fields().get(field).type();
        if (!type.isNumeric()) {
            return type == io.pinshard.format.FieldType.BYTES ? view.fieldLength(field) + " bytes" : view.fieldString(field);
        }
        StringBuilder numbers = new StringBuilder();
        for (int k = 0; k < view.fieldElements(field); k++) {
            numbers.append(k == 0 ? "" : ",");
            switch (type) {
                case INT32 -> numbers.append(view.fieldInt(field, k));
                case INT64 -> numbers.append(view.fieldLong(field, k));
                default -> numbers.append(view.fieldFloat(field, k));
            }
        }
        return numbers.toString();
    }

    /** Writes {@code caption} over the whole width above row {@code row}'s tiles. */
    private void caption(Mat sheet, int row, String caption) {
        text(sheet, caption, GAP, tileY(row) - 3);
    }

    private static void text(Mat sheet, String text, int x, int baseline) {
        if (!text.isEmpty()) {
            putText(sheet, text, new Point(x, baseline), FONT_HERSHEY_SIMPLEX, FONT_SCALE, TextColour.WHITE, 1, LINE_AA, false);
        }
    }

    /**
     * {@code text} in printable ASCII (what the Hershey font draws: controls escaped as on the terminal, other
     * characters as {@code ?}), cut to the tile's width: a key keeps its end (the file name), a class name its start.
     */
    private String fitted(String text, boolean keepEnd) {
        StringBuilder ascii = new StringBuilder();
        Printable.escape(text).codePoints().forEach(c -> ascii.append(c >= 0x20 && c < 0x7f ? (char) c : '?'));
        String whole = ascii.toString();
        for (int kept = whole.length(); kept > 0; kept--) {
            String shown = kept == whole.length() ? whole
                : keepEnd ? "..." + whole.substring(whole.length() - kept) : whole.substring(0, kept) + "...";
            if (width(shown) <= crop) {
                return shown;
            }
        }
        return "";
    }

    private static int width(String text) {
        try (Size size = getTextSize(text, FONT_HERSHEY_SIMPLEX, FONT_SCALE, 1, new int[1])) {
            return size.width();
        }
    }

    private void drawStored(Dataset dataset, Mat sheet, long[] records) {
        io.pinshard.reader.RecordDecoder decoder = new io.pinshard.reader.RecordDecoder(crc.mode());
        RecordView view = new RecordView();
        for (int i = 0; i < records.length; i++) {
            dataset.record(records[i], view);
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
                    try (Mat tile = new Mat(sheet, new Rect(tileX(i) + (crop - w) / 2, tileY(0) + (crop - h) / 2, w, h))) {
                        fitted.copyTo(tile);
                    }
                }
            }
        }
    }

    /** Row {@code row}: the crop the loader with {@code options} gives each record in {@code epoch}. */
    private void drawCrops(Dataset dataset, LoaderOptions options, Mat sheet, long[] records, int row, int epoch) {
        try (RecordCropper cropper = new RecordCropper(dataset, options);
             NativeRegion pixels = HostMemoryAllocator.INSTANCE.allocate(cropper.cropBytes(), 64)) {
            for (int i = 0; i < records.length; i++) {
                cropper.crop(records[i], epoch, pixels.address());
                try (Mat image = new Mat(crop, crop, CV_8UC3, new AddressPointer().at(pixels.address(), cropper.cropBytes()));
                     Mat tile = new Mat(sheet, new Rect(tileX(i), tileY(row), crop, crop))) {
                    image.copyTo(tile);
                }
            }
        }
    }
}
