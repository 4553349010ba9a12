package io.pinshard.loader.options;

import io.pinshard.memory.BatchMemoryAllocator;
import io.pinshard.memory.HostMemoryAllocator;
import io.pinshard.reader.CrcCheck;
import java.util.Objects;

/**
 * The loader's knobs, named like PyTorch's DataLoader where one exists. Immutable; build with
 * {@link #builder()}.
 *
 * @param batchSize          images per batch
 * @param crop               output side in pixels: images are {@code crop x crop x 3}
 * @param workers            worker threads (default: available processors)
 * @param order              visiting order ({@code shuffle=True} is {@link SampleOrder#RANDOM})
 * @param seed               base of every random decision (order and augmentation)
 * @param dropLast           drop the incomplete last batch (and, with world > 1, the records that do not
 *                           divide evenly among ranks) instead of padding
 * @param prefetch           batch slots in the ring: how many batches workers may fill ahead, and the upper
 *                           bound of batches a consumer may hold at once
 * @param rank               this process's rank
 * @param worldSize          number of ranks
 * @param mode               train (random-resized-crop + flip) or eval (resize + centre crop)
 * @param crcCheck           which payloads get their CRC32C checked before decoding ({@link CrcCheck#AUTO}:
 *                           jpeg and lz4, where it costs little; see docs/loader.md)
 * @param errorPolicy        fail or skip corrupt records
 * @param allocator          where batch memory comes from (page-locked memory through the cuda-bridge)
 * @param scratchAllocator   where worker scratch and control memory come from
 * @param scaleMin           random-resized-crop area fraction, lower bound (torchvision 0.08)
 * @param scaleMax           upper bound (1.0)
 * @param ratioMin           aspect ratio lower bound (3/4), sampled log-uniformly
 * @param ratioMax           upper bound (4/3)
 * @param flipProbability    probability of a horizontal flip in train mode (0.5)
 * @param evalCropFraction   eval: crop / resized shorter side (0.875, i.e. Resize(256) + CenterCrop(224))
 * @param quasiRandomWindow  records per shard-local window for {@link SampleOrder#QUASI_RANDOM}
 * @param quasiRandomInterleave quasi-random: windows (of different shards, as the window order falls) whose records
 *                           are shuffled together, 1 .. {@value #MAX_INTERLEAVE}; {@value #AUTO_INTERLEAVE} (the
 *                           default) lets {@code Loader.open} choose from the dataset (docs/loader.md, "Order")
 * @param reducedJpegDecode  decode JPEG at 1/2, 1/4 or 1/8 scale when the crop box still covers the output
 * @param dataWaitWarnFraction warn when data-wait exceeds this fraction of step time over a window (0.10)
 * @param dataWaitWindow     steps per data-wait window
 * @param resampler          who does the bilinear crop of 3-channel images ({@link Resampler#AUTO})
 * @param fields             record fields each batch carries beside the pixels ({@link FieldSelection#NONE})
 * @param pixels             what a slot's pixels are: element type, layout, normalisation
 *                           ({@link PixelFormat#UINT8_NHWC}, the crop itself)
 */
