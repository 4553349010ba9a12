package io.pinshard.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

class ShardHexDumpTest {
    @Test
    void fieldTablesTileEachStructureExactly() {
        assertTiles(ShardHexDump.HEADER_FIELDS, ShardHeaderDescriptor.LENGTH);
        assertTiles(ShardHexDump.INDEX_ENTRY_FIELDS, IndexEntryDescriptor.LENGTH);
        assertTiles(ShardHexDump.FOOTER_FIELDS, ShardFooterDescriptor.LENGTH);
    }

    @Test
    void dumpsAnEmptyShardFieldByField() {
        Crc32c crc = new Crc32c();
        UnsafeBuffer file = new UnsafeBuffer(new byte[ShardLayout.MIN_SHARD_BYTES]);
        ShardHeaderFlyweight.write(file, 0, 64, 7, crc);
        int empty = crc.compute(file, 0, 0);
        ShardFooterFlyweight.write(file, ShardHeaderDescriptor.LENGTH, 0, ShardHeaderDescriptor.LENGTH, 0, 0,
            ShardLayout.MIN_SHARD_BYTES, empty, empty, empty, crc);

        String[] lines = ShardHexDump.render(file).split("\n");

        assertEquals("00000000  50 49 4e 53 48 41 52 44                          header.magic = \"PINSHARD\"", lines[0]);
        assertEquals("00000018  07 00 00 00                                      header.shardNumber = 7", lines[6]);
        assertEquals("0000001c  00 (x 32)                                        header.reserved (must be zero)", lines[7]);
        assertEquals("00000048  40 00 00 00 00 00 00 00                          footer.indexOffset = 64", lines[10]);
        assertEquals("00000078  44 52 41 48 53 4e 49 50                          footer.endMagic = \"DRAHSNIP\"", lines[19]);
        assertEquals(20, lines.length);
    }

    @Test
    void refusesABrokenShardInsteadOfDumpingIt() {
        UnsafeBuffer file = new UnsafeBuffer(new byte[ShardLayout.MIN_SHARD_BYTES]);
        ShardFormatException e = assertThrows(ShardFormatException.class, () -> ShardHexDump.render(file));
        assertEquals(ShardFormatException.Kind.BAD_MAGIC, e.kind());
    }

    private static void assertTiles(List<ShardHexDump.Field> fields, int length) {
        int expected = 0;
        for (ShardHexDump.Field field : fields) {
            assertEquals(expected, field.offset(), field.name() + " starts where the previous field ends");
            expected += field.size();
        }
        assertEquals(length, expected, "fields end at the structure's length");
    }
}
