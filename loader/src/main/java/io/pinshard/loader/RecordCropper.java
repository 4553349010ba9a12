package io.pinshard.loader;

import io.pinshard.loader.options.LoaderOptions;
import io.pinshard.loader.sample.SplitMix;
import io.pinshard.loader.work.SampleProcessor;
import io.pinshard.reader.Dataset;
import io.pinshard.reader.RecordView;

/**
 * The crop a loader with {@code options} gives one record in one epoch, outside any batch: the same box, flip and
 * pixels its batches hold for that record, because a sample's seed is a function of (seed, epoch, record) only,
 * whatever the order or the worker. For previews that choose their records; not for training (one thread, no ring).
 */
public final class RecordCropper implements AutoCloseable {
    private final Dataset dataset;
    private final LoaderOptions options;
    private final SampleProcessor processor;
    private final RecordView view = new RecordView();

    public RecordCropper(Dataset dataset, LoaderOptions options) {
        this.dataset = dataset;
        this.options = options;
        options.augment().resampler().effective(); // VECTOR where it cannot run fails here, as in Loader.open
        this.processor = SampleProcessor.of(options, dataset);
    }

    /**
     * Bytes {@link #crop} writes: crop x crop x 3 (RGB) values of the options'
     * {@link io.pinshard.loader.options.AugmentOptions#pixels()}.
     */
    public long cropBytes() {
        return options.augment().imageBytes();
    }

    /** Writes {@code record}'s crop in {@code epoch} ({@link #cropBytes()} bytes) to {@code destination}. */
    public void crop(long record, int epoch, long destination) {
        dataset.acquire();
        try {
            dataset.pin(record, view);
            try {
                processor.process(view, SplitMix.mix(options.sampling().seed(), epoch, record), destination);
            } finally {
                view.unpin();
            }
        } finally {
            dataset.release();
        }
    }

    @Override
    public void close() {
        processor.close();
    }
}
