/**
 * Streaming a dataset from S3-compatible storage: the location and settings, the client, the verified node-local
 * shard cache, and S3DatasetProvider, the one way a reader opens an s3:// dataset. Imports reader and format-spec.
 */
package io.pinshard.s3;
