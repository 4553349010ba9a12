package io.pinshard.cli;

import io.pinshard.format.DatasetManifest;
import io.pinshard.format.DatasetWriteLock;
import io.pinshard.format.Printable;
import io.pinshard.parquet.ParquetLister;
import io.pinshard.s3.S3Location;
import io.pinshard.s3.transfer.TransferException;
import io.pinshard.writer.DatasetWriterOptions;
import io.pinshard.writer.convert.AspectPolicy;
import io.pinshard.writer.convert.ConvertException;
import io.pinshard.writer.convert.ConvertOptions;
import io.pinshard.writer.convert.ConvertSummary;
import io.pinshard.writer.convert.Converter;
import io.pinshard.writer.convert.FieldSpec;
import io.pinshard.writer.convert.FieldsFromTable;
import io.pinshard.writer.convert.FolderLister;
import io.pinshard.writer.convert.InputItem;
import io.pinshard.writer.convert.InputListing;
import io.pinshard.writer.convert.ManifestLister;
import io.pinshard.writer.convert.OutputCodec;
import io.pinshard.writer.convert.OutputTakenException;
import io.pinshard.writer.convert.PartSpec;
import io.pinshard.writer.convert.SizeParser;
import io.pinshard.writer.convert.WebDatasetLister;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code pinshard convert INPUT -o DIR}: image folder, CSV/JSONL manifest or WebDataset tars into a
 * pinshard dataset. Exit 0 done (rejections listed), 1 write failure, an output that holds another dataset
 * or rejections under --strict, 2 usage errors, inputs with nothing to convert, every input rejected (the first
 * reasons named), and a rerun over inputs that changed since DIR was written (--overwrite rebuilds).
 */
@Command(name = "convert", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Convert images into a pinshard dataset: every image resized to the same shorter side, RGB uint8,"
        + " stored raw, lz4, jpeg or yuv420. Output is byte-identical whatever --workers is; a killed run resumes when"
        + " the same command is run again.",
        "INPUT is an image folder tree (first-level folders are the classes, sorted by name), a manifest"
        + " (.csv or .jsonl of path,label rows; relative paths from the manifest's folder and never outside it"
        + " unless --allow-outside-paths; absolute paths as written), WebDataset .tar"
        + " shards (one .tar or a folder of them; label from .cls or a .json \"label\") or Parquet files in the"
        + " Hugging Face datasets layout (an image struct {bytes, path}; label from a \"label\" column)."},
    exitCodeListHeading = "%nExit status:%n",
    exitCodeList = {"0:converted (rejected inputs are listed in the manifest)",
        "1:a write failed, DIR holds another dataset, or inputs were rejected under --strict",
        "2:usage error, INPUT holds no images, every input was rejected (the first reasons are printed; DIR holds"
            + " 0 records), another writer holds DIR, or DIR is this conversion's dataset (or unfinished conversion)"
            + " of inputs that changed since: rerun with --overwrite (nothing is written)"})
final class ConvertCommand implements Callable<Integer> {
    enum InputKind { AUTO, FOLDER, MANIFEST, WEBDATASET, PARQUET }

    enum Labels { AUTO, NONE }

    @Parameters(index = "0", paramLabel = "INPUT", description = "Image folder, manifest (.csv/.jsonl) or WebDataset .tar (or folder of .tar).")
    Path input;

    @Option(names = {"-o", "--output"}, required = true, paramLabel = "DIR", description = "Dataset directory to write "
        + "(new or empty, or an interrupted run's to resume), or s3://BUCKET/PREFIX: convert into --staging, then push.")
    String outputArg;

    /** The local directory written: --output, or the staging directory of an s3:// output. */
    Path output;

    @Option(names = "--staging", paramLabel = "DIR", description = "With an s3:// --output: where the dataset is "
        + "written before the push (default: a folder under java.io.tmpdir named after the destination, so that "
        + "rerunning the same command resumes both the conversion and the push).")
    Path staging;

    @Option(names = "--keep-staging", description = "With an s3:// --output: keep the staging directory after a "
        + "successful push (default: delete it).")
    boolean keepStaging;

