package io.pinshard.format;

/**
 * Sees every index entry once it has passed the format's own checks, during the one walk over the index that
 * {@link ShardStructure#read(org.agrona.DirectBuffer, Crc32c, boolean, IndexEntryVisitor)} makes: a reader adds its
 * own per-entry rules (a dataset's limits, its class list) and gathers figures without walking the index again. A
 * {@link ShardFormatException} it throws is reported at that record.
 */
@FunctionalInterface
public interface IndexEntryVisitor {
    /** Called for record {@code record} (within the shard), {@code entry} wrapped over its index entry. */
    void visit(long record, IndexEntryFlyweight entry);
}
