package io.pinshard.reader;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Child JVMs for tests that need a second process (a JVM missing a flag, a process killed or crashing):
 * this JVM's {@code java}, the pinshard flags surefire started this JVM with (the root pom's
 * {@code pinshard.jvm.flags}, plus the JDK 24+ one), this class path. In the reader's test-jar, for other
 * modules' tests too.
 */
public final class ChildJvm {
    /** The kinds of option the root pom's flag properties hold; agents and heap sizes are not passed on. */
    private static final List<String> PINSHARD_FLAG_PREFIXES = List.of("--add-", "--enable-native-access",
        "--sun-misc-unsafe-memory-access");

    private ChildJvm() {
    }

    /** The pinshard flags of this JVM. */
    public static List<String> pinshardFlags() {
        List<String> flags = new ArrayList<>();
        for (String flag : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (PINSHARD_FLAG_PREFIXES.stream().anyMatch(flag::startsWith)) {
                flags.add(flag);
            }
        }
        return List.copyOf(flags);
    }

    /** {@code java}, {@code options} (flags, properties), {@code -cp} this class path, {@code main}, {@code args}. */
    public static List<String> command(List<String> options, Class<?> main, String... args) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(options);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), main.getName()));
        command.addAll(List.of(args));
        return command;
    }
}
