package io.pinshard.loader.options;

/** The one check every options record makes: a broken rule is the caller's argument, told in its words. */
final class OptionChecks {
    private OptionChecks() {
    }

    static void require(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException(message);
        }
    }
}
