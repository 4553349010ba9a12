package io.pinshard.baseline;

import io.pinshard.baseline.inputs.SourceImage;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import java.util.SplittableRandom;
import javax.imageio.ImageIO;

/**
 * The loader people write first, in Java: per sample, read the image file, decode all of it with
 * {@code javax.imageio}, random-resized-crop it to {@code crop x crop} into a heap batch. Pointed at
 * full-size JPEGs it is the seed's "before"; at 320-px JPEG files, the seed's "after" without shards.
 * One thread, like a DataLoader with {@code num_workers=0}.
 */
public final class NaiveLoader {
    private final List<SourceImage> images;
    private final int crop;
    private final SplittableRandom random;

    public NaiveLoader(List<SourceImage> images, int crop, long seed) {
        if (images.isEmpty()) {
            throw new IllegalArgumentException("no images to load");
        }
        this.images = List.copyOf(images);
        this.crop = crop;
        this.random = new SplittableRandom(seed);
    }

    public int crop() {
        return crop;
    }

    /** Bytes of one sample in a batch: crop x crop x 3. */
    public int sampleBytes() {
        return crop * crop * 3;
    }

    /** Loads image {@code index} into {@code batch} at sample slot {@code slot}; returns its label. */
    public int load(int index, byte[] batch, int slot) throws IOException {
        SourceImage image = images.get(index);
        byte[] encoded = Files.readAllBytes(image.file());
        BufferedImage decoded = ImageIO.read(new ByteArrayInputStream(encoded));
        if (decoded == null) {
            throw new IOException(image.file() + ": javax.imageio cannot decode it");
        }
        NaiveRandomResizedCrop.apply(decoded, random, crop, batch, slot * sampleBytes());
        return image.label();
    }

    /** Loads a batch of random images (with replacement); fills {@code labels}. */
    public void loadRandomBatch(byte[] batch, int[] labels) throws IOException {
        for (int slot = 0; slot < labels.length; slot++) {
            labels[slot] = load(random.nextInt(images.size()), batch, slot);
        }
    }

    /** A random image index. */
    public int randomIndex() {
        return random.nextInt(images.size());
    }
}
