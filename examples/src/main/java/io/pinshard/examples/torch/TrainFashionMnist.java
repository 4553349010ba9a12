package io.pinshard.examples.torch;

import java.nio.file.Path;
import java.util.Locale;

/**
 * The Fashion-MNIST training example's command line (scripts/train-fashion-mnist.sh runs it):
 *
 * <pre>
 * TrainFashionMnist [--data DIR] [--out DIR] [--epochs 5] [--steps-per-epoch 0] [--scale-min 0.6] [--lr 0.001]
 *                   [--seed 42] [--workers 2] [--threads 2] [--print-every 50]
 * </pre>
 *
 * DIR holds the {@code train} and {@code test} datasets of scripts/fetch-fashion-mnist.sh. Prints every
 * {@code --print-every}-th step, each epoch's test accuracy, and at the end the final accuracy, epochs, wall time and
 * data-wait share; writes every step's line to {@code OUT/steps.log} and the chart of loss and data-wait % per step to
 * {@code OUT/training.png}. Exit status 0, or 1 when the test accuracy stays under {@code --min-accuracy} (0: no bar).
 */
public final class TrainFashionMnist {
    private TrainFashionMnist() {
    }

    /** Runs the example; see the class comment for the options. */
    public static void main(String[] args) throws Exception {
        Path data = Path.of(System.getProperty("user.home"), ".cache", "pinshard", "fashion-mnist");
        Path out = Path.of("train-fashion-mnist");
        double minAccuracy = 0;
        int epochs = 5;
        int stepsPerEpoch = 0;
        double scaleMin = 0.6;
        double lr = 1e-3;
        long seed = 42;
        int workers = 2;
        int threads = 2;
        int printEvery = 50;
        for (int i = 0; i < args.length; i++) {
            String value = i + 1 < args.length ? args[i + 1] : null;
            switch (args[i]) {
                case "--data" -> data = Path.of(need(args[i], value));
                case "--out" -> out = Path.of(need(args[i], value));
                case "--epochs" -> epochs = Integer.parseInt(need(args[i], value));
                case "--steps-per-epoch" -> stepsPerEpoch = Integer.parseInt(need(args[i], value));
                case "--scale-min" -> scaleMin = Double.parseDouble(need(args[i], value));
                case "--lr" -> lr = Double.parseDouble(need(args[i], value));
                case "--seed" -> seed = Long.parseLong(need(args[i], value));
                case "--workers" -> workers = Integer.parseInt(need(args[i], value));
                case "--threads" -> threads = Integer.parseInt(need(args[i], value));
                case "--print-every" -> printEvery = Integer.parseInt(need(args[i], value));
                case "--min-accuracy" -> minAccuracy = Double.parseDouble(need(args[i], value));
                default -> {
                    System.err.println("unknown option " + args[i] + " (see the class's Javadoc)");
                    System.exit(2);
                }
            }
            i++;
        }
        FashionMnistTraining.Config config = new FashionMnistTraining.Config(data.resolve("train"), data.resolve("test"))
            .epochs(epochs).stepsPerEpoch(stepsPerEpoch).scaleMin(scaleMin).learningRate(lr).seed(seed)
            .workers(workers).threads(threads).printEvery(printEvery);
        FashionMnistTraining.Result result = FashionMnistTraining.run(config);
        StepLog log = result.log();
        Path steps = out.resolve("steps.log");
        Path chart = out.resolve("training.png");
        TrainingChart.write(log, String.format(Locale.ROOT, "Fashion-MNIST, pinshard loader -> libtorch: %d epochs, "
            + "test top-1 %.2f %%", epochs, 100 * result.accuracy()), chart);
        log.write(steps);
        int tail = Math.min(50, log.steps());
        System.out.printf(Locale.ROOT, "final: test top-1 %.2f %% (%d images) after %d epochs, %d steps, wall %.1f s; "
                + "loss first %d steps %.4f, last %d %.4f; data-wait %.2f %% of step time (10 %% warning fired: %s)%n",
            100 * result.accuracy(), result.testImages(), epochs, log.steps(), result.wallSeconds(), tail,
            log.meanLoss(0, tail), tail, log.meanLoss(log.steps() - tail, log.steps()), result.dataWaitPercent(),
            result.dataWaitWarned() ? "yes" : "no");
        System.out.println("per-step log: " + steps.toAbsolutePath());
        System.out.println("chart: " + chart.toAbsolutePath());
        if (result.accuracy() < minAccuracy) {
            System.err.printf(Locale.ROOT, "test top-1 %.2f %% is under --min-accuracy %.2f %%%n",
                100 * result.accuracy(), 100 * minAccuracy);
            System.exit(1);
        }
    }

    private static String need(String option, String value) {
        if (value == null) {
            System.err.println(option + " needs a value");
            System.exit(2);
        }
        return value;
    }
}
