package io.pinshard.baseline.inputs;

import java.nio.file.Path;

/**
 * One image of a collection.
 *
 * @param file  the image file
 * @param label index of its class in the collection's sorted class list
 */
public record SourceImage(Path file, int label) {
}
