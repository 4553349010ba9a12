package io.pinshard.jmh;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

/**
 * The JVM flags pinshard needs, as the root pom's {@code pinshard.jvm.flags} and {@code pinshard.jvm.jdk24Flags}
 * say (Maven filters them into {@code jvm-flags.properties}): {@link BenchmarksMain} appends the ones the
 * parent JVM lacks to every fork, and each benchmark checks them in its trial setup.
 */
public final class ForkFlags {
    /** {@code pinshard.jvm.flags}: every JDK. */
    public static final List<String> ALL;
    /** {@code pinshard.jvm.jdk24Flags}: JDK 24 and later only (JDK 17 refuses them). */
    public static final List<String> JDK24;

    static {
        Properties properties = new Properties();
        try (InputStream in = ForkFlags.class.getResourceAsStream("jvm-flags.properties")) {
            if (in == null) {
                throw new IllegalStateException("jvm-flags.properties is missing from the benchmark jar");
            }
            properties.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ALL = split(properties.getProperty("flags", ""));
        JDK24 = split(properties.getProperty("jdk24", ""));
    }

    private ForkFlags() {
    }

    private static List<String> split(String flags) {
        if (flags.contains("${")) {
            throw new IllegalStateException("jvm-flags.properties was not filtered by Maven: " + flags);
        }
        return flags.isBlank() ? List.of() : List.of(flags.trim().split("\\s+"));
    }

    /** The flags a JVM of feature release {@code javaFeature} needs. */
    public static List<String> wanted(int javaFeature) {
        List<String> wanted = new ArrayList<>(ALL);
        if (javaFeature >= 24) {
            wanted.addAll(JDK24);
        }
        return List.copyOf(wanted);
    }

    /** The flags this JVM is missing (the JDK 24+ ones only where they apply). */
    public static List<String> missing(List<String> inputArguments, int javaFeature) {
        return wanted(javaFeature).stream().filter(flag -> !inputArguments.contains(flag)).toList();
    }

    /** Fails a benchmark fork that was started without the flags, saying how to run it. */
    public static void requirePresent() {
        List<String> missing = missing(ManagementFactory.getRuntimeMXBean().getInputArguments(),
            Runtime.version().feature());
        if (!missing.isEmpty() && JDK24.containsAll(missing)) {
            System.err.println("pinshard-jmh: warning: this JDK 24+ fork lacks " + missing
                + " (LZ4 and JavaCPP will warn); run through jmh/run.sh or java -jar jmh/target/benchmarks.jar");
        } else if (!missing.isEmpty()) {
            throw new IllegalStateException("this benchmark JVM lacks " + missing + ": run jmh/run.sh or java -jar "
                + "jmh/target/benchmarks.jar (its main appends them to the forks), or java " + String.join(" ", ALL)
                + " ... with the JMH API");
        }
    }
}
