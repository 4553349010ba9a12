/**
 * Benchmarks against an S3 server on loopback (testkit's s3proxy, in this JVM or one of its own):
 * {@link io.pinshard.examples.s3.S3StreamBench} (the loader streaming from the store against a warm local copy,
 * scripts/bench-s3.sh) and {@link io.pinshard.examples.s3.PushPullBench} (push and pull throughput,
 * scripts/bench-push-pull.sh). They may import every library module and the s3 test-jar's data helpers.
 */
package io.pinshard.examples.s3;
