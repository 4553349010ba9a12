package io.pinshard.reader;

import io.pinshard.format.DatasetManifest;
import io.pinshard.format.IndexEntryDescriptor;
import io.pinshard.format.IndexEntryFlyweight;
import io.pinshard.format.ShardFormatException;
import io.pinshard.format.ShardFormatException.Kind;
import java.util.Map;

/**
 * What a dataset's records may be: labels in its class list, and the shapes its own preprocessing allows, from
 * its manifest's {@code metadata.preprocessing}
 * (written by {@code convert}): no stored shorter side above {@code shorterSide}, and with {@code maxAspect}
 * set no longer side above {@code floor(shorter * maxAspect) + 1} (one pixel for rounding). Checked for every
 * index entry when a shard opens, so an entry re-sealed with a huge shape is refused there (by the loader and by
 * {@code verify} alike) instead of sizing every worker's scratch. Datasets without that metadata get the
 * format's own limits only.
 */
public final class RecordLimits {
    /** No limits beyond the format's. */
    public static final RecordLimits NONE = new RecordLimits(0, 0, 0);

    private final long shorterSide;
    private final double maxAspect;
    private final int classCount;

    /**
     * @param shorterSide largest shorter side, 0 for none
     * @param maxAspect   largest longer/shorter ratio, 0 for none
     * @param classCount  classes a label must name ({@link IndexEntryDescriptor#checkLabel}), 0 for no class list
     */
    public RecordLimits(long shorterSide, double maxAspect, int classCount) {
        this.shorterSide = shorterSide;
        this.maxAspect = maxAspect;
        this.classCount = classCount;
    }

    /** The limits {@code manifest}'s class list and preprocessing metadata set; {@link #NONE} when they set none. */
    public static RecordLimits of(DatasetManifest manifest) {
        int classes = manifest.classes() == null ? 0 : manifest.classes().size();
        Object preprocessing = manifest.metadata() == null ? null : manifest.metadata().get("preprocessing");
        long shorter = 0;
        double aspect = 0;
        if (preprocessing instanceof Map<?, ?> map) {
            shorter = map.get("shorterSide") instanceof Number n && n.longValue() > 0 ? n.longValue() : 0;
            aspect = map.get("maxAspect") instanceof Number n && n.doubleValue() >= 1 ? n.doubleValue() : 0;
        }
        return shorter == 0 && aspect == 0 && classes == 0 ? NONE : new RecordLimits(shorter, aspect, classes);
    }

    /** The same shape limits without the class list (verify checks labels itself, to report every bad one). */
    public RecordLimits withoutLabels() {
        return classCount == 0 ? this : shorterSide == 0 && maxAspect == 0 ? NONE
            : new RecordLimits(shorterSide, maxAspect, 0);
    }

    /** Checks an index entry's label and shape; see {@link #check(long, long)}. */
    public void check(IndexEntryFlyweight entry) {
        if (this == NONE) {
            return;
        }
        IndexEntryDescriptor.checkLabel(entry.label(), classCount);
        check(entry.height(), entry.width());
    }

    /** Throws a {@link ShardFormatException} (kind BAD_INDEX_ENTRY, no names: the caller adds them) past the limits. */
    public void check(long height, long width) {
        if (shorterSide == 0 && maxAspect == 0) {
            return;
        }
        long shorter = Math.min(height, width);
        long longer = Math.max(height, width);
        if (shorterSide > 0 && shorter > shorterSide) {
            throw new ShardFormatException(Kind.BAD_INDEX_ENTRY, "image " + height + "x" + width + " has shorter side "
                + shorter + ", the dataset's preprocessing stores at most " + shorterSide);
        }
        if (maxAspect > 0 && longer > Math.floor(shorter * maxAspect) + 1) {
            throw new ShardFormatException(Kind.BAD_INDEX_ENTRY, "image " + height + "x" + width + " exceeds the "
                + "dataset's maximum aspect ratio " + maxAspect);
        }
    }

    @Override
    public String toString() {
        return this == NONE ? "RecordLimits[none]" : "RecordLimits[shorterSide " + shorterSide + ", maxAspect " + maxAspect + ", classes " + classCount + "]";
    }
}
