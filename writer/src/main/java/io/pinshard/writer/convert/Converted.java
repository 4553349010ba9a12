package io.pinshard.writer.convert;

import io.pinshard.format.FieldSchema;
import io.pinshard.writer.FieldValues;
import java.util.List;

/**
 * One input as a worker converted it: the image ({@link ConvertedImage}) and its field values in stored form,
 * read and checked in the same task; a field that cannot be stored rejects the input with the field's reason.
 */
record Converted(ConvertedImage image, byte[][] fields) {

    static Converted of(ImageProcessor processor, InputItem item, List<FieldSchema> schema) {
        ConvertedImage image = processor.convert(item);
        if (image.isRejected() || schema.isEmpty()) {
            return new Converted(image, null);
        }
        try {
            return new Converted(image, FieldDecoder.decode(item, schema));
        } catch (IllegalArgumentException e) {
            return new Converted(ConvertedImage.rejected(e.getMessage(), image.inputBytes()), null);
        }
    }

    /** {@code values} holding this input's fields (null without fields). */
    FieldValues fill(FieldValues values) {
        if (values == null) {
            return null;
        }
        values.clear();
        for (int f = 0; f < fields.length; f++) {
            values.encoded(f, fields[f], 0, fields[f].length);
        }
        return values;
    }
}
