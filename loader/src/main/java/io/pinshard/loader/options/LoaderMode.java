package io.pinshard.loader.options;

/** Augmentation mode. */
public enum LoaderMode {
    /** Random-resized-crop (torchvision semantics) plus random horizontal flip. */
    TRAIN,
    /** Resize the shorter side, then centre crop; no randomness. */
    EVAL
}
