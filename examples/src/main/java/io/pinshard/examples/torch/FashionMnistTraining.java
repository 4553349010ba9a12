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
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Locale;
import org.bytedeco.javacpp.PointerScope;
import org.bytedeco.pytorch.Adam;
import org.bytedeco.pytorch.AdamOptions;
import org.bytedeco.pytorch.OptimizerOptions;
import org.bytedeco.pytorch.LongOptional;
import org.bytedeco.pytorch.NoGradGuard;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch;

/**
 * Trains {@link FashionMnistNet} on Fashion-MNIST from two pinshard datasets (scripts/fetch-fashion-mnist.sh) through
 * the libtorch adapter, and scores the test split after every epoch.
 *
 * <ul>
 *   <li>Train: random order, random-resized-crop back to 28 x 28 with area scale {@link Config#scaleMin}..1
 *       (default 0.6: torchvision's 0.08 throws away most of a 28-pixel garment, which costs several points in five
 *       epochs; 0.6 keeps at least 60 % of the image and still varies position and size) and aspect 3/4..4/3, and a
 *       horizontal flip with probability 0.5 (garments are left-right symmetric). Batches of 128, last one dropped.</li>
 *   <li>Test: {@code LoaderMode.EVAL} with {@code evalCropFraction(1.0)}: the stored 28 x 28 images, unchanged.</li>
 *   <li>Adam, learning rate 1e-3 decayed to 0 along a cosine over the run's steps ({@link #cosineLearningRate}:
 *       the last epoch's accuracy then settles instead of swinging by half a point from run to run, which is
 *       what comparing two loaders needs), cross-entropy; {@code (x / 255 - 0.2860) / 0.3530} per channel
 *       (Fashion-MNIST's mean and standard deviation).</li>
 *   <li>Deterministic: the loader's order and crops follow its seed whatever the worker count; libtorch gets
 *       {@code manual_seed(seed)} (weight initialisation), deterministic algorithms and a fixed thread count, so the
 *       same seed gives the same loss at every step, run after run.</li>
 * </ul>
 */
public final class FashionMnistTraining {
    /** Fashion-MNIST's pixel mean on the 0..1 scale (the same constant in the PyTorch baseline). */
    public static final float MEAN = 0.2860f;
    /** Fashion-MNIST's pixel standard deviation on the 0..1 scale. */
    public static final float STD = 0.3530f;
    /** Images per training batch. */
    public static final int BATCH_SIZE = 128;
    private static final int SIDE = 28;
    private static final int EVAL_BATCH = 500;

    private FashionMnistTraining() {
    }

    /** What to train; mutable, with the example's defaults. */
    public static final class Config {
        private final Path train;
        private final Path test;
        private int epochs = 5;
        private int stepsPerEpoch;
        private double scaleMin = 0.6;
        private double learningRate = 1e-3;
        private long seed = 42;
        private int workers = 2;
        private int threads = 2;
        private int printEvery = 50;
        private boolean scoreEachEpoch = true;
        private boolean scoreTest = true;
        private PrintStream out = System.out;

        /** Train on the dataset at {@code train}, score on {@code test}. */
        public Config(Path train, Path test) {
            this.train = train;
            this.test = test;
        }

        /** Epochs to train (5). */
        public Config epochs(int value) { epochs = value; return this; }
        /** Stop each epoch after this many batches (0: the whole epoch): a random subset of the training set. */
        public Config stepsPerEpoch(int value) { stepsPerEpoch = value; return this; }
        /** Random-resized-crop's smallest area fraction (0.6); the largest is 1. */
        public Config scaleMin(double value) { scaleMin = value; return this; }
        /** Adam's learning rate (1e-3). */
        public Config learningRate(double value) { learningRate = value; return this; }
        /** Seed of the loader's order and crops and of libtorch's initialisation (42). */
        public Config seed(long value) { seed = value; return this; }
        /** Loader worker threads. */
        public Config workers(int value) { workers = value; return this; }
        /** libtorch intra-op threads. */
        public Config threads(int value) { threads = value; return this; }
        /** Print every n-th step's line (0: none). */
        public Config printEvery(int value) { printEvery = value; return this; }
        /** Where progress lines go (System.out). */
        public Config out(PrintStream value) { out = value; return this; }
        /** Score the test split after every epoch (default), or only after the last. */
        public Config scoreEachEpoch(boolean value) { scoreEachEpoch = value; return this; }
        /** Score the test split at all (default); without, the accuracies are NaN. */
        public Config scoreTest(boolean value) { scoreTest = value; return this; }

    }

    /**
     * What a run gave.
     *
     * @param accuracy        top-1 on the test split after the last epoch, 0..1
     * @param epochAccuracy   top-1 after each epoch (NaN where not scored)
     * @param testImages      images scored
     * @param wallSeconds     training and scoring, from the first batch asked for to the last score
     * @param log             every training step
     * @param dataWaitWarned  whether the training loader's data-wait warning fired
     * @param dataWaitPercent the training loader's data-wait share of step time over the run, in percent
     */
    public record Result(double accuracy, double[] epochAccuracy, long testImages, double wallSeconds, StepLog log,
                         boolean dataWaitWarned, double dataWaitPercent) {
    }

    /**
     * The learning rate of step {@code step} (0-based) of {@code total}: {@code base * (1 + cos(pi * step / total))
     * / 2}, from {@code base} at the first step down towards 0 at the last (the PyTorch baseline sets the same).
     */
    public static double cosineLearningRate(double base, long step, long total) {
        return base * 0.5 * (1 + Math.cos(Math.PI * step / total));
    }

