package io.pinshard.jpeg;

import org.bytedeco.opencv.global.opencv_core;

/**
 * OpenCV's natives, loaded once per JVM on the first call of {@link #ready()} and set to one thread: parallelism
 * comes from pinshard's own workers (OpenCV's pool would oversubscribe the cores, and the converter's bytes would
 * depend on the worker count). Loading them, with OpenBLAS, costs about a CPU second, so callers ask for them only
 * when an image first needs OpenCV: a loader whose crops all go to the vector kernel, or a conversion of JPEGs that
 * libjpeg-turbo decodes, never pays it.
 */
public final class OpenCvRuntime {
    private OpenCvRuntime() {
    }

    /** Loads OpenCV and sets it to one thread, the first time; a no-op after. */
    public static void ready() {
        Loaded.touch();
    }

    private static final class Loaded {
        static {
            opencv_core.setNumThreads(1);
        }

        static void touch() {
            // the class initialiser did the work
        }
    }
}
