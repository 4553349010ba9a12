package io.pinshard.jpeg;

/**
 * The one entry point to JPEG decoding, per thread: libjpeg-turbo's own API ({@link RegionDecoder}) where
 * {@link TurboJpeg} finds it, OpenCV's decode ({@link OpenCvJpegDecoder}) where it does not and for the streams it
 * leaves (CMYK, YCCK). {@link #decodeWhole} chooses; the loader's region and scaled decodes ask {@link #turbo()} and
 * fall back to {@link #opencv()} themselves. Each decoder is made on first use, so a thread that never meets a
 * JPEG loads neither library's natives. Input is native memory the caller owns (a copy, never a mapping).
 */
public final class JpegDecoding implements AutoCloseable {
    private final String user;
    private final long streamCapacity;
    private RegionDecoder turbo;
    private boolean turboChecked;
    private OpenCvJpegDecoder opencv;

    /**
     * @param user who decodes, for the one log line saying OpenCV decodes instead of libjpeg-turbo
     * @param streamCapacity the streams libjpeg-turbo's cut scratch holds from the start (it grows as needed)
     */
    public JpegDecoding(String user, long streamCapacity) {
        this.user = user;
        this.streamCapacity = streamCapacity;
    }

    /**
     * Decodes {@code length} bytes at {@code source} at full size into {@code height x width x channels} pixels
     * (1 = grey, 3 = RGB) at {@code destination}: with libjpeg-turbo where it is here and takes the stream, else
     * with OpenCV.
     *
     * @return null on success, else why the payload could not be decoded
     */
    public String decodeWhole(long source, int length, int height, int width, int channels, long destination) {
        if (channels != 1 && channels != 3) {
            return "jpeg records hold 1 or 3 channels, not " + channels;
        }
        RegionDecoder region = turbo();
        if (region != null) {
            RegionDecoder.Status status = region.decodeWhole(source, length, 8, height, width,
                channels == 1 ? RegionDecoder.Format.GREY : RegionDecoder.Format.RGB, destination,
                (long) width * channels, (long) height * width * channels);
            switch (status) {
                case OK -> {
                    return null;
                }
                case CORRUPT, ARGUMENT -> {
                    return "jpeg payload cannot be decoded: " + region.problem();
                }
                case UNSUPPORTED -> {
                    // a stream libjpeg-turbo's API leaves to OpenCV: below
                }
            }
        }
        return opencv().decodeInto(source, length, height, width, channels, destination);
    }

    /** The libjpeg-turbo decoder, or null where {@link TurboJpeg} says this JVM decodes with OpenCV (logged once). */
    public RegionDecoder turbo() {
        if (!turboChecked) {
            turboChecked = true;
            turbo = TurboJpeg.available(user) ? new RegionDecoder(streamCapacity) : null;
        }
        return turbo;
    }

    /** The OpenCV decoder (its natives load now, on first use). */
    public OpenCvJpegDecoder opencv() {
        if (opencv == null) {
            opencv = new OpenCvJpegDecoder();
        }
        return opencv;
    }

    @Override
    public void close() {
        if (opencv != null) {
            opencv.close();
            opencv = null;
        }
        if (turbo != null) {
            turbo.close();
            turbo = null;
        }
        turboChecked = false;
    }
}