    @Mixin
    PushOptionsMixin push = new PushOptionsMixin();

    @Mixin
    S3OptionsMixin s3 = new S3OptionsMixin();

    @Option(names = "--input-kind", paramLabel = "KIND", defaultValue = "auto",
        description = "auto, folder, manifest, webdataset or parquet (default: ${DEFAULT-VALUE}; auto: .csv/.jsonl file = manifest, .tar file or folder holding .tar files = webdataset, .parquet file or folder of them = parquet, else folder).")
    InputKind inputKind;

    @Option(names = "--labels", paramLabel = "MODE", defaultValue = "auto",
        description = "auto (folder names, manifest label column, .cls/.json) or none (unlabeled). Default: ${DEFAULT-VALUE}.")
    Labels labels;

    @Option(names = "--fields", paramLabel = "SPEC",
        description = "Store fields beside each image, SOURCE[:NAME[:TYPE]],...: for WebDataset input SOURCE is a member"
            + " extension (txt:caption,json:meta,cls:tags; types by default .txt utf8, .json json, .cls int32[], others"
            + " bytes); with --fields-from a column (default type utf8). TYPE: utf8, bytes, json, int32, int64, float32,"
            + " with [N] for exactly N numbers per record. Default: no fields (format 1.0).")
    String fields;

    @Option(names = "--image-column", paramLabel = "NAME", defaultValue = ParquetLister.DEFAULT_IMAGE_COLUMN,
        description = "Parquet input: the image column, a struct {bytes, path} (the Hugging Face datasets layout) or"
            + " binary (default: ${DEFAULT-VALUE}); labels come from a \"label\" column when there is one.")
    String imageColumn;

    @Option(names = "--fields-from", paramLabel = "FILE",
        description = "A .jsonl or .csv of field values keyed by each image's \"path\" (as the listing keys it:"
            + " relative to the folder, or as the manifest writes it); --fields names its columns (default: every"
            + " column but path and label, as utf8). An image without a row is rejected.")
    Path fieldsFrom;

    @Option(names = "--allow-outside-paths",
        description = "Let a manifest's relative paths lead outside the manifest's folder (with ..); without it such rows are rejected.")
    boolean allowOutsidePaths;

    @Option(names = "--shorter-side", paramLabel = "PX", defaultValue = "" + ConvertOptions.DEFAULT_SHORTER_SIDE,
        description = "Shorter side of every output image (default: ${DEFAULT-VALUE}).")
    int shorterSide;

    @Option(names = "--upscale", description = "Enlarge images smaller than --shorter-side (default: keep them as they are).")
    boolean upscale;

    @Option(names = "--max-aspect", paramLabel = "RATIO", defaultValue = "0",
        description = "Longest allowed longer/shorter side ratio; 0 = no limit (default: ${DEFAULT-VALUE}).")
    double maxAspect;

    @Option(names = "--aspect-policy", paramLabel = "POLICY", defaultValue = "crop",
        description = "Past --max-aspect: crop (keep the centre, longer side cut to shorter x RATIO) or reject (default: ${DEFAULT-VALUE}).")
    String aspectPolicy;

    @Option(names = "--reducing-gap", paramLabel = "GAP", defaultValue = "" + ConvertOptions.DEFAULT_REDUCING_GAP,
        description = "Decode JPEGs at the largest DCT scale (1/8, 1/4, 1/2) leaving the shorter side >= GAP x --shorter-side,"
            + " then area-resize; 1 = fastest, 0 = always full size (default: ${DEFAULT-VALUE}, as Pillow's reducing_gap).")
    double reducingGap;

    @Option(names = "--max-pixels", paramLabel = "N", defaultValue = "" + ConvertOptions.DEFAULT_MAX_PIXELS,
        description = "Reject an image whose header declares more than N pixels (height x width), before decoding it:"
            + " the decompression-bomb guard, 1 to 2^30 (default: ${DEFAULT-VALUE}, Pillow's MAX_IMAGE_PIXELS;"
            + " one such image takes up to 268 MB decoded per worker, 716 MB at 16-bit RGBA).")
    long maxPixels;

