package io.pinshard.reader;

import io.pinshard.format.Crc32c;
import io.pinshard.format.FieldSchema;
import io.pinshard.format.FieldType;
import io.pinshard.format.FieldsSectionDescriptor;
import io.pinshard.format.IndexEntryFlyweight;
import io.pinshard.format.Json;
import io.pinshard.format.ShardFormatException;
import io.pinshard.format.ShardFormatException.Kind;
import io.pinshard.format.ShardStructure;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * What {@code verify} checks of a shard's fields beyond what a reader checks at first use ({@link ShardFields#check}
 * with the section CRC): the section ends the key table, no key reaches into it, the bytes between the keys and
 * the section and between its columns are zero, every utf8 and json value is valid UTF-8 and every json value one
 * JSON value (SPEC.md section 17.4, "verify"). Reports each problem, naming shard, record and field.
 */
final class FieldsVerifier {
    private final Crc32c crc;
    private final CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder()
        .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);

    FieldsVerifier(Crc32c crc) {
        this.crc = crc;
    }

    void verify(MappedShard shard, List<FieldSchema> schema, List<Problem> problems) {
        ShardStructure s = shard.structure();
        UnsafeBuffer buffer = shard.buffer();
        ShardFields fields;
        try {
            fields = ShardFields.check(buffer, s, schema, true, crc);
        } catch (ShardFormatException e) {
            problems.add(new Problem(e.kind(), shard.name(), e.record(), e.detail()));
            return;
        }
        if (fields == null) {
            return;
        }
        String name = shard.name();
        long keyTableEnd = s.keyTableOffset() + s.keyTableLength();
        long sectionEnd = fields.sectionOffset() + fields.sectionLength();
        if (sectionEnd != keyTableEnd) {
            problems.add(new Problem(Kind.BAD_FIELDS, name, -1, "fields section ends at " + sectionEnd
                + ", the key table at " + keyTableEnd + " (the section must end the table)"));
        }
        long keysEnd = s.keyTableOffset();
        IndexEntryFlyweight entry = new IndexEntryFlyweight();
        for (long i = 0; i < s.recordCount(); i++) {
            entry.wrap(buffer, s.entryOffset(i));
            long end = s.keyTableOffset() + entry.keyOffset() + entry.keyLength();
            if (end > fields.sectionOffset() && s.keyTableOffset() + entry.keyOffset() < sectionEnd) {
                problems.add(new Problem(Kind.BAD_FIELDS, name, i, "key reaches into the fields section"));
            }
            keysEnd = Math.max(keysEnd, Math.min(end, fields.sectionOffset()));
        }
        zero(buffer, keysEnd, fields.sectionOffset(), name, "padding between the keys and the fields section", problems);
        long at = fields.sectionOffset() + FieldsSectionDescriptor.columnEntryOffset(schema.size());
        for (int f = 0; f < schema.size(); f++) {
            zero(buffer, at, fields.columnStart(f), name, "padding before field " + schema.get(f).name(), problems);
            at = fields.columnEnd(f);
        }
        for (int f = 0; f < schema.size(); f++) {
            FieldType type = schema.get(f).type();
            if (type == FieldType.UTF8 || type == FieldType.JSON) {
                checkText(buffer, fields, f, s.recordCount(), name, problems);
            }
        }
    }

    private void checkText(UnsafeBuffer buffer, ShardFields fields, int f, long records, String name,
                           List<Problem> problems) {
        FieldSchema field = fields.schema().get(f);
        for (long n = 0; n < records; n++) {
            long span = fields.span(buffer, f, n);
            int length = ShardFields.lengthOf(span);
            ByteBuffer bytes = buffer.byteBuffer().duplicate();
            bytes.limit(ShardFields.offsetOf(span) + length).position(ShardFields.offsetOf(span));
            try {
                utf8.reset().decode(bytes);
            } catch (CharacterCodingException e) {
                problems.add(new Problem(Kind.BAD_FIELDS, name, n, "field " + field.name() + ": value is not UTF-8"));
                continue;
            }
            if (field.type() == FieldType.JSON && length > 0) {
                byte[] text = new byte[length];
                buffer.getBytes(ShardFields.offsetOf(span), text);
                try {
                    Json.ONE_VALUE.readTree(text);
                } catch (IOException e) {
                    problems.add(new Problem(Kind.BAD_FIELDS, name, n, "field " + field.name()
                        + ": value is not one JSON value: " + e.getMessage().lines().findFirst().orElse("")));
                }
            }
        }
    }

    private static void zero(UnsafeBuffer buffer, long from, long to, String shard, String what,
                             List<Problem> problems) {
        for (long at = from; at < to; at++) {
            if (buffer.getByte((int) at) != 0) {
                problems.add(new Problem(Kind.NONZERO_PADDING, shard, -1, what + " has a non-zero byte at offset " + at));
                return;
            }
        }
    }
}
