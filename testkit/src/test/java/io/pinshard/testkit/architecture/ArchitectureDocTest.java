package io.pinshard.testkit.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
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
 * {@link ModuleArrowsTest#LEVEL}, its whiteboard names every module of the root pom, and its tables of the loader's
 * and cuda-bridge's packages list exactly the classes each package holds. The README's module table too: one row per
 * module of the root pom, whose "depends on" column names exactly the modules its pom gives its main code; and a test
 * the README places in a module ("`FooTest` (module `bar`)") is there.
 */
class ArchitectureDocTest {
    private static final Pattern FLOOR_ROW = Pattern.compile("(?m)^\\| (\\d+) \\| ([^|]+) \\|$");
    /** A package table's row: the package, written whole or as {@code .sub} of the section's root, and its classes. */
    private static final Pattern PACKAGE_ROW = Pattern.compile("(?m)^\\| `((?:io\\.pinshard)?(?:\\.[a-z]+)+)` \\| (.+) \\|$");
    /** The doc's package tables: module -> the heading of its section, and the root a {@code .sub} row is under. */
    static final Map<String, String[]> PACKAGE_TABLES = Map.of(
        "loader", new String[] {"## The loader's packages", "io.pinshard.loader"},
        "cuda-bridge", new String[] {"## cuda-bridge's packages", "io.pinshard.cuda"});
    private static final Pattern CODE_NAME = Pattern.compile("`([A-Z][A-Za-z0-9]*)`");
    /** A row of the README's module table: module, what it holds, what it depends on. */
    private static final Pattern MODULE_ROW = Pattern.compile("(?m)^\\| `([\\w-]+)` \\| (.+) \\| ([^|]+) \\|$");
    private static final String MODULE_TABLE = "| module | holds | depends on (main code) |";
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

    /** Package -> the classes its row names, from the table in the doc's section {@code heading}. */
    static Map<String, Set<String>> packageTable(String text, String heading, String root) {
        String doc = "\n" + text;
        int start = doc.indexOf("\n" + heading + "\n");
        assertTrue(start >= 0, "docs/architecture.md has no section " + heading);
        int end = doc.indexOf("\n## ", start + 1);
        Map<String, Set<String>> documented = new TreeMap<>();
        Matcher m = PACKAGE_ROW.matcher(doc.substring(start, end < 0 ? doc.length() : end));
        while (m.find()) {
            String pkg = m.group(1).startsWith(".") ? root + m.group(1) : m.group(1);
            Set<String> classes = documented.computeIfAbsent(pkg, k -> new TreeSet<>());
            Matcher c = CODE_NAME.matcher(m.group(2));
            while (c.find()) {
                classes.add(c.group(1));
            }
        }
        return documented;
    }

    /** Package -> the classes of a module's main code (file names, package-info left out). */
    static Map<String, Set<String>> packageClasses(String module) throws Exception {
        Map<String, Set<String>> actual = new TreeMap<>();
        for (Map.Entry<String, String> file : PackageCyclesTest.sources(module + "/src/main/java").entrySet()) {
            String name = file.getKey().substring(file.getKey().lastIndexOf('/') + 1).replace(".java", "");
            if (!name.equals("package-info")) {
                actual.computeIfAbsent(PackageCyclesTest.packageOf(file.getValue()), k -> new TreeSet<>()).add(name);
            }
        }
        return actual;
    }

    @Test
    void thePackageTablesListEachPackagesClasses() throws Exception {
        String doc = doc();
        for (Map.Entry<String, String[]> table : new TreeMap<>(PACKAGE_TABLES).entrySet()) {
            Map<String, Set<String>> actual = packageClasses(table.getKey());
            assertTrue(actual.size() >= 6, table.getKey() + " packages found: " + actual.keySet());
            assertEquals(actual, packageTable(doc, table.getValue()[0], table.getValue()[1]),
                "docs/architecture.md's table of " + table.getKey() + "'s packages");
        }
    }

    @Test
    void aPackageTableIsReadFromItsOwnSection() {
        String doc = "## A's packages\n\n| package | holds |\n|---|---|\n| `io.pinshard.a` | `Api` |\n| `.inner` | `Work`,"
            + " `Step` + `Other` (a note) |\n\n## B's packages\n\n| `io.pinshard.b.x` | `X` |\n| `.y` | `Y` |\n";
        assertEquals(Map.of("io.pinshard.a", Set.of("Api"), "io.pinshard.a.inner", Set.of("Work", "Step", "Other")),
            packageTable(doc, "## A's packages", "io.pinshard.a"));
        assertEquals(Map.of("io.pinshard.b.x", Set.of("X"), "io.pinshard.b.y", Set.of("Y")),
            packageTable(doc, "## B's packages", "io.pinshard.b"));
    }

    /** The README's module table: module -> its row's "depends on" cell. */
    static Map<String, String> readmeModules(String readme) {
        int at = readme.indexOf(MODULE_TABLE);
        assertTrue(at >= 0, "the README has no module table headed " + MODULE_TABLE);
        Map<String, String> rows = new TreeMap<>();
        String table = readme.substring(at);
        Matcher m = MODULE_ROW.matcher(table.substring(0, table.indexOf("\n\n")));
        while (m.find()) {
            rows.put(m.group(1), m.group(3).trim());
        }
        return rows;
    }

    /** The modules a "depends on" cell names ({@code `a`, `b`}), empty for "none", null for anything else. */
    static Set<String> saysItDependsOn(String cell) {
        if (cell.equals("none")) {
            return Set.of();
        }
        Set<String> modules = new TreeSet<>();
        Matcher name = Pattern.compile("`([\\w-]+)`(?:, |$)").matcher(cell);
        int end = 0;
        while (name.find() && name.start() == end) {
            modules.add(name.group(1));
            end = name.end();
        }
        return end == cell.length() && !modules.isEmpty() ? modules : null;
    }

    static String readme() throws Exception {
        return Files.readString(ModuleArrowsTest.repo().resolve("README.md"));
    }

    @Test
    void theReadmesModuleTableHasARowPerModuleAndSaysTrulyWhatEachDependsOn() throws Exception {
        Map<String, String> rows = readmeModules(readme());
        assertEquals(new TreeSet<>(ModuleArrowsTest.modules()), rows.keySet(), "the README's module table");
        List<String> wrong = new ArrayList<>();
        for (Map.Entry<String, String> row : rows.entrySet()) {
            Set<String> main = new TreeSet<>();
            for (ModuleArrowsTest.Arrow arrow : ModuleArrowsTest.arrows()) {
                if (arrow.from().equals(row.getKey()) && !"test".equals(arrow.scope())) {
                    main.add(arrow.to());
                }
            }
            Set<String> said = saysItDependsOn(row.getValue());
            if (!main.equals(said)) {
                wrong.add(row.getKey() + " says it depends on '" + row.getValue() + "', its pom on "
                    + (main.isEmpty() ? "none" : main));
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
        String readme = "## Modules\n\n" + MODULE_TABLE + "\n|---|---|---|\n| `a` | things (`B`) | `b` |\n"
            + "| `c-d` | more, with `a` | `a`, `b`, `f` |\n| `e` | the rest | none |\n\nMain dependencies: `x`\n"
            + "| `g` | not | a row |\n";
        Map<String, String> rows = readmeModules(readme);
        assertEquals(Set.of("a", "c-d", "e"), rows.keySet());
        assertEquals(Set.of("b"), saysItDependsOn(rows.get("a")));
        assertEquals(Set.of("a", "b", "f"), saysItDependsOn(rows.get("c-d")));
        assertEquals(Set.of(), saysItDependsOn(rows.get("e")));
        assertNull(saysItDependsOn("`a` and `b`"), "only names, comma-separated, or none");
        assertNull(saysItDependsOn("the naive loaders"));
        assertNull(saysItDependsOn(""));
    }

    @Test
    void theFloorsParserReadsRowsAndDropsRemarks() {
        assertEquals(Map.of("a", 0, "b", 0, "c", 3, "d", 3), floors("| level | modules |\n|---|---|\n| 0 | a, b (test support) |\n"
            + "| 3 | c, d (input, on writer) |\n"));
    }
}
