package io.pinshard.writer.convert;

import com.fasterxml.jackson.databind.JsonNode;
import io.pinshard.format.FieldSchema;
import io.pinshard.format.FieldType;
import io.pinshard.format.Json;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns a field's source bytes into its stored form (SPEC.md section 17.1), or says why it cannot: utf8 must be
 * UTF-8 (a JSON string value gives its text), json one JSON value, bytes anything, and numbers either a JSON
 * number or array of numbers, or text of numbers separated by spaces or commas (a WebDataset {@code .cls} holds
 * {@code "3"}); a fixed field must get exactly its element count. A missing source stores an empty value, which
 * a fixed field refuses. Run by the conversion's workers, in parallel.
 */
final class FieldDecoder {
    private FieldDecoder() {
    }

    /**
     * The stored values of {@code item}'s fields, one per field of {@code schema} (empty without fields).
     *
     * @throws IllegalArgumentException naming the field and its source when a value is unusable
     */
    static byte[][] decode(InputItem item, List<FieldSchema> schema) {
        byte[][] values = new byte[schema.size()][];
        for (int f = 0; f < schema.size(); f++) {
            FieldSchema field = schema.get(f);
            FieldSource source = item.fields().isEmpty() ? null : item.fields().get(f);
            if (source == null) {
                if (field.isFixed()) {
                    throw new IllegalArgumentException("field " + field.name() + " has a fixed length ("
                        + field.describe() + ") and the sample has no value for it");
                }
                values[f] = new byte[0];
                continue;
            }
            try {
                values[f] = encode(field, source.read(), source.json());
            } catch (IOException | RuntimeException e) {
                throw new IllegalArgumentException("field " + field.name() + " (" + source.what() + "): "
                    + e.getMessage(), e);
            }
        }
        return values;
    }

    static byte[] encode(FieldSchema field, byte[] bytes, boolean json) throws IOException {
        return switch (field.type()) {
            case BYTES -> json ? textOf(bytes).getBytes(StandardCharsets.UTF_8) : bytes;
            case UTF8 -> json ? textOf(bytes).getBytes(StandardCharsets.UTF_8) : checkUtf8(bytes);
            case JSON -> {
                checkUtf8(bytes);
                Json.ONE_VALUE.readTree(bytes);
                yield bytes;
            }
            default -> numbers(field, json ? Json.ONE_VALUE.readTree(bytes) : textNumbers(checkUtf8(bytes)));
        };
    }

    /** A JSON string's text, or any other JSON value's own text. */
    private static String textOf(byte[] json) throws IOException {
        JsonNode node = Json.ONE_VALUE.readTree(json);
        return node.isTextual() ? node.asText() : node.toString();
    }

    private static byte[] checkUtf8(byte[] bytes) throws CharacterCodingException {
        StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes));
        return bytes;
    }

    /** Text of numbers ("3", "1 2 3", "0.5,0.25") or a JSON array in text, as a JSON node. */
    private static JsonNode textNumbers(byte[] utf8) throws IOException {
        String text = new String(utf8, StandardCharsets.UTF_8).trim();
        if (text.startsWith("[")) {
            return Json.ONE_VALUE.readTree(text);
        }
        StringBuilder array = new StringBuilder("[");
        for (String token : text.isEmpty() ? new String[0] : text.split("[\\s,]+")) {
            array.append(array.length() > 1 ? "," : "").append(token);
        }
        try {
            return Json.ONE_VALUE.readTree(array.append(']').toString());
        } catch (IOException e) {
            throw new IOException("'" + abbreviate(text) + "' is not a list of numbers");
        }
    }

    private static byte[] numbers(FieldSchema field, JsonNode node) throws IOException {
        List<JsonNode> elements = new ArrayList<>();
        if (node.isArray()) {
            node.forEach(elements::add);
        } else {
            elements.add(node);
        }
        if (field.isFixed() && elements.size() != field.length()) {
            throw new IOException("holds " + elements.size() + " numbers, the field takes exactly " + field.length());
        }
        FieldType type = field.type();
        ByteBuffer out = ByteBuffer.allocate(elements.size() * type.elementBytes()).order(ByteOrder.LITTLE_ENDIAN);
        for (JsonNode element : elements) {
            if (!element.isNumber() || type != FieldType.FLOAT32 && !element.canConvertToExactIntegral()) {
                throw new IOException("'" + abbreviate(element.toString()) + "' is not " + (type == FieldType.FLOAT32
                    ? "a number" : "a whole number"));
            }
            switch (type) {
                case INT32 -> {
                    if (!element.canConvertToInt()) {
                        throw new IOException(element + " does not fit int32");
                    }
                    out.putInt(element.intValue());
                }
                case INT64 -> {
                    if (!element.canConvertToLong()) {
                        throw new IOException(element + " does not fit int64");
                    }
                    out.putLong(element.longValue());
                }
                default -> out.putFloat(element.floatValue());
            }
        }
        return out.array();
    }

    private static String abbreviate(String text) {
        return text.length() <= 40 ? text : text.substring(0, 40) + "...";
    }
}
