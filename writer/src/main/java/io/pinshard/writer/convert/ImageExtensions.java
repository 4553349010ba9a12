package io.pinshard.writer.convert;

import java.util.Locale;
import java.util.Set;

/** File extensions taken as images when listing folders and WebDataset samples. */
final class ImageExtensions {
    /** The torchvision ImageFolder set, minus formats OpenCV cannot read (ppm/pgm are kept: OpenCV reads them). */
    static final Set<String> IMAGE = Set.of("jpg", "jpeg", "png", "webp", "bmp", "tif", "tiff", "ppm", "pgm");

    private ImageExtensions() {
    }

    static String of(String name) {
        int dot = name.lastIndexOf('.');
        return dot < 0 ? "" : name.substring(dot + 1).toLowerCase(Locale.ROOT);
    }

    static boolean isImage(String name) {
        return IMAGE.contains(of(name));
    }
}
