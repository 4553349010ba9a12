package io.pinshard.jmh;

import java.lang.management.ManagementFactory;
import java.util.List;

/**
 * The JVM flags pinshard needs (root pom property {@code pinshard.jvm.flags}; a test keeps the two
 * equal). {@link PinshardBenchmark}'s {@code @Fork} appends them to every forked JVM; on JDK 24+ the
 * forks also need {@value #JDK24_UNSAFE}, which JDK 17 refuses, so it comes from the parent JVM's own
 * arguments (JMH passes those to forks): {@code jmh/run.sh} adds it.
 */
public final class ForkFlags {
    public static final String EXPORT_MISC = "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED";
    public static final String OPEN_REFLECT = "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED";
    public static final String EXPORT_NIO_CH = "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED";
    public static final String EXPORT_REF = "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED";
    public static final String NATIVE_ACCESS = "--enable-native-access=ALL-UNNAMED";
    public static final String NO_ANALYTICS = "-Dchronicle.analytics.disable=true";
    /** The loader's vector crop kernel (see Resampler); without it the loader falls back to OpenCV. */
    public static final String VECTOR_MODULE = "--add-modules=jdk.incubator.vector";
    public static final String JDK24_UNSAFE = "--sun-misc-unsafe-memory-access=allow";

    /** In the order of the pom property. */
    public static final List<String> ALL = List.of(EXPORT_MISC, OPEN_REFLECT, EXPORT_NIO_CH, EXPORT_REF, NATIVE_ACCESS,
        NO_ANALYTICS, VECTOR_MODULE);

    private ForkFlags() {
    }

    /** The flags this JVM is missing (the JDK 24+ one only where it applies). */
    public static List<String> missing(List<String> inputArguments, int javaFeature) {
        List<String> wanted = javaFeature >= 24
            ? java.util.stream.Stream.concat(ALL.stream(), java.util.stream.Stream.of(JDK24_UNSAFE)).toList() : ALL;
        return wanted.stream().filter(flag -> !inputArguments.contains(flag)).toList();
    }

    /** Fails a benchmark fork that was started without the flags, saying how to run it. */
    public static void requirePresent() {
        List<String> missing = missing(ManagementFactory.getRuntimeMXBean().getInputArguments(),
            Runtime.version().feature());
        if (missing.contains(JDK24_UNSAFE) && missing.size() == 1) {
            System.err.println("pinshard-jmh: warning: this JDK 24+ fork lacks " + JDK24_UNSAFE
                + " (Agrona will warn); run through jmh/run.sh or pass it to the parent java");
        } else if (!missing.isEmpty()) {
            throw new IllegalStateException("this benchmark JVM lacks " + missing + ": run jmh/run.sh, or java "
                + String.join(" ", ALL) + " -jar jmh/target/benchmarks.jar ...");
        }
    }
}
