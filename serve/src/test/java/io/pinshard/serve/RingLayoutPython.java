package io.pinshard.serve;

import io.pinshard.format.FieldType;
import io.pinshard.loader.options.SampleOrder;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes {@code python/pinshard/_layout.py}, the Python client's copy of the ring layout, from {@link RingDescriptor}:
 * every public static int or long constant, in declaration order, the magic, and the fields block's types
 * ({@link FieldType}: each label's numpy dtype, None for byte strings) and the sample orders ({@link SampleOrder}'s
 * labels), then the three offset functions, annotated for {@code mypy --strict}. {@code RingLayoutPythonTest} fails
 * when the committed file differs from this text; {@code main PATH} (or the test with
 * {@code -Dpinshard.regenerateLayout=true}) rewrites it.
 */
public final class RingLayoutPython {
    private RingLayoutPython() {
    }

    /** The text of {@code _layout.py}. */
    static String text() throws IllegalAccessException {
        StringBuilder out = new StringBuilder();
        out.append("\"\"\"Byte layout of the shared ring file (docs/RING.md). GENERATED from io.pinshard.serve.RingDescriptor by\n")
            .append("RingLayoutPython (serve's tests): do not edit; RingLayoutPythonTest fails when this file differs from what\n")
            .append("the generator writes, and says how to regenerate it.\n\"\"\"\n\n");
        out.append("MAGIC = b\"").append(new String(RingDescriptor.MAGIC, StandardCharsets.US_ASCII)).append("\"\n");
        for (Field field : RingDescriptor.class.getDeclaredFields()) {
            int modifiers = field.getModifiers();
            if (Modifier.isPublic(modifiers) && Modifier.isStatic(modifiers) && Modifier.isFinal(modifiers)
                && (field.getType() == int.class || field.getType() == long.class)) {
                out.append(field.getName()).append(" = ").append(((Number) field.get(null)).longValue()).append('\n');
            }
        }
        // The fields block's types (FieldType, format-spec): each label's numpy dtype, None for byte strings.
        out.append("FIELD_DTYPES = {");
        String separator = "";
        for (FieldType type : FieldType.values()) {
            String dtype = !type.isNumeric() ? "None"
                : "\"<" + (type.label().startsWith("float") ? "f" : "i") + type.elementBytes() + "\"";
            out.append(separator).append('"').append(type.label()).append("\": ").append(dtype);
            separator = ", ";
        }
        out.append("}\n");
        // The orders serve's --order takes (SampleOrder's labels; its parse also takes the constant names).
        out.append("SAMPLE_ORDERS = (");
        for (SampleOrder order : SampleOrder.values()) {
            out.append('"').append(order.label()).append("\", ");
        }
        out.setLength(out.length() - 2);
        out.append(")\n");
        out.append("\n\ndef slot_header_offset(slot: int) -> int:\n")
            .append("    return SLOT_HEADERS_OFFSET + slot * SLOT_HEADER_LENGTH\n\n\n")
            .append("def fields_block_offset(slots: int) -> int:\n    return slot_header_offset(slots)\n\n\n")
            .append("def slots_offset(slots: int) -> int:\n")
            .append("    end = fields_block_offset(slots) + FIELDS_BLOCK_LENGTH\n")
            .append("    return (end + PAGE - 1) // PAGE * PAGE\n");
        return out.toString();
    }

    public static void main(String[] args) throws IOException, IllegalAccessException {
        Files.writeString(Path.of(args[0]), text(), StandardCharsets.UTF_8);
    }
}
