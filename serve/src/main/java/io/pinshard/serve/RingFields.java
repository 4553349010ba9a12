package io.pinshard.serve;

import com.fasterxml.jackson.core.type.TypeReference;
import io.pinshard.format.FieldSchema;
import io.pinshard.format.FieldType;
import io.pinshard.format.Json;
import io.pinshard.loader.options.FieldSelection;
import io.pinshard.loader.ring.BatchRingDescriptor;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The ring's fields block (docs/RING.md, "Fields"): which record fields each batch carries and where they lie in a
 * slot, written once by the server before the ring is published and checked by every reader before it makes views.
 *
 * <p>Each entry: {@code name}, {@code type} (docs/fields.md's type names), {@code length} (elements of a
 * fixed-length numeric field, 0 for variable), {@code boxes} (whether the loader moved it through the crop),
 * {@code stride} (bytes between two samples' values), {@code lengths} and {@code values} (offsets from a slot's
 * data start of the int32 lengths and of sample 0's value).
 */
public final class RingFields {
    /** One field of the block. */
    public record Entry(String name, String type, int length, boolean boxes, int stride, long lengths, long values) {
    }

    private RingFields() {
    }

    /**
     * The block's entries for a loader carrying {@code selection} from a dataset with {@code schema}, in slots of
     * {@code capacity} images of {@code imageBytes} each.
     */
    public static List<Entry> describe(FieldSelection selection, List<FieldSchema> schema, int capacity,
                                       long imageBytes) {
        List<Entry> entries = new ArrayList<>();
        for (int f = 0; f < selection.count(); f++) {
            String name = selection.names().get(f);
            FieldSchema field = schema.get(FieldSchema.indexOf(schema, name));
            entries.add(new Entry(name, field.type().label(), field.length(), f == selection.boxesIndex(),
                selection.stride(), BatchRingDescriptor.fieldLengthsOffset(capacity, imageBytes, selection.stride(), f),
                BatchRingDescriptor.fieldValuesOffset(capacity, imageBytes, selection.stride(), f)));
        }
        return entries;
    }

    /** The block's JSON text ("" for no fields). */
    public static String json(List<Entry> entries) {
        if (entries.isEmpty()) {
            return "";
        }
        List<Map<String, Object>> out = new ArrayList<>();
        for (Entry e : entries) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", e.name());
            m.put("type", e.type());
            m.put("length", e.length());
            m.put("boxes", e.boxes());
            m.put("stride", e.stride());
            m.put("lengths", e.lengths());
            m.put("values", e.values());
            out.add(m);
        }
        return new String(Json.compact(out), StandardCharsets.UTF_8);
    }

    /**
     * Reads and checks the fields block of a ring whose header {@link RingDescriptor#checkHeader} passed: one entry
     * per FIELD_COUNT, known types, distinct names, and every sample's length and value inside a slot.
     *
     * @throws RingFormatException naming the ring and what is wrong
     */
    public static List<Entry> read(RingHeader header, String what) {
        int count = header.fieldCount();
        if (count == 0) {
            return List.of();
        }
        List<Map<String, Object>> raw;
        try {
            raw = Json.MAPPER.readValue(header.fieldsJson(), new TypeReference<List<Map<String, Object>>>() { });
        } catch (IOException | RuntimeException e) {
            throw new RingFormatException(what + "'s fields block is not a JSON list of fields: " + e.getMessage());
        }
        if (raw == null || raw.size() != count) {
            throw new RingFormatException(what + "'s fields block describes " + (raw == null ? 0 : raw.size())
                + " fields, FIELD_COUNT says " + count);
        }
        long slot = header.slotStride();
        int capacity = header.capacity();
        Set<String> names = new HashSet<>();
        List<Entry> entries = new ArrayList<>();
        for (Map<String, Object> m : raw) {
            Entry e;
            try {
                e = new Entry((String) m.get("name"), (String) m.get("type"), ((Number) m.get("length")).intValue(),
                    (Boolean) m.get("boxes"), ((Number) m.get("stride")).intValue(),
                    ((Number) m.get("lengths")).longValue(), ((Number) m.get("values")).longValue());
            } catch (ClassCastException | NullPointerException bad) {
                throw new RingFormatException(what + "'s fields block has an entry with a missing or mistyped key: "
                    + m);
            }
            FieldType type = typeOf(e.type());
            if (e.name() == null || !FieldSchema.NAME.matcher(e.name()).matches() || !names.add(e.name())
                || type == null || e.length() < 0 || e.stride() < 1 || e.stride() % Long.BYTES != 0
                || e.stride() > FieldSelection.MAX_BYTES_PER_SAMPLE + Long.BYTES
                || e.lengths() < 0 || e.lengths() % Integer.BYTES != 0
                || e.lengths() > slot - (long) capacity * Integer.BYTES
                || e.values() < 0 || e.values() % Long.BYTES != 0 || e.values() > slot - (long) capacity * e.stride()
                || e.boxes() && type != FieldType.FLOAT32) {
                throw new RingFormatException(what + "'s fields block has an impossible field (slots of " + slot
                    + " bytes, " + capacity + " samples): " + m);
            }
            entries.add(e);
        }
        return entries;
    }

    private static FieldType typeOf(String label) {
        try {
            return label == null ? null : FieldType.fromLabel(label);
        } catch (IllegalArgumentException unknown) {
            return null;
        }
    }
}
