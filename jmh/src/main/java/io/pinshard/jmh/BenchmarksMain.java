package io.pinshard.jmh;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code benchmarks.jar}'s main: JMH's own {@link org.openjdk.jmh.Main}, after appending to every fork the
 * pinshard JVM flags this JVM lacks ({@link ForkFlags}; JMH starts a fork with the parent's flags, then the
 * {@code -jvmArgsAppend} ones) and the forks' heap. So {@code java -jar jmh/target/benchmarks.jar} works with
 * or without the flags on the parent, on JDK 17 and 24+ alike.
 */
public final class BenchmarksMain {
    private static final String APPEND = "-jvmArgsAppend";

    private BenchmarksMain() {
    }

    public static void main(String[] args) throws Exception {
        org.openjdk.jmh.Main.main(withForkFlags(args, ManagementFactory.getRuntimeMXBean().getInputArguments(),
            Runtime.version().feature()));
    }

    /**
     * {@code args} with a single {@code -jvmArgsAppend}: the flags missing from {@code parentFlags}, the fork
     * heap, then what the caller appended (JMH would keep only a command line's append, and split only one).
     */
    static String[] withForkFlags(String[] args, List<String> parentFlags, int javaFeature) {
        List<String> append = new ArrayList<>(ForkFlags.missing(parentFlags, javaFeature));
        append.add(PinshardBenchmark.FORK_HEAP);
        List<String> out = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals(APPEND) && i + 1 < args.length) {
                append.add(args[++i]);
            } else if (args[i].startsWith(APPEND + "=")) {
                append.add(args[i].substring(APPEND.length() + 1));
            } else {
                out.add(args[i]);
            }
        }
        out.add(0, APPEND);
        out.add(1, String.join(" ", append));
        return out.toArray(String[]::new);
    }
}
