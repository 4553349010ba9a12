/**
 * Writing shards and datasets by SPEC.md: ShardWriter places payloads, index, key table, metadata and footer;
 * DatasetWriter rolls shards and publishes the manifest atomically. Imports format-spec (and jpeg through convert),
 * never the reader or anything above it.
 */
package io.pinshard.writer;
