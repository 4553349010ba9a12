/**
 * The image collections the baseline and the benchmarks read: generated images, real photographs, and the offline
 * shorter-side resize. Imports the baseline package and OpenCV only.
 */
package io.pinshard.baseline.inputs;
