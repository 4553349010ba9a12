package io.pinshard.jpeg;

import java.util.concurrent.atomic.AtomicBoolean;
import org.bytedeco.javacpp.Loader;
import org.slf4j.LoggerFactory;

/**
 * Whether this JVM decodes JPEG with libjpeg-turbo's own API ({@link RegionDecoder}: region and M/8-scaled
 * decodes) or leaves it to OpenCV, which decodes whole images at 1/1, 1/2, 1/4 or 1/8 only. Decided once per
 * JVM: the binding is there when the build found g++ and {@code jpeglib.h} (libjpeg62-turbo-dev) and the
 * machine has {@code libjpeg.so.62} (libjpeg62-turbo); {@code -D}{@value #PROPERTY}{@code =opencv} turns it off.
 * The first caller that finds it unavailable logs one line saying why.
 */
public final class TurboJpeg {
    /** System property: {@code opencv} forces the OpenCV decode everywhere; anything else (or unset) is auto. */
    public static final String PROPERTY = "pinshard.jpeg.decoder";

    private static final AtomicBoolean FALLBACK_LOGGED = new AtomicBoolean();

    private TurboJpeg() {
    }

    /** Why libjpeg-turbo's API cannot be used in this JVM, or null when it can. */
    public static String unavailableReason() {
        return Availability.REASON;
    }

    /**
     * Whether to decode with {@link RegionDecoder}; when not, logs once per JVM why, on behalf of {@code user}
     * (which decode falls back: "the loader", "conversion").
     */
    public static boolean available(String user) {
        String reason = Availability.REASON;
        if (reason != null && FALLBACK_LOGGED.compareAndSet(false, true)) {
            LoggerFactory.getLogger(TurboJpeg.class).info("pinshard decodes JPEG with OpenCV in {}, not libjpeg-turbo's "
                + "region and M/8-scaled decode ({}); jpeg shards load and convert faster with it", user, reason);
        }
        return reason == null;
    }

    /** Which decoder JPEGs go through here: "libjpeg-turbo 62 (region, M/8 scale)" or "OpenCV (...)". */
    public static String describe() {
        String reason = Availability.REASON;
        return reason == null ? "libjpeg-turbo (system libjpeg.so.62: region and M/8-scaled decode)"
            : "OpenCV (whole image at 1/1, 1/2, 1/4, 1/8: " + reason + ")";
    }

    private static final class Availability {
        static final String REASON = probe();

        private static String probe() {
            if ("opencv".equalsIgnoreCase(System.getProperty(PROPERTY, "auto").trim())) {
                return "-D" + PROPERTY + "=opencv";
            }
            // Loader.load is a silent no-op on a platform the @Platform annotation does not name.
            if (!"linux-x86_64".equals(Loader.getPlatform())) {
                return "no libjpeg-turbo binding for " + Loader.getPlatform() + " (only linux-x86_64 is built)";
            }
            if (LibJpeg.class.getResource("linux-x86_64/libjniLibJpeg.so") == null) {
                return "this build has no libjpeg-turbo binding (built without g++ or libjpeg62-turbo-dev, or not on "
                    + "linux-x86_64)";
            }
            try {
                Loader.load(LibJpeg.class);
                return null;
            } catch (Throwable e) { // UnsatisfiedLinkError without libjpeg.so.62, or a platform JavaCPP cannot load
                return "the libjpeg-turbo binding did not load: " + e;
            }
        }
    }
}
