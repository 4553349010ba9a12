package io.pinshard.writer.convert;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.format.FieldSchema;
import io.pinshard.format.FieldType;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code --fields SOURCE[:NAME[:TYPE]]} and how a source's bytes become a field's stored value. */
class FieldSpecTest {
    @Test
    void webDatasetSpecsTakeTypesFromTheExtension() {
        List<FieldSpec> specs = FieldSpec.forWebDataset("txt:caption,json,cls:tags,seg.png,cls:box:float32[4]");
        assertEquals(List.of(FieldSchema.variable("caption", FieldType.UTF8), FieldSchema.variable("json", FieldType.JSON),
            FieldSchema.variable("tags", FieldType.INT32), FieldSchema.variable("seg_png", FieldType.BYTES),
            FieldSchema.fixed("box", FieldType.FLOAT32, 4)), FieldSpec.schema(specs));
        assertEquals("seg.png", specs.get(3).source());
        assertEquals(List.of(FieldSchema.variable("caption", FieldType.UTF8)), FieldSpec.schema(FieldSpec.forTable("caption")));
    }

    @Test
    void badSpecsAreRefusedWithTheReason() {
        String[][] cases = {{"txt:a:utf8[2]", "N for int32"}, {"txt:a:text", "unknown field type"},
            {"txt:a,json:a", "listed twice"}, {"a:b:c:d", "SOURCE[:NAME[:TYPE]]"}, {"cls:n:int32[x]", "no element count"}};
        for (String[] c : cases) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> FieldSpec.forWebDataset(c[0]));
            assertTrue(e.getMessage().contains(c[1]), c[0] + " -> " + e.getMessage());
        }
    }

    @Test
    void sourcesBecomeStoredValues() throws Exception {
        FieldSchema ints = FieldSchema.variable("n", FieldType.INT32);
        assertArrayEquals(le(3, 1, -2), FieldDecoder.encode(ints, "3 1, -2\n".getBytes(StandardCharsets.UTF_8), false));
        assertArrayEquals(le(7), FieldDecoder.encode(ints, "7".getBytes(StandardCharsets.UTF_8), true));
        assertArrayEquals(le(1, 2), FieldDecoder.encode(ints, "[1,2]".getBytes(StandardCharsets.UTF_8), true));
        assertArrayEquals(new byte[0], FieldDecoder.encode(ints, new byte[0], false));
        assertEquals("hé", new String(FieldDecoder.encode(FieldSchema.variable("t", FieldType.UTF8),
            "\"hé\"".getBytes(StandardCharsets.UTF_8), true), StandardCharsets.UTF_8));
        for (String bad : new String[] {"1.5", "x", "3000000000", "[1,[2]]"}) {
            assertThrows(Exception.class, () -> FieldDecoder.encode(ints, bad.getBytes(StandardCharsets.UTF_8), false), bad);
        }
        assertThrows(Exception.class, () -> FieldDecoder.encode(FieldSchema.fixed("b", FieldType.FLOAT32, 4),
            "1 2 3".getBytes(StandardCharsets.UTF_8), false));
        assertThrows(Exception.class, () -> FieldDecoder.encode(FieldSchema.variable("j", FieldType.JSON),
            "{\"a\":1} 2".getBytes(StandardCharsets.UTF_8), false));
        assertThrows(Exception.class, () -> FieldDecoder.encode(FieldSchema.variable("t", FieldType.UTF8),
            new byte[] {(byte) 0xc3}, false));
    }

    private static byte[] le(int... values) {
        ByteBuffer out = ByteBuffer.allocate(values.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (int v : values) {
            out.putInt(v);
        }
        return out.array();
    }
}
