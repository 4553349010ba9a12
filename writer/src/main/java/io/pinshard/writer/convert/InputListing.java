package io.pinshard.writer.convert;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import io.pinshard.format.FieldSchema;

/**
 * The complete, ordered list of inputs of a conversion and the class names their labels index.
 * The order is deterministic (sorted paths, manifest order, tar order), so records, shards and
 * {@code --part} slices are the same on every run and every machine.
 *
 * @param ignored files skipped because their extension is not an image extension (counted, not converted)
 * @param fields  the records' field schema (each item's {@link InputItem#fields()} follow it); empty without
 */
public record InputListing(String source, List<String> classes, List<InputItem> items, long ignored,
                           List<FieldSchema> fields) {
    public InputListing {
        classes = List.copyOf(classes);
        items = List.copyOf(items);
        fields = List.copyOf(fields);
    }

    /** A listing without fields. */
    public InputListing(String source, List<String> classes, List<InputItem> items, long ignored) {
        this(source, classes, items, ignored, List.of());
    }

    /** This listing with fields: {@code items} carry their sources for {@code schema}. */
    public InputListing withFields(List<FieldSchema> schema, List<InputItem> withSources) {
        return new InputListing(source, classes, withSources, ignored, schema);
    }

    /** The inputs of part {@code index} of {@code count}: a contiguous slice, so merged parts keep the global order. */
    public List<InputItem> part(int index, int count) {
        int size = items.size();
        int from = (int) ((long) size * index / count);
        int to = (int) ((long) size * (index + 1) / count);
        return items.subList(from, to);
    }

    /** SHA-256 over keys, labels, listing rejections and classes: identifies the input set for resume and merge checks. */
    public String fingerprint() {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            for (String name : classes) {
                digest.update(name.getBytes(StandardCharsets.UTF_8));
                digest.update((byte) 0);
            }
            digest.update((byte) 1);
            for (InputItem item : items) {
                digest.update(item.key().getBytes(StandardCharsets.UTF_8));
                digest.update((byte) 0);
                digest.update(Integer.toString(item.label()).getBytes(StandardCharsets.US_ASCII));
                // Whether listing rejected it: options such as --allow-outside-paths change that, not the key.
                digest.update((byte) (item.problem() == null ? 0 : 1));
                for (FieldSource field : item.fields()) { // none without fields: the 1.0 fingerprint is unchanged
                    digest.update(field == null ? "-".getBytes(StandardCharsets.US_ASCII)
                        : (field.what() + "@" + field.offset() + "+" + field.length()).getBytes(StandardCharsets.UTF_8));
                    if (field != null && field.inline() != null) {
                        digest.update(field.inline());
                    }
                    digest.update((byte) 0);
                }
            }
            for (FieldSchema field : fields) {
                digest.update((byte) 2);
                digest.update(field.describe().getBytes(StandardCharsets.UTF_8));
            }
            return HexFormat.of().formatHex(digest.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
