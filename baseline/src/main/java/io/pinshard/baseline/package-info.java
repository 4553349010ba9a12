/**
 * The naive loader pinshard is measured against: decode the full image file every step, random-resized crop, no
 * shards. Benchmarks only; it imports no pinshard module, OpenCV (JavaCPP) only.
 */
package io.pinshard.baseline;
