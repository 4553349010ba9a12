/**
 * {@code pinshard convert}: listing inputs (folders, manifests, WebDataset tars), decoding and resizing each image once,
 * the parallel, resumable run with its CRC-lined journal, rejections with reasons, and merge of parts. Imports the
 * writer package, format-spec and jpeg.
 */
package io.pinshard.writer.convert;
