package io.pinshard.cli;

import java.util.List;
import java.util.Locale;

/**
 * The sweep's answer: how many loader workers (and cores) {@code gpus} GPUs training at {@code gpuRate}
 * images/s each need, from images/s measured at 1..N workers on this machine. Pure arithmetic, no I/O.
 *
 * <p>Where a measured worker count reaches the need, the answer is the smallest such count. Otherwise it is
 * extrapolated from the rate per worker measured with every core of this machine busy (the measured point
 * with the most workers not above the core count): that rate already pays for memory bandwidth and
 * hyper-threading contention here, so it is the honest per-worker figure to scale by, not the 1-worker one.
 * Cores are workers plus one per GPU for the training process that launches its steps.
 */
final class SweepSizing {
    /** One measured point. */
    record Point(int workers, double imagesPerSecond) {
    }

    /**
     * @param workers        loader workers needed
     * @param cores          workers + one core per GPU
     * @param measured       whether a measured point reached the need (else extrapolated)
     * @param perWorkerRate  images/s per worker the extrapolation used (the reaching point's rate / workers when measured)
     * @param basisWorkers   the worker count that rate was measured at
     */
    record Answer(double needImagesPerSecond, int workers, int cores, boolean measured, double perWorkerRate,
                  int basisWorkers) {
    }

    private SweepSizing() {
    }

    /**
     * @param points  measured points, any order, worker counts >= 1, rates >= 0
     * @param cores   this machine's cores (the extrapolation basis is the point with the most workers <= cores)
     * @throws IllegalArgumentException for no points, a non-positive rate or GPU count, or no point with
     *                                  positive throughput at or below the core count
     */
    static Answer size(List<Point> points, double gpuRate, int gpus, int cores) {
        if (points.isEmpty() || !(gpuRate > 0) || gpus < 1 || cores < 1) {
            throw new IllegalArgumentException("need measured points, --gpu-rate > 0, --gpus >= 1 and cores >= 1");
        }
        double need = gpuRate * gpus;
        Point reaching = null;
        Point basis = null;
        for (Point p : points) {
            if (p.workers() < 1 || !(p.imagesPerSecond() >= 0)) {
                throw new IllegalArgumentException("bad sweep point " + p);
            }
            if (p.imagesPerSecond() >= need && (reaching == null || p.workers() < reaching.workers())) {
                reaching = p;
            }
            if (p.workers() <= cores && p.imagesPerSecond() > 0 && (basis == null || p.workers() > basis.workers())) {
                basis = p;
            }
        }
        if (reaching != null) {
            return new Answer(need, reaching.workers(), reaching.workers() + gpus, true,
                reaching.imagesPerSecond() / reaching.workers(), reaching.workers());
        }
        if (basis == null) {
            throw new IllegalArgumentException("no measured point with images/s > 0 at or below " + cores + " workers");
        }
        double perWorker = basis.imagesPerSecond() / basis.workers();
        // A hair under an integer (6.0000000001 from rounding) is that integer, not one more worker.
        int workers = (int) Math.ceil(need / perWorker - 1e-9);
        return new Answer(need, workers, workers + gpus, false, perWorker, basis.workers());
    }

    /** The answer as a sentence: "G GPUs at R images/s each need W workers (C cores) with these shards; this machine has K". */
    static String sentence(Answer answer, String shards, double gpuRate, int gpus, int cores) {
        String how = answer.measured()
            ? String.format(Locale.ROOT, "measured: %,.0f images/s at %d workers", answer.perWorkerRate() * answer.workers(),
                answer.workers())
            : String.format(Locale.ROOT, "extrapolated from %,.0f images/s per worker measured at %d worker%s",
                answer.perWorkerRate(), answer.basisWorkers(), answer.basisWorkers() == 1 ? "" : "s");
        return String.format(Locale.ROOT, "%d GPU%s at %,.0f images/s each need %d workers (%d cores) with these shards"
                + " (%s; %s); this machine has %d", gpus, gpus == 1 ? "" : "s", gpuRate, answer.workers(), answer.cores(),
            shards, how, cores);
    }
}
