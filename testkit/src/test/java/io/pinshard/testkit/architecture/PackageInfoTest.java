package io.pinshard.testkit.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every package of every module's main code has a {@code package-info.java} whose Javadoc says, in a few sentences,
 * what lives there and what it may import: the house's room labels, so that a newcomer knows which room is theirs
 * before reading its classes.
 */
class PackageInfoTest {
    private static final Pattern JAVADOC = Pattern.compile("/\\*\\*(.*?)\\*/\\s*package\\s+([\\w.]+)\\s*;",
        Pattern.DOTALL);
    /** The end of a sentence: a full stop (or ? !) before white space or the comment's end. */
    private static final Pattern SENTENCE_END = Pattern.compile("[.?!](\\s|$)");

    /** What is wrong with one package-info source, or null: no Javadoc, no sentence, more than a short paragraph. */
    static String problem(String source) {
        Matcher m = JAVADOC.matcher(source);
        if (!m.find()) {
            return "no Javadoc before its package line";
        }
        String text = m.group(1).replaceAll("(?m)^\\s*\\*", " ").replaceAll("\\s+", " ").trim();
        long sentences = SENTENCE_END.matcher(text).results().count();
        if (sentences < 1) {
            return "no sentence in its Javadoc";
        }
        if (!text.toLowerCase(java.util.Locale.ROOT).contains("import")) {
            return "does not say what the package may import";
        }
        if (text.length() > 900) {
            return "Javadoc of " + text.length() + " characters: two or three sentences are the point";
        }
        return null;
    }

    @Test
    void everyMainPackageHasAPackageInfoThatSaysWhatLivesThereAndWhatItImports() throws Exception {
        List<String> wrong = new ArrayList<>();
        int packages = 0;
        for (String module : ModuleArrowsTest.modules()) {
            Map<String, String> sources = PackageCyclesTest.sources(module + "/src/main/java");
            Set<String> folders = new TreeSet<>();
            for (String path : sources.keySet()) {
                folders.add(path.substring(0, path.lastIndexOf('/')));
            }
            for (String folder : folders) {
                packages++;
                String info = sources.get(folder + "/package-info.java");
                String problem = info == null ? "has no package-info.java" : problem(info);
                if (problem != null) {
                    wrong.add(folder + ": " + problem);
                }
            }
        }
        assertTrue(packages > 20, "found only " + packages + " packages: is pinshard.repo the checkout?");
        assertEquals(List.of(), wrong);
    }

    @Test
    void theCheckRefusesWhatIsNotARoomLabel() {
        assertEquals("no Javadoc before its package line", problem("package a.b;"));
        assertEquals("no Javadoc before its package line", problem("/* plain comment */ package a.b;"));
        assertEquals("does not say what the package may import", problem("/** Holds the codecs. */\npackage a.b;"));
        assertEquals("no sentence in its Javadoc", problem("/** codecs, imports none */ package a.b;"));
        assertEquals(null, problem("/**\n * Holds the codecs.\n * It imports the JDK only.\n */\npackage a.b;"));
        assertTrue(problem("/** " + "Word word word. ".repeat(70) + "It imports none. */ package a.b;")
            .contains("characters"));
    }
}
