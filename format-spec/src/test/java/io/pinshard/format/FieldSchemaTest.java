package io.pinshard.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The schema rules of SPEC.md section 17.1, and the schema's JSON form (length omitted when variable). */
class FieldSchemaTest {
    @Test
    void validSchemasPassAndRoundTripThroughJson() throws Exception {
        List<FieldSchema> schema = List.of(FieldSchema.variable("caption", FieldType.UTF8),
            FieldSchema.fixed("box", FieldType.FLOAT32, 4), FieldSchema.variable("_tags.v-2", FieldType.INT32));
        FieldSchema.checkSchema(schema);
        String json = Json.MAPPER.writeValueAsString(schema).replaceAll("\\s", "");
        assertEquals("[{\"name\":\"caption\",\"type\":\"utf8\"},{\"name\":\"box\",\"type\":\"float32\",\"length\":4},"
            + "{\"name\":\"_tags.v-2\",\"type\":\"int32\"}]", json);
        assertEquals(schema, FieldsSectionPlacement.schemaOf(Json.MAPPER.readValue(json, List.class)));
        assertEquals("box:float32[4]", schema.get(1).describe());
        assertEquals("_tags.v-2:int32[]", schema.get(2).describe());
    }

    @Test
    void brokenSchemasAreRefusedNamingTheField() {
        String[][] cases = {
            {"[{\"name\":\"a\",\"type\":\"utf8\"},{\"name\":\"a\",\"type\":\"bytes\"}]", "listed twice"},
            {"[{\"name\":\"1abc\",\"type\":\"utf8\"}]", "is not 1-64"},
            {"[{\"name\":\"a b\",\"type\":\"utf8\"}]", "is not 1-64"},
            {"[{\"name\":\"t\",\"type\":\"utf8\",\"length\":3}]", "byte types are variable-length"},
            {"[{\"name\":\"n\",\"type\":\"int32\",\"length\":-1}]", "cannot have length -1"},
            {"[{\"name\":\"n\",\"type\":\"int32\",\"length\":65536}]", "cannot have length 65536"},
            {"[{\"name\":\"n\",\"type\":\"int128\"}]", "malformed"},
            {"[{\"type\":\"int32\"}]", "malformed"},
            {"[null]", "fields[0] is null"},
        };
        for (String[] c : cases) {
            ShardFormatException e = assertThrows(ShardFormatException.class, () -> FieldsSectionPlacement.schemaOf(
                Json.MAPPER.readValue(c[0], List.class)), c[0]);
            assertTrue(e.getMessage().contains(c[1]), c[0] + " -> " + e.getMessage());
        }
        List<FieldSchema> many = new ArrayList<>();
        for (int f = 0; f <= FieldSchema.MAX_FIELDS; f++) {
            many.add(FieldSchema.variable("f" + f, FieldType.BYTES));
        }
        assertThrows(ShardFormatException.class, () -> FieldSchema.checkSchema(many));
    }

    @Test
    void manifestWithABrokenSchemaIsABadManifest() {
        DatasetManifest manifest = new DatasetManifest(DatasetManifest.FORMAT, "1.1", 0, 0, List.of(),
            List.of(FieldSchema.variable("x", FieldType.UTF8), FieldSchema.variable("x", FieldType.UTF8)), List.of(),
            java.util.Map.of(), List.of());
        ShardFormatException e = assertThrows(ShardFormatException.class, () -> ManifestRules.check("d", manifest));
        assertEquals(ShardFormatException.Kind.BAD_MANIFEST, e.kind());
        assertTrue(e.getMessage().contains("field x is listed twice"), e.getMessage());
    }
}
