/**
 * The reader: datasets of mapped shards, records and their views, payload decoding (LZ4; JPEG through the jpeg
 * module's JpegDecoding), CRC checks and verification, guarded against use after close and hostile files. It may
 * import pinshard's format-spec, memory and jpeg modules, Agrona, LZ4, OpenCV and the JDK; the training loader that
 * consumes it lives in the loader module.
 */
package io.pinshard.reader;
