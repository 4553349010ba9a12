package io.pinshard.jmh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The JVM flags have one home, the root pom: no launcher or script spells a flag out (they ask
 * scripts/jvm-flags.sh), and the flags of Chronicle, which pinshard does not use, are gone from everywhere.
 */
class JvmFlagsHomeTest {
    static final List<String> FLAG_PREFIXES = List.of("--add-exports=", "--add-opens=", "--add-modules=",
        "--enable-native-access=", "--sun-misc-unsafe-memory-access=", "-Dchronicle");

    /** The checkout's root: {@code pinshard.repo} (the root pom sets it for surefire), else the parent folder. */
    static Path repo() {
        return Path.of(System.getProperty("pinshard.repo", "..")).toAbsolutePath().normalize();
    }

    static List<Path> scripts() throws IOException {
        List<Path> scripts = new ArrayList<>(List.of(repo().resolve("pinshard"), repo().resolve("jmh/run.sh")));
        for (String dir : List.of("scripts", "cuda-bridge")) {
            try (Stream<Path> files = Files.list(repo().resolve(dir))) {
                files.filter(f -> f.toString().endsWith(".sh") || f.toString().endsWith(".py")).sorted().forEach(scripts::add);
            }
        }
        return scripts;
    }

    @Test
    void noScriptSpellsTheFlagsOut() throws IOException {
        List<String> found = new ArrayList<>();
        for (Path script : scripts()) {
            String name = repo().relativize(script).toString().replace('\\', '/');
            if (name.equals("scripts/jvm-flags.sh")) {
                continue;
            }
            List<String> lines = Files.readAllLines(script);
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i);
                if (!line.stripLeading().startsWith("#") && FLAG_PREFIXES.stream().anyMatch(line::contains)) {
                    found.add(name + ":" + (i + 1) + ": " + line.strip());
                }
            }
        }
        assertEquals(List.of(), found, "flags spelled out instead of read through scripts/jvm-flags.sh");
    }

    @Test
    void surefireRunsTestsWithThemOnThisJdk() {
        // The argLine reads the pom property; on JDK 24+ the jdk24-unsafe profile adds pinshard.jvm.jdk24Flags.
        assertEquals(List.of(), ForkFlags.missing(ManagementFactory.getRuntimeMXBean().getInputArguments(),
            Runtime.version().feature()));
    }

    @Test
    void chronicleIsGone() throws IOException {
        List<String> poms = new ArrayList<>();
        poms.add("pom.xml");
        try (Stream<Path> modules = Files.list(repo())) {
            modules.filter(m -> Files.exists(m.resolve("pom.xml")))
                .forEach(m -> poms.add(m.getFileName() + "/pom.xml"));
        }
        for (String pom : poms) {
            String text = Files.readString(repo().resolve(pom)).toLowerCase(Locale.ROOT);
            assertTrue(!text.contains("chronicle") && !text.contains("openhft"), pom + " still names Chronicle");
        }
        for (String flag : ForkFlags.ALL) {
            assertTrue(!flag.contains("chronicle") && !flag.contains("java.lang.reflect") && !flag.contains("sun.nio.ch")
                && !flag.contains("jdk.internal.ref"), "a flag only Chronicle needed: " + flag);
        }
    }

    /** scripts/jvm-flags.sh's output for {@code args}, one line (it says nothing on stderr). */
    private static String jvmFlags(String... args) throws Exception {
        String[] outAndErr = script(javaThenArgs(List.of(), args));
        assertEquals("", outAndErr[1], "stderr of jvm-flags.sh " + String.join(" ", args));
        return outAndErr[0];
    }

    /** This JVM's java, then {@code args}, after {@code before}: the script's command line. */
    private static List<String> javaThenArgs(List<String> before, String... args) {
        List<String> line = new ArrayList<>(before);
        line.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        line.addAll(List.of(args));
        return line;
    }

    /** scripts/jvm-flags.sh {@code args}: its stdout and its stderr, stripped, after it exited 0. */
    private static String[] script(List<String> args) throws Exception {
        List<String> command = new ArrayList<>(List.of("bash", repo().resolve("scripts/jvm-flags.sh").toString()));
        command.addAll(args);
        Path err = Files.createTempFile("jvm-flags", ".err");
        try {
            Process process = new ProcessBuilder(command).redirectError(err.toFile()).start();
            String out = new String(process.getInputStream().readAllBytes()).strip();
            int status = process.waitFor();
            String stderr = Files.readString(err).strip();
            assertEquals(0, status, out + stderr);
            return new String[] {out, stderr};
        } finally {
            Files.deleteIfExists(err);
        }
    }

    private static String pomProperty(String name) throws IOException {
        String pom = Files.readString(repo().resolve("pom.xml"));
        int start = pom.indexOf("<" + name + ">");
        assertTrue(start >= 0, "root pom has no " + name);
        return pom.substring(start + name.length() + 2, pom.indexOf("</" + name + ">", start));
    }

    @org.junit.jupiter.api.Tag("process")
    @Test
    void theLauncherAddsConvertsFlagsAndTheClassDataArchiveFromThePom() throws Exception {
        String base = jvmFlags();
        assertTrue(base.startsWith(pomProperty("pinshard.jvm.flags")), base);
        assertEquals(base, jvmFlags("--command", "bench"), "only convert has flags of its own");
        assertEquals(base + " " + pomProperty("pinshard.jvm.convertFlags"), jvmFlags("--command", "convert"));
        assertEquals(base + " " + pomProperty("pinshard.jvm.cdsUseFlags").replace("@ARCHIVE@", "/tmp/x.jsa"),
            jvmFlags("--cds-use", "/tmp/x.jsa"));
        String list = jvmFlags("--command", "convert", "--cds-list", "/tmp/a.classlist");
        assertTrue(list.endsWith(pomProperty("pinshard.jvm.cdsListFlags").replace("@LIST@", "/tmp/a.classlist")), list);
        assertTrue(list.contains("-XX:DumpLoadedClassList=/tmp/a.classlist"), list);
        String dump = jvmFlags("--command", "convert", "--cds-dump", "/tmp/a.classlist", "/tmp/a.jsa");
        assertTrue(dump.endsWith(pomProperty("pinshard.jvm.cdsDumpFlags").replace("@LIST@", "/tmp/a.classlist")
            .replace("@ARCHIVE@", "/tmp/a.jsa")), dump);
        assertTrue(dump.contains("-XX:SharedClassListFile=/tmp/a.classlist -XX:SharedArchiveFile=/tmp/a.jsa"), dump);
    }

    /**
     * A class path with a folder on it gets no class-data flags (the JVM takes an archive over jar files only: a Spark
     * job that had succeeded ended with "Error occurred during initialization of VM"), and stderr says why; jar files
     * and a 'DIR/*' wildcard keep them.
     */
    @org.junit.jupiter.api.Tag("process")
    @Test
    void aClassPathWithAFolderGetsNoClassDataArchive(@org.junit.jupiter.api.io.TempDir Path tmp) throws Exception {
        Path folder = Files.createDirectories(tmp.resolve("classes"));
        Path jar = Files.createFile(tmp.resolve("a.jar"));
        String archive = tmp.resolve("spark.jsa").toString();
        String[] withFolder = sparkFlags("--cds-auto", archive, "--classpath", jar + ":" + folder);
        assertFalse(withFolder[0].contains(archive), "no archive flag with a folder on the class path: " + withFolder[0]);
        assertTrue(withFolder[1].contains(folder + " on the class path is a folder"), withFolder[1]);
        String[] jarsOnly = sparkFlags("--cds-auto", archive, "--classpath", jar + ":" + tmp + "/*");
        assertTrue(jarsOnly[0].contains(archive), "jar files keep the archive: " + jarsOnly[0]);
        assertEquals("", jarsOnly[1]);
    }

    /** scripts/jvm-flags.sh --spark JAVA {@code args}: its stdout and its stderr. */
    private static String[] sparkFlags(String... args) throws Exception {
        return script(javaThenArgs(List.of("--spark"), args));
    }
}

