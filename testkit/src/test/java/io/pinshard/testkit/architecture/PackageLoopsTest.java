package io.pinshard.testkit.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * No two files of a checked package use each other (A -> B -> A): inside a package, too, the arrows go one way, so
 * a class can be read, tested and moved with what it uses and without what uses it. A file uses a sibling when its
 * code (comments and string literals stripped, so a Javadoc link does not count) names the sibling's class, as an
 * import, a type or a qualifier. The packages are listed here: one joins the list once it has no loop left.
 */
class PackageLoopsTest {
    /** Source folders of the packages whose files must not use each other both ways. */
    static final List<String> CHECKED = List.of("loader/src/main/java/io/pinshard/loader",
        "loader/src/main/java/io/pinshard/loader/options", "loader/src/main/java/io/pinshard/loader/ring",
        "loader/src/main/java/io/pinshard/loader/work", "loader/src/main/java/io/pinshard/loader/sample",
        "loader/src/main/java/io/pinshard/loader/augment");

    private static final Pattern COMMENT_OR_TEXT = Pattern.compile(
        "/\\*.*?\\*/|//[^\\n]*|\"\"\".*?\"\"\"|\"(?:\\\\.|[^\"\\\\\\n])*\"|'(?:\\\\.|[^'\\\\\\n])+'", Pattern.DOTALL);
    private static final Pattern NAME = Pattern.compile("\\b[A-Z][A-Za-z0-9_]*\\b");

    /** The code of a Java source without its comments, strings and character literals. */
    static String code(String source) {
        Matcher m = COMMENT_OR_TEXT.matcher(source);
        StringBuilder code = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(code, m.group().startsWith("/") ? " " : "\"\"");
        }
        m.appendTail(code);
        return code.toString();
    }

    /** For each top-level class of the package (file name), the siblings its code names. */
    static Map<String, Set<String>> uses(Map<String, String> sources) {
        Map<String, Set<String>> uses = new TreeMap<>();
        for (Map.Entry<String, String> file : sources.entrySet()) {
            Set<String> named = new TreeSet<>();
            Matcher m = NAME.matcher(code(file.getValue()));
            while (m.find()) {
                String name = m.group();
                if (!name.equals(file.getKey()) && sources.containsKey(name)) {
                    named.add(name);
                }
            }
            uses.put(file.getKey(), named);
        }
        return uses;
    }

    /** Every pair of files that use each other, as {@code "A <-> B"} with A before B. */
    static List<String> loops(Map<String, Set<String>> uses) {
        List<String> loops = new ArrayList<>();
        for (Map.Entry<String, Set<String>> from : uses.entrySet()) {
            for (String to : from.getValue()) {
                if (from.getKey().compareTo(to) < 0 && uses.get(to).contains(from.getKey())) {
                    loops.add(from.getKey() + " <-> " + to);
                }
            }
        }
        return loops;
    }

    /** The package's sources by class name (package-info and module-info are no classes). */
    static Map<String, String> sources(Path folder) throws IOException {
        Map<String, String> sources = new TreeMap<>();
        try (Stream<Path> files = Files.list(folder)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                String name = file.getFileName().toString();
                if (name.endsWith(".java") && !name.contains("-")) {
                    sources.put(name.substring(0, name.length() - ".java".length()), Files.readString(file));
                }
            }
        }
        return sources;
    }

    @Test
    void noTwoFilesOfACheckedPackageUseEachOther() throws IOException {
        for (String folder : CHECKED) {
            Map<String, String> sources = sources(ModuleArrowsTest.repo().resolve(folder));
            assertTrue(sources.size() >= 4, folder + " holds " + sources.keySet() + ": moved?");
            Map<String, Set<String>> uses = uses(sources);
            assertEquals(List.of(), loops(uses), "files of " + folder + " that use each other; uses: " + uses);
        }
    }

    @Test
    void theCheckFindsALoopAndIgnoresCommentsAndStrings() {
        Map<String, String> sources = new TreeMap<>(Map.of(
            "Hub", "class Hub { Spoke spoke; void wake() { } }",
            "Spoke", "import x.Hub; class Spoke { void done(Hub hub) { hub.wake(); } }",
            "Leaf", "/** Uses {@link Hub}. */ class Leaf { String s = \"Hub\"; char c = 'H'; } // Spoke",
            "Root", "class Root { Leaf leaf; Hub hub; }"));
        Map<String, Set<String>> uses = uses(sources);
        assertEquals(Set.of(), uses.get("Leaf"), "comments and strings name nothing: " + uses);
        assertEquals(List.of("Hub <-> Spoke"), loops(uses));
    }
}