    @Option(names = "--codec", paramLabel = "CODEC", defaultValue = "auto",
        description = "raw, lz4, jpeg, yuv420 (planar YUV 4:2:0, half of raw's bytes) or auto (lz4 where it saves at"
            + " least 10 %%, else raw). Default: ${DEFAULT-VALUE}.")
    String codec;

    @Option(names = "--jpeg-quality", paramLabel = "Q", defaultValue = "" + ConvertOptions.DEFAULT_JPEG_QUALITY,
        description = "JPEG quality 1-100 for --codec jpeg (default: ${DEFAULT-VALUE}).")
    int jpegQuality;

    @Option(names = "--shard-size", paramLabel = "SIZE", defaultValue = DatasetWriterOptions.DEFAULT_TARGET_SHARD_MIB + "MiB",
        description = "Target shard size: bytes or a number with KiB, MiB, GiB (or K, M, G; powers of 1024). Default: ${DEFAULT-VALUE}.")
    String shardSize;

    @Option(names = "--workers", paramLabel = "N", description = "Decode/resize threads (default: all cores). The output does not depend on it.")
    Integer workers;

    @Option(names = "--part", paramLabel = "i/N", description = "Convert only slice i (0-based) of N; combine the parts with 'pinshard merge'.")
    String part;

    @Option(names = "--strict", description = "Exit 1 when any input is rejected (the dataset is still written).")
    boolean strict;

    @Option(names = "--progress", paramLabel = "MODE", description = "bar, log or none (default: bar on a terminal, else a log line every 10 s).")
    ConvertProgressReporter.Mode progress;

    @Option(names = "--overwrite", description = "Replace what DIR holds of an earlier conversion (a finished dataset,"
        + " made from other inputs or not, or an unfinished conversion) with a new one: its manifest is removed first,"
        + " so DIR is no dataset until the new one is finished. Without it a rerun over inputs that changed since is"
        + " refused (exit 2). Files convert does not write are never deleted.")
    boolean overwrite;

    @Option(names = "--inputs-digest", paramLabel = "DIGEST", description = "Record DIGEST as what the inputs are,"
        + " instead of their files' paths, sizes, modification times and inodes: for inputs written anew on every run"
        + " (pinshard.write passes the SHA-256 of its samples). A rerun with the same DIGEST finds the dataset complete;"
        + " another is refused unless --overwrite.")
    String inputsDigest;