    /** Trains and scores as {@code config} says. */
    public static Result run(Config config) {
        Libtorch.require();
        Libtorch.setThreads(config.threads);
        torch.manual_seed(config.seed);
        torch.globalContext().setDeterministicAlgorithms(true, false);
        TorchOptions normalize = TorchOptions.normalize(new float[] {MEAN, MEAN, MEAN}, new float[] {STD, STD, STD});
        LoaderOptions trainOptions = LoaderOptions.builder()
            .batchSize(BATCH_SIZE).crop(SIDE).workers(config.workers).shuffle(true).seed(config.seed).dropLast(true)
            .train().scale(config.scaleMin, 1.0).ratio(3.0 / 4.0, 4.0 / 3.0).flipProbability(0.5)
            .build();
        LoaderOptions testOptions = LoaderOptions.builder()
            .batchSize(EVAL_BATCH).crop(SIDE).workers(config.workers).shuffle(false)
            .eval().evalCropFraction(1.0)
            .build();
        try (Dataset trainSet = Dataset.open(config.train); Dataset testSet = Dataset.open(config.test);
             Loader trainLoader = Loader.open(trainSet, trainOptions);
             Loader testLoader = Loader.open(testSet, testOptions);
             TorchLoader trainBatches = TorchLoader.of(trainLoader, normalize);
             TorchLoader testBatches = TorchLoader.of(testLoader, normalize);
             FashionMnistNet net = new FashionMnistNet();
             Adam adam = new Adam(net.parameters(), new AdamOptions(config.learningRate))) {
            if (!trainSet.classes().equals(testSet.classes()) || trainSet.classes().size() != 10) {
                throw new IllegalArgumentException("train and test must have the same 10 classes: "
                    + trainSet.classes() + " vs " + testSet.classes());
            }
            long perEpoch = config.stepsPerEpoch > 0
                ? Math.min(config.stepsPerEpoch, trainLoader.batchesPerEpoch()) : trainLoader.batchesPerEpoch();
            long totalSteps = perEpoch * config.epochs;
            StepLog log = new StepLog(Math.toIntExact(totalSteps));
            OptimizerOptions adamOptions = adam.param_groups().get(0).options(); // the group's own, not a copy
            DataWaitMonitor dataWait = trainLoader.dataWait();
            double[] epochAccuracy = new double[config.epochs];
            long testImages = 0;
            config.out.printf(Locale.ROOT, "training %s: %d images (%d steps of %d per epoch), %d epochs, %d loader "
                    + "workers, %d libtorch threads, random-resized-crop scale %.2f-1.00 + flip, Adam lr %s (cosine to 0), "
                + "seed %d%n",
                config.train, perEpoch * BATCH_SIZE, perEpoch, BATCH_SIZE, config.epochs, config.workers,
                Libtorch.threads(), config.scaleMin, config.learningRate, config.seed);
            long started = System.nanoTime();
            for (int epoch = 0; epoch < config.epochs; epoch++) {
                net.train(true);
                try (TorchEpoch batches = trainBatches.epoch(epoch)) {
                    TrainingStep clock = new TrainingStep();
                    for (long s = 0; s < perEpoch && batches.hasNext(); s++) {
                        TorchBatch batch = batches.next();
                        long wait = dataWait.lastWaitNanos();
                        long stepNanos = clock.stepNanos(wait);
                        adamOptions.set_lr(cosineLearningRate(config.learningRate, log.steps(), totalSteps));
                        float loss = TrainingStep.run(adam, net::forward, batch);
                        log.record(epoch, loss, stepNanos, wait);
                        int n = log.steps() - 1;
                        if (config.printEvery > 0 && n % config.printEvery == 0) {
                            config.out.println(log.line(n));
                        }
                    }
                }
                if (!config.scoreTest || !config.scoreEachEpoch && epoch < config.epochs - 1) {
                    epochAccuracy[epoch] = Double.NaN;
                    continue;
                }
                long[] score = score(net, testBatches);
                testImages = score[1];
                epochAccuracy[epoch] = (double) score[0] / score[1];
                config.out.printf(Locale.ROOT, "epoch %d: test top-1 %.2f %% of %d images, %.1f s, data-wait %.2f %% "
                        + "of step time so far%n", epoch, 100 * epochAccuracy[epoch], score[1],
                    (System.nanoTime() - started) / 1e9, dataWait.dataWaitPercent());
            }
            double wall = (System.nanoTime() - started) / 1e9;
            return new Result(epochAccuracy[config.epochs - 1], epochAccuracy, testImages, wall, log,
                dataWait.warned(), dataWait.dataWaitPercent());
        }
    }

    /** {correct, scored} over the whole test split, in eval mode. */
    @SuppressWarnings("try") // the scope and the no-grad guard act by being open
    static long[] score(FashionMnistNet net, TorchLoader test) {
        net.eval();
        long correct = 0;
        long total = 0;
        try (TorchEpoch batches = test.epoch(0); NoGradGuard noGrad = new NoGradGuard()) {
            for (TorchBatch batch : batches) {
                try (batch; PointerScope step = new PointerScope()) {
                    Tensor predicted = net.forward(batch.normalized()).argmax(new LongOptional(1), false);
                    correct += predicted.eq(batch.labels()).sum().item_long();
                    total += batch.size();
                }
            }
        }
        return new long[] {correct, total};
    }
}
