/**
 * push and pull of a whole dataset: the shared ShardTransfer loop (skip what is in place, send, count), the checks
 * that a stored object holds the bytes sent, and their progress and results. Imports reader and format-spec.
 */
package io.pinshard.s3.transfer;
