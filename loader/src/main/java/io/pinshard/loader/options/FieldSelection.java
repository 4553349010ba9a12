package io.pinshard.loader.options;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.agrona.BitUtil;

/**
 * Which record fields (docs/fields.md) a batch carries beside its pixels, and how much room each gets.
 *
 * <p>Every selected field has, per sample, a value area of {@link #bytesPerSample} bytes in the batch slot and its
 * length: a value longer than that fails the epoch with an error naming the record and the field (never truncated).
 * {@link #boxes} names a float32 field of boxes ({@code x0, y0, x1, y1} per box, stored-image pixels) that the loader
 * moves through each sample's crop and flip; boxes the crop cuts away are dropped by the rule of
 * {@link io.pinshard.loader.augment.BoxTransform}, with {@link #boxMinVisible}.
 *
 * @param names          fields to carry, in the order the batch numbers them
 * @param bytesPerSample value bytes per sample and field (rounded up to 8 in the slot)
 * @param boxes          the field of boxes to transform with the crop, or null
 * @param boxMinVisible  the share of a box's area that must stay inside the crop for it to be kept, 0 to 1
 */
public record FieldSelection(List<String> names, int bytesPerSample, String boxes, double boxMinVisible) {
    /** No fields: a batch of pixels, labels and record numbers, as before fields existed. */
    public static final FieldSelection NONE = new FieldSelection(List.of(), 1024, null, 0);
    /** The most bytes a sample's value may take in a slot. */
    public static final int MAX_BYTES_PER_SAMPLE = 1 << 20;

    public FieldSelection {
        names = List.copyOf(names);
        Set<String> seen = new HashSet<>();
        for (String name : names) {
            if (!seen.add(name)) {
                throw new IllegalArgumentException("field " + name + " is selected twice");
            }
        }
        if (bytesPerSample < 1 || bytesPerSample > MAX_BYTES_PER_SAMPLE) {
            throw new IllegalArgumentException("field bytes per sample must be 1.." + MAX_BYTES_PER_SAMPLE + ": "
                + bytesPerSample);
        }
        if (boxes != null && !names.contains(boxes)) {
            throw new IllegalArgumentException("the boxes field " + boxes + " is not among the selected fields "
                + names);
        }
        if (!(boxMinVisible >= 0 && boxMinVisible <= 1)) {
            throw new IllegalArgumentException("box min visible must be 0..1: " + boxMinVisible);
        }
    }

    public int count() {
        return names.size();
    }

    /** Bytes between two samples' values of one field in a slot: {@link #bytesPerSample} rounded up to 8. */
    public int stride() {
        return names.isEmpty() ? 0 : BitUtil.align(bytesPerSample, Long.BYTES);
    }

    /** The batch's number of field {@code name}, or -1. */
    public int indexOf(String name) {
        return names.indexOf(name);
    }

    /** The batch's number of the boxes field, or -1. */
    public int boxesIndex() {
        return boxes == null ? -1 : names.indexOf(boxes);
    }
}
