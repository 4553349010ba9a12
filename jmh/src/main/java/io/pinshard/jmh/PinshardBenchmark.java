package io.pinshard.jmh;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Common settings of every pinshard benchmark (JMH applies a superclass's annotations to subclasses):
 * one fork that gets pinshard's JVM flags, short default iterations that {@code jmh/run.sh} overrides.
 * Subclasses call {@link ForkFlags#requirePresent()} in their trial setup.
 */
@Fork(value = 1, jvmArgsAppend = {ForkFlags.EXPORT_MISC, ForkFlags.OPEN_REFLECT, ForkFlags.EXPORT_NIO_CH,
    ForkFlags.EXPORT_REF, ForkFlags.NATIVE_ACCESS, ForkFlags.NO_ANALYTICS, ForkFlags.VECTOR_MODULE, "-Xmx2g"})
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@OutputTimeUnit(TimeUnit.SECONDS)
public abstract class PinshardBenchmark {
}
