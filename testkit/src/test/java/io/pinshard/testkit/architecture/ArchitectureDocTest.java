package io.pinshard.testkit.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/architecture.md is the house's whiteboard; this keeps it true to the code: its floors table is
 * {@link ModuleArrowsTest#LEVEL}, its whiteboard names every module of the root pom, and its table of the loader's
 * packages lists exactly the classes each package holds.
 */
class ArchitectureDocTest {
    private static final Pattern FLOOR_ROW = Pattern.compile("(?m)^\\| (\\d+) \\| ([^|]+) \\|$");
    private static final Pattern PACKAGE_ROW = Pattern.compile("(?m)^\\| `(io\\.pinshard\\.loader|\\.[a-z]+)` \\| (.+) \\|$");
    private static final Pattern CODE_NAME = Pattern.compile("`([A-Z][A-Za-z0-9]*)`");

    static String doc() throws Exception {
        return Files.readString(ModuleArrowsTest.repo().resolve("docs/architecture.md"));
    }

    /** Module -> floor, as the doc's floors table gives them (a parenthesised remark after a name is dropped). */
    static Map<String, Integer> floors(String doc) {
        Map<String, Integer> floors = new TreeMap<>();
        Matcher m = FLOOR_ROW.matcher(doc);
        while (m.find()) {
            for (String name : m.group(2).replaceAll("\\([^)]*\\)", "").split(",")) {
                floors.put(name.trim(), Integer.parseInt(m.group(1)));
            }
        }
        return floors;
    }

    @Test
    void theFloorsTableIsTheTestedLevels() throws Exception {
        assertEquals(new TreeMap<>(ModuleArrowsTest.LEVEL), floors(doc()));
    }

    @Test
    void theWhiteboardNamesEveryModule() throws Exception {
        String doc = doc();
        String whiteboard = doc.substring(doc.indexOf("```text"), doc.indexOf("```", doc.indexOf("```text") + 7));
        List<String> missing = new ArrayList<>();
        for (String module : ModuleArrowsTest.modules()) {
            if (!Pattern.compile("(?<![\\w-])" + Pattern.quote(module) + "(?![\\w-])").matcher(whiteboard).find()) {
                missing.add(module);
            }
        }
        assertEquals(List.of(), missing, "modules the whiteboard does not show");
    }

    @Test
    void theLoaderPackageTableListsEachPackagesClasses() throws Exception {
        Map<String, Set<String>> documented = new TreeMap<>();
        Matcher m = PACKAGE_ROW.matcher(doc());
        while (m.find()) {
            String pkg = m.group(1).startsWith(".") ? PackageCyclesTest.LOADER + m.group(1) : m.group(1);
            Set<String> classes = documented.computeIfAbsent(pkg, k -> new TreeSet<>());
            Matcher c = CODE_NAME.matcher(m.group(2));
            while (c.find()) {
                classes.add(c.group(1));
            }
        }
        Map<String, Set<String>> actual = new TreeMap<>();
        for (Map.Entry<String, String> file : PackageCyclesTest.sources("loader/src/main/java").entrySet()) {
            String name = file.getKey().substring(file.getKey().lastIndexOf('/') + 1).replace(".java", "");
            if (!name.equals("package-info")) {
                actual.computeIfAbsent(PackageCyclesTest.packageOf(file.getValue()), k -> new TreeSet<>()).add(name);
            }
        }
        assertTrue(actual.size() >= 6, "loader packages found: " + actual.keySet());
        assertEquals(actual, documented);
    }

    @Test
    void theFloorsParserReadsRowsAndDropsRemarks() {
        assertEquals(Map.of("a", 0, "b", 0, "c", 3, "d", 3), floors("| level | modules |\n|---|---|\n| 0 | a, b (test support) |\n"
            + "| 3 | c, d (input, on writer) |\n"));
    }
}
