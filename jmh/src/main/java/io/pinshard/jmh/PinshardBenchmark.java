package io.pinshard.jmh;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Common settings of every pinshard benchmark (JMH applies a superclass's annotations to subclasses):
 * one fork with a 2 GiB heap, short default iterations that {@code jmh/run.sh} overrides. The fork gets
 * pinshard's JVM flags from the parent JVM or from {@link BenchmarksMain}; subclasses call
 * {@link ForkFlags#requirePresent()} in their trial setup.
 */
@Fork(value = 1, jvmArgsAppend = PinshardBenchmark.FORK_HEAP)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@OutputTimeUnit(TimeUnit.SECONDS)
public abstract class PinshardBenchmark {
    /** Every fork's heap. */
    public static final String FORK_HEAP = "-Xmx2g";
}
