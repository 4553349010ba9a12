package io.pinshard.writer.convert;

import java.nio.ByteBuffer;

/**
 * Recognises the image formats conversion accepts by their first bytes, so that a text file named
 * {@code .jpg} is rejected as "not an image" rather than handed to a decoder.
 */
final class ImageSignature {
    private ImageSignature() {
    }

    /** Null when the bytes start like a JPEG, PNG, WebP, BMP, TIFF or PNM image, else why not. */
    static String unsupportedReason(ByteBuffer data) {
        int n = data.limit();
        if (starts(data, 0xFF, 0xD8, 0xFF) || starts(data, 0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A)
            || starts(data, 'B', 'M') || starts(data, 'I', 'I', 0x2A, 0x00) || starts(data, 'M', 'M', 0x00, 0x2A)
            || (n >= 2 && data.get(0) == 'P' && data.get(1) >= '1' && data.get(1) <= '6')) {
            return null;
        }
        if (starts(data, 'R', 'I', 'F', 'F') && n >= 12 && data.get(8) == 'W' && data.get(9) == 'E'
            && data.get(10) == 'B' && data.get(11) == 'P') {
            return null;
        }
        if (starts(data, 'G', 'I', 'F')) {
            return "GIF is not supported (OpenCV cannot decode it here); convert it to PNG first";
        }
        return "not an image (unrecognised file signature)";
    }

    private static boolean starts(ByteBuffer data, int... signature) {
        if (data.limit() < signature.length) {
            return false;
        }
        for (int i = 0; i < signature.length; i++) {
            if ((data.get(i) & 0xFF) != signature[i]) {
                return false;
            }
        }
        return true;
    }
}
