/**
 * {@code pinshard serve}: the shared-memory batch ring of docs/RING.md (RingDescriptor and its flyweights), the server that
 * publishes the loader's batches into it, the per-user ring directory and the reaper that removes a dead server's
 * ring. Imports loader, reader and memory; nothing above them.
 */
package io.pinshard.serve;
