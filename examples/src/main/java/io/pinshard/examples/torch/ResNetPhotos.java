package io.pinshard.examples.torch;

import io.pinshard.datawait.DataWaitMonitor;
import io.pinshard.reader.Dataset;
import io.pinshard.loader.Loader;
import io.pinshard.loader.options.LoaderOptions;
import io.pinshard.torch.Libtorch;
import io.pinshard.torch.TorchBatch;
import io.pinshard.torch.TorchEpoch;
import io.pinshard.torch.TorchLoader;
import io.pinshard.torch.TorchOptions;
import java.nio.file.Path;
import java.util.Locale;
import org.bytedeco.pytorch.SGD;
import org.bytedeco.pytorch.SGDOptions;
import org.bytedeco.pytorch.global.torch;

/**
 * The seed's own shape at photo scale, on CPU: {@link ResNet18} forward + backward + SGD step at batch 32, crop 224
 * (random-resized-crop + flip, torchvision's default scale 0.08-1), ImageNet normalisation, from 320-px photo shards
 * (scripts/prepare-bench-data.sh), for a few dozen steps. Prints each step's time, data-wait ms and data-wait %, and
 * the means after the warm-up steps (scripts/train-resnet-photos.sh runs it).
 *
 * <pre>
 * ResNetPhotos [--data DIR] [--steps 30] [--warmup 3] [--batch 32] [--crop 224] [--workers 2] [--threads 2] [--seed 1]
 * </pre>
 */
public final class ResNetPhotos {
    private ResNetPhotos() {
    }

    /** Runs the photo-scale steps; see the class comment for the options. */
    public static void main(String[] args) {
        Path data = Path.of(System.getProperty("user.home"), ".cache", "pinshard", "bench-320-x24", "raw");
        int steps = 30;
        int warmup = 3;
        int batchSize = 32;
        int crop = 224;
        int workers = 2;
        int threads = 2;
        long seed = 1;
        for (int i = 0; i < args.length; i += 2) {
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException(args[i] + " needs a value");
            }
            String value = args[i + 1];
            switch (args[i]) {
                case "--data" -> data = Path.of(value);
                case "--steps" -> steps = Integer.parseInt(value);
                case "--warmup" -> warmup = Integer.parseInt(value);
                case "--batch" -> batchSize = Integer.parseInt(value);
                case "--crop" -> crop = Integer.parseInt(value);
                case "--workers" -> workers = Integer.parseInt(value);
                case "--threads" -> threads = Integer.parseInt(value);
                case "--seed" -> seed = Long.parseLong(value);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        if (steps <= warmup) {
            throw new IllegalArgumentException("--steps must exceed --warmup");
        }
        Libtorch.require();
        Libtorch.setThreads(threads);
        torch.manual_seed(seed);
        LoaderOptions options = LoaderOptions.builder().batchSize(batchSize).crop(crop).workers(workers)
            .shuffle(true).seed(seed).dropLast(true).train().build();
        try (Dataset dataset = Dataset.open(data); Loader loader = Loader.open(dataset, options);
             TorchLoader batches = TorchLoader.of(loader, TorchOptions.defaults());
             ResNet18 net = new ResNet18(dataset.classes().size());
             SGD sgd = new SGD(net.parameters(), sgdOptions())) {
            net.train(true);
            System.out.printf(Locale.ROOT, "ResNet-18 (%d classes) on %s: %d records, batch %d, crop %d, %d loader "
                    + "workers, %d libtorch threads, %d steps (%d warm-up)%n", dataset.classes().size(), data,
                dataset.size(), batchSize, crop, workers, Libtorch.threads(), steps, warmup);
            StepLog log = new StepLog(steps);
            DataWaitMonitor dataWait = loader.dataWait();
            TrainingStep clock = new TrainingStep();
            int epoch = 0;
            while (log.steps() < steps) {
                try (TorchEpoch epochBatches = batches.epoch(epoch)) {
                    while (log.steps() < steps && epochBatches.hasNext()) {
                        TorchBatch batch = epochBatches.next();
                        long wait = dataWait.lastWaitNanos();
                        long stepNanos = clock.stepNanos(wait);
                        float loss = TrainingStep.run(sgd, net::forward, batch);
                        log.record(epoch, loss, stepNanos, wait);
                        System.out.println(log.line(log.steps() - 1));
                    }
                }
                epoch++;
            }
            // Steps 1..warmup carry start-up (first batches, libtorch's first allocations); step 0 has no step time.
            double stepMs = 0;
            double waitMs = 0;
            for (int i = warmup + 1; i < log.steps(); i++) {
                stepMs += log.stepMs(i);
                waitMs += log.waitMs(i);
            }
            int counted = log.steps() - warmup - 1;
            System.out.printf(Locale.ROOT, "ResNet-18 batch %d crop %d: mean step %.0f ms (%.1f images/s) over steps "
                    + "%d-%d; data-wait %.2f ms per step = %.2f %% of step time (loader monitor, whole run: %.2f %%; "
                    + "10 %% warning fired: %s)%n", batchSize, crop, stepMs / counted, 1000.0 * batchSize * counted
                    / stepMs, warmup + 1, log.steps() - 1, waitMs / counted, 100 * waitMs / stepMs,
                dataWait.dataWaitPercent(), dataWait.warned() ? "yes" : "no");
        }
    }

    /** Learning rate 0.01, momentum 0.9, as image-classification recipes use. */
    private static SGDOptions sgdOptions() {
        SGDOptions options = new SGDOptions(0.01);
        options.momentum().put(0.9);
        return options;
    }
}
