package io.pinshard.jmh;

import io.pinshard.memory.HeapCounter;
import java.io.IOException;
import java.util.Arrays;

/**
 * {@link CropKernelBenchmark}'s kernel against its {@code copy-output} reference (or another work, e.g.
 * {@code vector-yuv420} against {@code vector}), interleaved: short rounds of
 * each, alternating, in one JVM and one thread. On a machine other builds share, JMH's one-parameter-after-the-other
 * runs put minutes between the two figures and the ratio moves by 2x; alternating rounds of 0.1 s see the same
 * load, and the median of the per-round ratios is the figure. Also counts heap bytes per crop over all rounds.
 *
 * <p>{@code java <pinshard.jvm.flags> -cp jmh/target/benchmarks.jar io.pinshard.jmh.CropKernelRatio [rounds] [work] [reference]}
 * ({@code scripts/bench-crop-kernel.sh} passes the flags).
 */
public final class CropKernelRatio {
    private static final int CROPS_PER_ROUND = 1000;

    private CropKernelRatio() {
    }

    public static void main(String[] args) throws IOException {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 40;
        String work = args.length > 1 ? args[1] : "vector";
        String reference = args.length > 2 ? args[2] : "copy-output";
        CropKernelBenchmark kernel = benchmark(work);
        CropKernelBenchmark copy = benchmark(reference);
        double[] ratios = new double[rounds];
        double[] kernelRates = new double[rounds];
        double[] copyRates = new double[rounds];
        long kernelHeap = 0;
        for (int r = 0; r < rounds; r++) {
            long before = HeapCounter.currentThreadAllocatedBytes();
            double kernelRate = rate(kernel);
            kernelHeap += HeapCounter.currentThreadAllocatedBytes() - before;
            double copyRate = rate(copy);
            kernelRates[r] = kernelRate;
            copyRates[r] = copyRate;
            ratios[r] = kernelRate / copyRate;
        }
        kernel.tearDown();
        copy.tearDown();
        System.out.printf("%s %.0f crops/s, %s %.0f crops/s (medians of %d alternating rounds of %d)%n", work,
            median(kernelRates), reference, median(copyRates), rounds, CROPS_PER_ROUND);
        System.out.printf("%s / %s: median %.1f %%, quartiles %.1f-%.1f %%; heap %.2f B per crop%n", work, reference,
            100 * median(ratios), 100 * quantile(ratios, 0.25), 100 * quantile(ratios, 0.75),
            (double) kernelHeap / rounds / CROPS_PER_ROUND);
    }

    private static CropKernelBenchmark benchmark(String work) throws IOException {
        CropKernelBenchmark benchmark = new CropKernelBenchmark();
        benchmark.work = work;
        benchmark.records = 1024;
        benchmark.crop = 224;
        benchmark.setUp();
        for (int i = 0; i < 20; i++) {
            rate(benchmark);
        }
        return benchmark;
    }

    private static double rate(CropKernelBenchmark benchmark) {
        long start = System.nanoTime();
        long sink = 0;
        for (int i = 0; i < CROPS_PER_ROUND; i++) {
            sink += benchmark.cropOneImage();
        }
        long elapsed = System.nanoTime() - start;
        if (sink == 42) {
            System.out.print("");
        }
        return CROPS_PER_ROUND * 1e9 / elapsed;
    }

    private static double median(double[] values) {
        return quantile(values, 0.5);
    }

    private static double quantile(double[] values, double q) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[(int) Math.round(q * (sorted.length - 1))];
    }
}