    @Option(names = "--check-options", description = "Check the options and -o (a file, or a folder of other files, is"
        + " refused), then exit 0 without reading INPUT or writing anything: what pinshard.write (Python) runs beside"
        + " its samples, so that a wrong option fails at once, not once every sample is written.")
    boolean checkOptions;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        ConvertOptions options = ConvertOptions.defaults()
            .withShorterSide(shorterSide).withUpscale(upscale).withReducingGap(reducingGap).withMaxPixels(maxPixels)
            .withMaxAspect(maxAspect, AspectPolicy.parse(aspectPolicy))
            .withCodec(OutputCodec.parse(codec)).withJpegQuality(jpegQuality)
            .withShardBytes(SizeParser.parse(shardSize))
            .withWorkers(workers != null ? workers : Runtime.getRuntime().availableProcessors());
        S3Location remote = S3Location.isRemote(outputArg) ? S3Location.parse(outputArg) : null;
        if (remote == null && (staging != null || keepStaging)) {
            throw new IllegalArgumentException("--staging and --keep-staging need an s3:// --output");
        }
        output = remote == null ? Path.of(outputArg) : staging != null ? staging : StagingDirectory.of(remote);
        PartSpec partSpec = part == null ? null : PartSpec.parse(part);
        checkOutputIsNoFile(remote);
        if (checkOptions) {
            // The options parsed and checked above, and an output no conversion could take; INPUT may not exist yet.
            try {
                Converter.checkOutputCanTakeAConversion(output);
            } catch (OutputTakenException taken) {
                throw failed(taken, remote);
            }
            return 0;
        }
        String stopped = remote == null
            ? Printable.escape(output.toString()) + " keeps its finished shards but has no manifest yet, so it is not a dataset"
            : outputArg + " is not a complete dataset (its manifest goes up last); the converted shards are kept in "
                + Printable.escape(output.toString());
        try (StopNotice stop = StopNotice.arm("convert", stopped)) {
            return convertInto(options, partSpec, remote, out, err);
        }
    }

    private int convertInto(ConvertOptions options, PartSpec partSpec, S3Location remote, PrintWriter out,
                            PrintWriter err) throws IOException {
        if (!Files.exists(input)) {
            throw new IllegalArgumentException("input " + input + " does not exist");
        }
        Path inputFolder = input.toAbsolutePath().normalize();
        if (Files.isDirectory(input) && kind() == InputKind.FOLDER
            && output.toAbsolutePath().normalize().startsWith(inputFolder)) {
            // The output would be listed as a class folder of the input: a rerun of the same command (to resume, or
            // to find it finished) would see other classes, hence another conversion, and refuse its own output.
            throw new IllegalArgumentException("output " + output + " is inside the input folder " + input + ": give "
                + (remote == null ? "-o" : "--staging") + " a directory outside it, e.g. "
                + inputFolder.resolveSibling(inputFolder.getFileName() + "-shards"));
        }
        if (!Files.isDirectory(input) && kind() == InputKind.FOLDER) {
            // A file that is none of the inputs convert reads; a folder lister would only say "not a directory".
            throw new IllegalArgumentException("input " + input + " is a file convert does not read: give an image"
                + " folder (INPUT/CLASS/IMAGE), a .csv or .jsonl manifest of path,label rows, a WebDataset .tar or a"
                + " .parquet file");
        }
        InputListing listing = list();
        if (listing.items().isEmpty()) {
            // Before anything is written: an empty dataset that verifies would only fail later, in the loader.
            throw new IllegalArgumentException(nothingToConvert(listing));
        }
        if (listing.items().stream().allMatch(item -> item.problem() != null)) {
            // Every input refused by the listing itself (a flat folder of images, with labels from class folders):
            // the same empty dataset, so the same refusal, with the first reason, which says what to do.
            InputItem first = listing.items().get(0);
            throw new IllegalArgumentException("input " + input + ": none of its " + listing.items().size()
                + " input(s) can be converted, e.g. " + Printable.escape(first.key()) + ": " + first.problem()
                + "; nothing to convert, no dataset written");
        }
        ConvertProgressReporter.Mode mode = progress != null ? progress : ConvertProgressReporter.defaultMode();
        // Taken once the inputs are known to hold something (a refused input writes nothing), held to the end: an
        // s3:// output's default staging directory is shared by every convert to that destination, and the push
        // and the staging's deletion are writes too.
        try (DatasetWriteLock held = DatasetWriteLock.hold(output, Converter.WRITER)) {
            ConvertSummary summary;
            try (ConvertProgressReporter reporter = new ConvertProgressReporter(mode, System.err, Duration.ofSeconds(10))) {
                summary = new Converter(options, reporter).overwriting(overwrite).identifyingInputsBy(inputsDigest)
                    .run(listing, partSpec, held);
            } catch (ConvertException e) {
                throw failed(e, remote);
            }
            printSummary(out, summary);
            if (partSpec == null && summary.written() == 0 && summary.rejected() > 0) {
                throw new IllegalArgumentException(everyInputRejected(summary, remote));
            }
            if (strict && summary.rejected() > 0) {
                throw new IllegalStateException(summary.rejected() + " input(s) rejected and --strict is set");
            }
            return remote == null ? 0 : pushStaged(remote, mode, out, err);
        }
    }

    /** How many reasons of a conversion whose every input was rejected the failure names (python's WriteError too). */
    static final int REASONS_SHOWN = 3;

    /**
     * The failure of a conversion that wrote no record because every input was rejected (a dataset the loader
     * refuses): the first {@value #REASONS_SHOWN} reasons, each naming its file and record; nothing is pushed.
     */
    private String everyInputRejected(ConvertSummary summary, S3Location remote) {
        StringBuilder reasons = new StringBuilder();
        List<DatasetManifest.Rejected> rejections = summary.rejections();
        for (int i = 0; i < Math.min(REASONS_SHOWN, rejections.size()); i++) {
            DatasetManifest.Rejected rejected = rejections.get(i);
            reasons.append(i == 0 ? "" : "; ").append(rejected.path()).append(": ").append(rejected.reason());
        }
        return "every one of the " + summary.rejected() + " input(s) was rejected, so " + output + " holds no record"
            + (remote == null ? "" : " and nothing was pushed to " + remote) + " (a dataset of 0 records, which the"
            + " loader refuses; its " + DatasetManifest.FILE_NAME + " lists every reason): " + reasons
            + (rejections.size() > REASONS_SHOWN ? "; ..." : "");
    }

    private void checkOutputIsNoFile(S3Location remote) {
        if (Files.exists(output) && !Files.isDirectory(output)) {
            throw new IllegalArgumentException("output " + output + " is a file, not a directory: give "
                + (remote == null ? "-o" : "--staging") + " a new or empty directory (convert writes a folder of shards)");
        }
    }

    /** Pushes the staging directory; deletes it once pushed unless --keep-staging (a failed push keeps it). */
    private int pushStaged(S3Location remote, ConvertProgressReporter.Mode mode, PrintWriter out, PrintWriter err)
        throws IOException {
        try {
            PushCommand.push(output, remote, s3, push.options(), mode, out, err, "convert");
        } catch (TransferException e) {
            throw new TransferException(e.getMessage() + "; the converted dataset stays in " + output
                + "; rerun the same command to resume the push", e);
        }
        if (!keepStaging) {
            StagingDirectory.delete(output);
            out.println("deleted the staging directory " + output);
            out.flush();
        }
        return 0;
    }

    /**
     * A conversion's failure as the command reports it: its message, and what to do when DIR is taken; exit 2 when
     * its inputs changed since DIR was written (a rerun to fix, with --overwrite), else 1.
     */
    private static RuntimeException failed(ConvertException e, S3Location remote) {
        String message = e.getMessage()
            + (e instanceof OutputTakenException taken ? ". " + remedy(taken, remote != null) : "");
        return e instanceof OutputTakenException taken && taken.holds() == OutputTakenException.Holding.CHANGED_INPUTS
            ? new IllegalArgumentException(message, e) : new IllegalStateException(message, e);
    }

    /** What to do about an output directory that is taken, in this command's flags. */
    private static String remedy(OutputTakenException taken, boolean staged) {
        String flag = staged ? "--staging" : "-o";
        String dir = taken.output().toString();
        return switch (taken.holds()) {
            case ANOTHER_DATASET -> "To keep it, give " + flag + " a new directory; to replace it, rerun with --overwrite"
                + " or remove it first: rm -r " + dir;
            case ANOTHER_CONVERSION -> "To finish that conversion, rerun the command that started it; else give " + flag
                + " a new directory, or start over with --overwrite (or rm -r " + dir + ")";
            case OTHER_FILES -> "Give " + flag + " a new or empty directory (convert never deletes files it did not write)";
            case CHANGED_INPUTS -> "To rebuild it from the inputs as they are now, rerun the same command with"
                + " --overwrite; to keep it, give " + flag + " a new directory";
        };
    }

    /** Why {@code listing} (of no inputs) is refused, naming INPUT and what convert looks for in it. */
    private String nothingToConvert(InputListing listing) throws IOException {
        String ignored = listing.ignored() == 0 ? ""
            : " (" + listing.ignored() + " file(s) ignored: hidden, or not an image extension)";
        InputKind kind = kind();
        String found = switch (kind) {
            case MANIFEST -> "lists no rows";
            case WEBDATASET -> "holds no tar samples" + ignored;
            default -> "holds no images" + ignored;
        };
        String expected = kind == InputKind.FOLDER && labels == Labels.AUTO
            ? " (convert expects INPUT/CLASS/IMAGE, one folder per class; --labels none takes images anywhere in it)" : "";
        return "input " + input + " " + found + ": nothing to convert, no dataset written" + expected;
    }

    /** --input-kind, auto resolved from INPUT. */
    private InputKind kind() throws IOException {
        if (inputKind != InputKind.AUTO) {
            return inputKind;
        }
        return ManifestLister.isManifest(input) ? InputKind.MANIFEST
            : WebDatasetLister.isWebDataset(input) ? InputKind.WEBDATASET
            : ParquetLister.isParquet(input) ? InputKind.PARQUET : InputKind.FOLDER;
    }

    private InputListing list() throws IOException {
        boolean labelled = labels == Labels.AUTO;
        InputKind kind = kind();
        if (kind == InputKind.WEBDATASET) {
            if (fieldsFrom != null) {
                throw new IllegalArgumentException("--fields-from is for image folders and manifests; a WebDataset"
                    + " sample's fields are its members (--fields txt:caption,...)");
            }
            return WebDatasetLister.list(input, labelled, fields == null ? List.of() : FieldSpec.forWebDataset(fields));
        }
        if (kind == InputKind.PARQUET) {
            if (fieldsFrom != null) {
                throw new IllegalArgumentException("--fields-from is for image folders and manifests; a Parquet row's"
                    + " fields are its columns (--fields caption,...)");
            }
            // The images are spooled to a temporary file the workers read; it is deleted when the command exits.
            return ParquetLister.list(input, labelled, fields == null ? List.of() : FieldSpec.forTable(fields),
                imageColumn, Path.of(System.getProperty("java.io.tmpdir")));
        }
        InputListing listing = kind == InputKind.MANIFEST ? ManifestLister.list(input, labelled, allowOutsidePaths)
            : FolderLister.list(input, labelled);
        if (fieldsFrom == null) {
            if (fields != null) {
                throw new IllegalArgumentException("--fields on an image folder or manifest needs --fields-from FILE"
                    + " (the values); for WebDataset tars it names member extensions");
            }
            return listing;
        }
        List<FieldSpec> specs = FieldSpec.forTable(fields != null ? fields : String.join(",",
            FieldsFromTable.columns(fieldsFrom)));
        FieldsFromTable table = FieldsFromTable.read(fieldsFrom, specs);
        List<String> unmatched = table.unmatched(listing);
        if (!unmatched.isEmpty()) {
            System.err.println("pinshard convert: " + unmatched.size() + " row(s) of " + fieldsFrom.getFileName()
                + " name no listed image, e.g. " + Printable.escape(unmatched.get(0)));
        }
        return table.apply(listing, specs);
    }

    private void printSummary(PrintWriter out, ConvertSummary s) {
        double seconds = s.wallNanos() / 1e9;
        if (s.alreadyComplete()) {
            out.printf(Locale.ROOT, "already complete: %s is a finished dataset of this conversion (%d records, %d"
                + " rejected, %d shard(s)) and its inputs are unchanged; nothing to do.%n", output, s.written(),
                s.rejected(), s.shards());
            out.flush();
            return;
        }
        out.printf(Locale.ROOT, "images in: %d   written: %d   rejected: %d%s%n", s.inputs(), s.written(), s.rejected(),
            s.ignored() > 0 ? "   (" + s.ignored() + " non-image files ignored)" : "");
        if (s.resumedInputs() > 0 && !s.alreadyComplete()) {
            out.printf(Locale.ROOT, "resumed after %d inputs finished by an earlier run%n", s.resumedInputs());
        }
        double ratio = s.outputBytes() == 0 ? 0 : (double) s.inputBytes() / s.outputBytes();
        out.printf(Locale.ROOT, "bytes in: %s   out: %s in %d shard(s)   ratio: %.2fx%n", Units.bytes(s.inputBytes()),
            Units.bytes(s.outputBytes()), s.shards(), ratio);
        out.println(Units.wallTime(seconds, s.inputs() - s.resumedInputs(), "images"));
        int shown = 0;
        for (DatasetManifest.Rejected rejected : s.rejections()) {
            if (shown++ == 20) {
                out.printf("  ... and %d more (see %s)%n", s.rejections().size() - 20, DatasetManifest.FILE_NAME);
                break;
            }
            out.printf("  rejected %s: %s%n", Printable.escape(rejected.path()), Printable.escape(rejected.reason()));
        }
        out.println("wrote " + output);
        out.flush();
    }
}
