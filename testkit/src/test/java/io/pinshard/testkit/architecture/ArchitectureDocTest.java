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
 * packages lists exactly the classes each package holds. The README's module table too: one row per module of the
 * root pom, and a row that says what its module "depends on" names exactly the modules its main code uses; and a
 * test the README places in a module ("`FooTest` (module `bar`)") is there.
 */
class ArchitectureDocTest {
    private static final Pattern FLOOR_ROW = Pattern.compile("(?m)^\\| (\\d+) \\| ([^|]+) \\|$");
    private static final Pattern PACKAGE_ROW = Pattern.compile("(?m)^\\| `(io\\.pinshard\\.loader|\\.[a-z]+)` \\| (.+) \\|$");
    private static final Pattern CODE_NAME = Pattern.compile("`([A-Z][A-Za-z0-9]*)`");
    private static final Pattern MODULE_ROW = Pattern.compile("(?m)^\\| `([\\w-]+)` \\| (.+) \\|$");
    /** "depends on `a`, `b` and `c`": the names up to the end of the clause. */
    private static final Pattern DEPENDS_ON = Pattern.compile("depends on ((?:`[\\w-]+`(?:, | and | or )?)+)");
    private static final Pattern TEST_IN_MODULE = Pattern.compile("`(\\w+Test)` \\(module\\s+`([\\w-]+)`");

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

    /** The README's module table: module -> what its row says it holds. */
    static Map<String, String> readmeModules(String readme) {
        Map<String, String> rows = new TreeMap<>();
        String table = readme.substring(readme.indexOf("| module | holds |"));
        Matcher m = MODULE_ROW.matcher(table.substring(0, table.indexOf("\n\n")));
        while (m.find()) {
            rows.put(m.group(1), m.group(2));
        }
        return rows;
    }

    /** The modules a row says it depends on ("depends on `a`, `b` and `c`"), or null when it says nothing of it. */
    static Set<String> saysItDependsOn(String row) {
        Matcher m = DEPENDS_ON.matcher(row);
        if (!m.find()) {
            return null;
        }
        Set<String> modules = new TreeSet<>();
        Matcher name = Pattern.compile("`([\\w-]+)`").matcher(m.group(1));
        while (name.find()) {
            modules.add(name.group(1));
        }
        return modules;
    }

    static String readme() throws Exception {
        return Files.readString(ModuleArrowsTest.repo().resolve("README.md"));
    }

    @Test
    void theReadmesModuleTableHasARowPerModuleAndSaysTrulyWhatARowDependsOn() throws Exception {
        Map<String, String> rows = readmeModules(readme());
        assertEquals(new TreeSet<>(ModuleArrowsTest.modules()), rows.keySet(), "the README's module table");
        List<String> wrong = new ArrayList<>();
        for (Map.Entry<String, String> row : rows.entrySet()) {
            Set<String> said = saysItDependsOn(row.getValue());
            if (said != null) {
                Set<String> main = new TreeSet<>();
                for (ModuleArrowsTest.Arrow arrow : ModuleArrowsTest.arrows()) {
                    if (arrow.from().equals(row.getKey()) && !"test".equals(arrow.scope())) {
                        main.add(arrow.to());
                    }
                }
                if (!said.equals(main)) {
                    wrong.add(row.getKey() + " says it depends on " + said + ", its pom on " + main);
                }
            }
        }
        assertEquals(List.of(), wrong);
    }

    @Test
    void aTestTheReadmePlacesInAModuleIsThere() throws Exception {
        List<String> wrong = new ArrayList<>();
        Matcher m = TEST_IN_MODULE.matcher(readme());
        int placed = 0;
        while (m.find()) {
            placed++;
            String file = "/" + m.group(1) + ".java";
            if (PackageCyclesTest.sources(m.group(2) + "/src/test/java").keySet().stream().noneMatch(p -> p.endsWith(file))) {
                wrong.add(m.group(1) + " is not in module " + m.group(2));
            }
        }
        assertTrue(placed > 0, "the README places no test in a module: is the pattern still its wording?");
        assertEquals(List.of(), wrong);
    }

    @Test
    void theReadmeTableParsersReadRowsAndDependencies() {
        String readme = "## Modules\n\n| module | holds |\n|---|---|\n| `a` | things; depends on `b` only |\n"
            + "| `c-d` | more (`E`), depends on `a`, `b` and `f` |\n\nMain dependencies: `x`\n| `g` | not a row |\n";
        Map<String, String> rows = readmeModules(readme);
        assertEquals(Set.of("a", "c-d"), rows.keySet());
        assertEquals(Set.of("b"), saysItDependsOn(rows.get("a")));
        assertEquals(Set.of("a", "b", "f"), saysItDependsOn(rows.get("c-d")));
        assertEquals(null, saysItDependsOn("the naive loaders"));
    }

    @Test
    void theFloorsParserReadsRowsAndDropsRemarks() {
        assertEquals(Map.of("a", 0, "b", 0, "c", 3, "d", 3), floors("| level | modules |\n|---|---|\n| 0 | a, b (test support) |\n"
            + "| 3 | c, d (input, on writer) |\n"));
    }
}