public record LoaderOptions(int batchSize, int crop, int workers, SampleOrder order, long seed, boolean dropLast,
                            int prefetch, int rank, int worldSize, LoaderMode mode, CrcCheck crcCheck,
                            ErrorPolicy errorPolicy, BatchMemoryAllocator allocator,
                            BatchMemoryAllocator scratchAllocator, double scaleMin, double scaleMax, double ratioMin,
                            double ratioMax, double flipProbability, double evalCropFraction, int quasiRandomWindow,
                            int quasiRandomInterleave, boolean reducedJpegDecode, double dataWaitWarnFraction,
                            int dataWaitWindow, Resampler resampler, FieldSelection fields,
                            PixelFormat pixels) {

    public LoaderOptions {
        Objects.requireNonNull(order, "order");
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(crcCheck, "crcCheck");
        Objects.requireNonNull(errorPolicy, "errorPolicy");
        Objects.requireNonNull(allocator, "allocator");
        Objects.requireNonNull(scratchAllocator, "scratchAllocator");
        Objects.requireNonNull(resampler, "resampler");
        Objects.requireNonNull(fields, "fields");
        Objects.requireNonNull(pixels, "pixels");
        require(batchSize >= 1 && batchSize <= 1 << 16, "batch size must be 1..65536: " + batchSize);
        require(crop >= 1 && crop <= 8192, "crop must be 1..8192 pixels: " + crop);
        require(batchSize * pixels.imageBytes(crop) <= Integer.MAX_VALUE - 4096,
            "a batch of " + batchSize + " x " + crop + " x " + crop + " x 3 " + PixelFormat.name(pixels.dtype())
                + " does not fit in 2 GiB");
        require(workers >= 1 && workers <= 1024, "workers must be 1..1024: " + workers);
        require(prefetch >= 1 && prefetch <= 1024, "prefetch must be 1..1024: " + prefetch);
        require(worldSize >= 1, "world size must be at least 1: " + worldSize);
        require(rank >= 0 && rank < worldSize, "rank must be 0.." + (worldSize - 1) + ": " + rank);
        require(scaleMin > 0 && scaleMin <= scaleMax && scaleMax <= 1, "scale must satisfy 0 < min <= max <= 1");
        require(ratioMin > 0 && ratioMin <= ratioMax, "ratio must satisfy 0 < min <= max");
        require(flipProbability >= 0 && flipProbability <= 1, "flip probability must be 0..1");
        require(evalCropFraction > 0 && evalCropFraction <= 1, "eval crop fraction must be in (0, 1]");
        require(quasiRandomWindow >= 1, "quasi-random window must be at least 1 record");
        require(quasiRandomInterleave >= AUTO_INTERLEAVE && quasiRandomInterleave <= MAX_INTERLEAVE,
            "quasi-random interleave must be 1.." + MAX_INTERLEAVE + " windows, or " + AUTO_INTERLEAVE + " for auto: "
                + quasiRandomInterleave);
        require(dataWaitWarnFraction > 0, "data-wait warning fraction must be positive");
        require(dataWaitWindow >= 1, "data-wait window must be at least 1 step");
        require((long) batchSize * fields.stride() * fields.count() <= 1L << 30,
            "fields of " + fields.count() + " x " + batchSize + " x " + fields.stride() + " bytes exceed 1 GiB per batch");
    }

    /** Bytes of one image in a slot: {@code crop x crop x 3} values of {@link #pixels()}'s element type. */
    public long imageBytes() {
        return pixels.imageBytes(crop);
    }

    /** {@link #quasiRandomInterleave()}: chosen by {@code Loader.open} from the dataset's records and bytes. */
    public static final int AUTO_INTERLEAVE = 0;
    /** The most quasi-random windows shuffled together. */
    public static final int MAX_INTERLEAVE = 64;

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException(message);
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from these options. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.batchSize = batchSize; b.crop = crop; b.workers = workers; b.order = order; b.seed = seed;
        b.dropLast = dropLast; b.prefetch = prefetch; b.rank = rank; b.worldSize = worldSize; b.mode = mode;
        b.crcCheck = crcCheck; b.errorPolicy = errorPolicy; b.allocator = allocator;
        b.scratchAllocator = scratchAllocator; b.scaleMin = scaleMin; b.scaleMax = scaleMax; b.ratioMin = ratioMin;
        b.ratioMax = ratioMax; b.flipProbability = flipProbability; b.evalCropFraction = evalCropFraction;
        b.quasiRandomWindow = quasiRandomWindow; b.quasiRandomInterleave = quasiRandomInterleave;
        b.reducedJpegDecode = reducedJpegDecode;
        b.dataWaitWarnFraction = dataWaitWarnFraction; b.dataWaitWindow = dataWaitWindow;
        b.resampler = resampler;
        b.fieldNames = fields.names(); b.fieldBytes = fields.bytesPerSample(); b.boxes = fields.boxes();
        b.boxMinVisible = fields.boxMinVisible();
        b.pixels = pixels;
        return b;
    }

    /** Mutable builder with the defaults documented on {@link LoaderOptions}. */
    public static final class Builder {
        private int batchSize = 256;
        private int crop = 224;
        private int workers = Runtime.getRuntime().availableProcessors();
        private SampleOrder order = SampleOrder.RANDOM;
        private long seed;
        private boolean dropLast;
        private int prefetch = -1;
        private int rank;
        private int worldSize = 1;
        private LoaderMode mode = LoaderMode.TRAIN;
        private CrcCheck crcCheck = CrcCheck.AUTO;
        private ErrorPolicy errorPolicy = ErrorPolicy.FAIL;
        private BatchMemoryAllocator allocator = HostMemoryAllocator.INSTANCE;
        private BatchMemoryAllocator scratchAllocator = HostMemoryAllocator.INSTANCE;
        private double scaleMin = 0.08;
        private double scaleMax = 1.0;
        private double ratioMin = 3.0 / 4.0;
        private double ratioMax = 4.0 / 3.0;
        private double flipProbability = 0.5;
        private double evalCropFraction = 0.875;
        private int quasiRandomWindow = 1024;
        private int quasiRandomInterleave = AUTO_INTERLEAVE;
        private boolean reducedJpegDecode = true;
        private double dataWaitWarnFraction = 0.10;
        private int dataWaitWindow = 50;
        private Resampler resampler = Resampler.AUTO;
        private java.util.List<String> fieldNames = FieldSelection.NONE.names();
        private int fieldBytes = FieldSelection.NONE.bytesPerSample();
        private String boxes;
        private double boxMinVisible;
        private PixelFormat pixels = PixelFormat.UINT8_NHWC;

        private Builder() {
        }

        public Builder batchSize(int value) { batchSize = value; return this; }
        public Builder crop(int value) { crop = value; return this; }
        public Builder workers(int value) { workers = value; return this; }
        public Builder order(SampleOrder value) { order = value; return this; }
        /** {@code shuffle(true)} is {@link SampleOrder#RANDOM}, {@code false} is {@link SampleOrder#SEQUENTIAL}. */
        public Builder shuffle(boolean value) { order = value ? SampleOrder.RANDOM : SampleOrder.SEQUENTIAL; return this; }
        public Builder seed(long value) { seed = value; return this; }
        public Builder dropLast(boolean value) { dropLast = value; return this; }
        /** Ring slots; default {@code max(2, 2 x workers)}. */
        public Builder prefetch(int value) { prefetch = value; return this; }
        public Builder rank(int value) { rank = value; return this; }
        public Builder worldSize(int value) { worldSize = value; return this; }
        public Builder distributed(int rankValue, int worldSizeValue) { rank = rankValue; worldSize = worldSizeValue; return this; }
        public Builder mode(LoaderMode value) { mode = value; return this; }
        public Builder train() { mode = LoaderMode.TRAIN; return this; }
        public Builder eval() { mode = LoaderMode.EVAL; return this; }
        public Builder crcCheck(CrcCheck value) { crcCheck = value; return this; }
        /** {@code true} is {@link CrcCheck#ALWAYS}, {@code false} {@link CrcCheck#NEVER}. */
        public Builder checkCrc(boolean value) { crcCheck = value ? CrcCheck.ALWAYS : CrcCheck.NEVER; return this; }
        public Builder errorPolicy(ErrorPolicy value) { errorPolicy = value; return this; }
        public Builder allocator(BatchMemoryAllocator value) { allocator = value; return this; }
        public Builder scratchAllocator(BatchMemoryAllocator value) { scratchAllocator = value; return this; }
        public Builder scale(double min, double max) { scaleMin = min; scaleMax = max; return this; }
        public Builder ratio(double min, double max) { ratioMin = min; ratioMax = max; return this; }
        public Builder flipProbability(double value) { flipProbability = value; return this; }
        public Builder evalCropFraction(double value) { evalCropFraction = value; return this; }
        public Builder quasiRandomWindow(int value) { quasiRandomWindow = value; return this; }
        /** Quasi-random windows shuffled together (1 = one window at a time); {@link #AUTO_INTERLEAVE} by default. */
        public Builder quasiRandomInterleave(int value) { quasiRandomInterleave = value; return this; }
        public Builder reducedJpegDecode(boolean value) { reducedJpegDecode = value; return this; }
        public Builder dataWaitWarning(double fraction, int windowSteps) {
            dataWaitWarnFraction = fraction;
            dataWaitWindow = windowSteps;
            return this;
        }

        /** {@link Resampler#VECTOR} makes {@link io.pinshard.loader.Loader#open} fail, with the reason, where it cannot run. */
        public Builder resampler(Resampler value) { resampler = value; return this; }

        /** Record fields every batch carries, by name (docs/fields.md); none by default. */
        public Builder fields(String... names) { fieldNames = java.util.List.of(names); return this; }

        /** Room per sample and field in a slot (1024 bytes by default); a longer value fails the epoch, naming it. */
        public Builder fieldBytes(int value) { fieldBytes = value; return this; }

        /**
         * Moves the boxes of float32 field {@code field} (selected with {@link #fields}) through each sample's crop
         * and flip, keeping a box when at least {@code minVisible} of its area stays in the crop.
         */
        public Builder boxes(String field, double minVisible) { boxes = field; boxMinVisible = minVisible; return this; }

        /**
         * What the crop kernel writes into the slots (uint8 NHWC, the crop itself, by default): a float type makes
         * the slots hold training-ready, normalised values, so the trainer converts nothing.
         */
        public Builder pixels(PixelFormat value) { pixels = value; return this; }

        public LoaderOptions build() {
            int slots = prefetch > 0 ? prefetch : Math.max(2, 2 * workers);
            return new LoaderOptions(batchSize, crop, workers, order, seed, dropLast, slots, rank, worldSize, mode,
                crcCheck, errorPolicy, allocator, scratchAllocator, scaleMin, scaleMax, ratioMin, ratioMax,
                flipProbability, evalCropFraction, quasiRandomWindow, quasiRandomInterleave, reducedJpegDecode,
                dataWaitWarnFraction,
                dataWaitWindow, resampler, new FieldSelection(fieldNames, fieldBytes, boxes, boxMinVisible), pixels);
        }
    }
}
