/**
 * JPEG in one module: {@link io.pinshard.jpeg.JpegDecoding} (the entry point that chooses), libjpeg-turbo's region
 * and M/8-scaled decode ({@link io.pinshard.jpeg.RegionDecoder}, the restart-interval cut), OpenCV's decode
 * ({@link io.pinshard.jpeg.OpenCvJpegDecoder}, {@link io.pinshard.jpeg.MatHeader}) and the encoder. It imports
 * nothing of pinshard's: JavaCPP, OpenCV, Agrona and the SLF4J API only.
 */
package io.pinshard.jpeg;
