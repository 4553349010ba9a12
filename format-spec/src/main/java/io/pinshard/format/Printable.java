package io.pinshard.format;

/**
 * Makes untrusted text safe to print on a terminal. Names from a manifest (shard files, classes),
 * record keys and paths may hold escape sequences that recolour the terminal, rewrite its title or
 * hide text; every name, key and record field value that a command prints (inspect, verify, dump, preview,
 * convert's rejections, error messages) passes through {@link #escape} first, and JSON the project writes escapes
 * the same characters as <code>&#92;uNNNN</code> ({@link Json}), so a manifest or {@code --json} line is safe to
 * print too.
 */
public final class Printable {
    private Printable() {
    }

    /**
     * {@code text} with every control character (C0, DEL, C1), Unicode format character (bidi
     * overrides, zero-width marks), line or paragraph separator and unpaired surrogate replaced by a
     * visible escape: {@code \n}, {@code \t}, {@code \r}, {@code \xNN} below U+0100, <code>&#92;uNNNN</code>
     * above. Returns {@code text} itself when nothing needs escaping; {@code null} stays {@code null}.
     */
    public static String escape(String text) {
        if (text == null) {
            return null;
        }
        int i = 0;
        while (i < text.length() && !needsEscape(text, i)) {
            i++;
        }
        if (i == text.length()) {
            return text;
        }
        StringBuilder out = new StringBuilder(text.length() + 16).append(text, 0, i);
        for (; i < text.length(); i++) {
            char c = text.charAt(i);
            if (!needsEscape(text, i)) {
                out.append(c);
            } else if (c == '\n') {
                out.append("\\n");
            } else if (c == '\t') {
                out.append("\\t");
            } else if (c == '\r') {
                out.append("\\r");
            } else if (c < 0x100) {
                out.append(String.format("\\x%02x", (int) c));
            } else {
                out.append(String.format("\\" + "u%04x", (int) c));
            }
        }
        return out.toString();
    }

    private static boolean needsEscape(String text, int i) {
        char c = text.charAt(i);
        if (c >= 0x20 && c < 0x7F) {
            return false;
        }
        if (Character.isSurrogate(c)) {
            boolean paired = Character.isHighSurrogate(c) && i + 1 < text.length()
                && Character.isLowSurrogate(text.charAt(i + 1));
            boolean secondHalf = Character.isLowSurrogate(c) && i > 0 && Character.isHighSurrogate(text.charAt(i - 1));
            return !paired && !secondHalf; // a valid pair is printable text (emoji, CJK extensions)
        }
        return isUnsafe(c);
    }

    /**
     * Whether a terminal may act on {@code c} instead of showing it: a control character (C0, DEL, C1: the ESC of
     * every escape sequence, the 8-bit CSI U+009B), a format character (bidi overrides and isolates
     * U+202A-U+202E, U+2066-U+2069, zero-width marks) or a line or paragraph separator. Surrogates are not judged
     * here (a pair is text, {@link #escape} escapes an unpaired one).
     */
    public static boolean isUnsafe(char c) {
        if (c >= 0x20 && c < 0x7F) {
            return false;
        }
        int type = Character.getType(c);
        return Character.isISOControl(c) || type == Character.FORMAT || type == Character.LINE_SEPARATOR
            || type == Character.PARAGRAPH_SEPARATOR;
    }
}
