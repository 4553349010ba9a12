package io.pinshard.acceptance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./pinshard} where no usable java is: none on the PATH, a JAVA_HOME without bin/java, a Java older than 17.
 * Each time one line on stderr that says what is wrong and how to fix it, nothing on stdout, exit 1 (before, the
 * first two ended with status 127 or 1 and bash's own words, the third with the JVM's UnsupportedClassVersionError).
 * The PATH is a folder with copies of the few commands the launcher runs before it looks for java.
 */
@Tag("process")
class LauncherWithoutJavaTest {
    @TempDir
    Path temp;

    @Test
    void noJavaOnThePath() throws Exception {
        Launcher.Result result = run(null);
        assertOneLineFix(result, "pinshard: no java found: JAVA_HOME is not set and there is no java on the PATH");
    }

    @Test
    void aJavaHomeWithoutJava() throws Exception {
        Path home = Files.createDirectories(temp.resolve("not-a-jdk"));
        Launcher.Result result = run(home);
        assertOneLineFix(result, "pinshard: JAVA_HOME is " + home + ", which has no bin/java");
    }

    @Test
    void aJavaOlderThan17() throws Exception {
        Path jdk = Files.createDirectories(temp.resolve("jdk11/bin"));
        Path java = jdk.resolve("java");
        Files.writeString(java, "#!/bin/sh\necho 'this java 11 must not be run' >&2\nexit 3\n");
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.writeString(temp.resolve("jdk11/release"), "JAVA_VERSION=\"11.0.20\"\n");
        Launcher.Result result = run(temp.resolve("jdk11"));
        assertOneLineFix(result, "pinshard: " + java + " is Java 11 (from JAVA_HOME), pinshard needs 17 or later");
    }

    private static void assertOneLineFix(Launcher.Result result, String start) {
        assertEquals(1, result.status(), result.toString());
        assertEquals("", result.stdout(), result.toString());
        String[] lines = result.stderr().split("\n");
        assertEquals(1, lines.length, "one line: " + result);
        assertTrue(lines[0].startsWith(start), result.toString());
        assertTrue(lines[0].contains("install Java 17 or later (Debian/Ubuntu: sudo apt-get install "
            + "openjdk-17-jdk-headless) or point JAVA_HOME at one"), result.toString());
    }

    private Launcher.Result run(Path javaHome) throws Exception {
        ProcessBuilder builder = Launcher.pinshard(Files.createDirectories(temp.resolve("home")), "--version");
        builder.environment().put("PATH", pathWithoutJava().toString());
        builder.environment().remove("JAVA_HOME");
        if (javaHome != null) {
            builder.environment().put("JAVA_HOME", javaHome.toString());
        }
        return Launcher.run(builder, temp.resolve("logs"), 60);
    }

    /** A folder with copies of the commands the launcher runs before it looks for java, and no java. */
    private Path pathWithoutJava() throws IOException {
        Path bin = temp.resolve("bin");
        if (Files.isDirectory(bin)) {
            return bin;
        }
        Files.createDirectories(bin);
        for (String command : List.of("bash", "dirname", "readlink", "find", "sed")) {
            Path found = Stream.of("/usr/bin", "/bin").map(folder -> Path.of(folder, command)).filter(Files::isExecutable)
                .findFirst().orElseThrow(() -> new AssertionError("no " + command + " in /usr/bin or /bin"));
            Files.copy(found, bin.resolve(command), StandardCopyOption.COPY_ATTRIBUTES);
        }
        return bin;
    }
}
