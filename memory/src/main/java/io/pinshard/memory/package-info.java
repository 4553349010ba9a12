/**
 * Native memory a batch lives in: the allocator contract (BatchMemoryAllocator) and its host implementation, owned
 * regions, the one raw-address pointer class (AddressPointer), and the heap counters the zero-heap tests use. Imports
 * no pinshard module; Agrona, JavaCPP's Pointer and SLF4J only.
 */
package io.pinshard.memory;
