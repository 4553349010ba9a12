package io.pinshard.loader.options;

import static io.pinshard.loader.options.OptionChecks.require;

import io.pinshard.memory.BatchMemoryAllocator;
import io.pinshard.memory.HostMemoryAllocator;
import io.pinshard.reader.CrcCheck;
import java.util.Objects;

/**
 * The loader's knobs, named like PyTorch's DataLoader where one exists, in four groups by the stage that reads them,
 * so each stage is handed only its own: {@link SamplingOptions} (which records, in which order, on which rank),
 * {@link AugmentOptions} (what a record becomes in its slot), {@link RingOptions} (threads, slots and their memory)
 * and {@link PolicyOptions} (CRC checks, corrupt records, data-wait warnings). Immutable; build with
 * {@link #builder()}, whose setters name the fields themselves. Each group checks its own fields; this record checks
 * the rules that span groups: a batch's pixels and fields must fit their slot.
 */
public record LoaderOptions(SamplingOptions sampling, AugmentOptions augment, RingOptions ring,
                            PolicyOptions policy) {

    public LoaderOptions {
        Objects.requireNonNull(sampling, "sampling");
        Objects.requireNonNull(augment, "augment");
        Objects.requireNonNull(ring, "ring");
        Objects.requireNonNull(policy, "policy");
        int batchSize = sampling.batchSize();
        int crop = augment.crop();
        FieldSelection fields = augment.fields();
        require(batchSize * augment.imageBytes() <= Integer.MAX_VALUE - 4096,
            "a batch of " + batchSize + " x " + crop + " x " + crop + " x 3 "
                + PixelFormat.name(augment.pixels().dtype()) + " does not fit in 2 GiB");
        require((long) batchSize * fields.stride() * fields.count() <= 1L << 30,
            "fields of " + fields.count() + " x " + batchSize + " x " + fields.stride() + " bytes exceed 1 GiB per batch");
    }

    /** These options with {@code value} as their sampling group (the others as they are). */
    public LoaderOptions withSampling(SamplingOptions value) {
        return new LoaderOptions(value, augment, ring, policy);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from these options. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.batchSize = sampling.batchSize(); b.order = sampling.order(); b.seed = sampling.seed();
        b.dropLast = sampling.dropLast(); b.rank = sampling.rank(); b.worldSize = sampling.worldSize();
        b.quasiRandomWindow = sampling.quasiRandomWindow(); b.quasiRandomInterleave = sampling.quasiRandomInterleave();
        b.crop = augment.crop(); b.mode = augment.mode(); b.scaleMin = augment.scaleMin();
        b.scaleMax = augment.scaleMax(); b.ratioMin = augment.ratioMin(); b.ratioMax = augment.ratioMax();
        b.flipProbability = augment.flipProbability(); b.evalCropFraction = augment.evalCropFraction();
        b.reducedJpegDecode = augment.reducedJpegDecode(); b.resampler = augment.resampler();
        b.pixels = augment.pixels();
        FieldSelection fields = augment.fields();
        b.fieldNames = fields.names(); b.fieldBytes = fields.bytesPerSample(); b.boxes = fields.boxes();
        b.boxMinVisible = fields.boxMinVisible();
        b.workers = ring.workers(); b.prefetch = ring.prefetch(); b.allocator = ring.allocator();
        b.scratchAllocator = ring.scratchAllocator();
        b.crcCheck = policy.crcCheck(); b.errorPolicy = policy.errorPolicy();
        b.dataWaitWarnFraction = policy.dataWaitWarnFraction(); b.dataWaitWindow = policy.dataWaitWindow();
        return b;
    }

    /** Mutable builder holding the loader's defaults (its fields); {@link #build} sorts the values into the groups. */
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
        private int quasiRandomInterleave = SamplingOptions.AUTO_INTERLEAVE;
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
        /**
         * Quasi-random windows shuffled together (1 = one window at a time); {@link SamplingOptions#AUTO_INTERLEAVE}
         * by default.
         */
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
            return new LoaderOptions(
                new SamplingOptions(batchSize, order, seed, dropLast, rank, worldSize, quasiRandomWindow,
                    quasiRandomInterleave),
                new AugmentOptions(crop, mode, scaleMin, scaleMax, ratioMin, ratioMax, flipProbability,
                    evalCropFraction, reducedJpegDecode, resampler, pixels,
                    new FieldSelection(fieldNames, fieldBytes, boxes, boxMinVisible)),
                new RingOptions(workers, slots, allocator, scratchAllocator),
                new PolicyOptions(crcCheck, errorPolicy, dataWaitWarnFraction, dataWaitWindow));
        }
    }
}
