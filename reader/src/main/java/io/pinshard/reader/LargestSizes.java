package io.pinshard.reader;

import io.pinshard.format.Codec;

/**
 * The largest payload and decoded size per codec over the shards of a dataset whose index has been checked so far:
 * what the loader sizes its buffers by. Grows as shards are first used; never shrinks (an evicted shard's records
 * may come back).
 */
final class LargestSizes {
    private final long[] payloadBytes = new long[Codec.values().length];
    private final long[] decodedBytes = new long[Codec.values().length];

    /** Takes in {@code shard}'s sizes; call once its index is checked. */
    synchronized void grow(MappedShard shard) {
        for (Codec codec : Codec.values()) {
            payloadBytes[codec.id()] = Math.max(payloadBytes[codec.id()], shard.maxPayloadBytes(codec));
            decodedBytes[codec.id()] = Math.max(decodedBytes[codec.id()], shard.maxDecodedBytes(codec));
        }
    }

    long payloadBytes(Codec codec) {
        return payloadBytes[codec.id()];
    }

    long decodedBytes(Codec codec) {
        return decodedBytes[codec.id()];
    }
}
