/**
 * The batch ring: slots of off-heap batch memory, the lock-free control block laid out by BatchRingDescriptor, and
 * the {@link io.pinshard.loader.ring.Batch} and {@link io.pinshard.loader.ring.SlotMemoryHold} a trainer holds. It
 * may import options, memory, the reader's ReadGuard and Agrona; what it needs of the run it asks through RingRun.
 */
package io.pinshard.loader.ring;
