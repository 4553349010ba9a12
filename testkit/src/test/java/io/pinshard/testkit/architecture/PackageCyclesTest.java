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
 * The arrows between packages, read from the sources' imports and qualified names (comments and strings stripped,
 * as in {@link PackageLoopsTest}): no cycle between the packages of any module's main code; no class outside the
 * loader module uses its inner packages (work, sample, augment), which only the loader's own API may reach; and no
 * source of one module uses a package of a module above it in {@link ModuleArrowsTest#LEVEL} (a test source may also
 * use one beside it).
 */
class PackageCyclesTest {
    static final String LOADER = "io.pinshard.loader";
    /** The loader's packages other modules must not use. */
    static final Set<String> INNER = Set.of(LOADER + ".work", LOADER + ".sample", LOADER + ".augment");
    /** The one outside user of the inner packages: the crop kernel's benchmark measures CropBox and CropResizer. */
    static final Set<String> INNER_ALLOWED = Set.of("jmh/src/main/java/io/pinshard/jmh/CropKernelBenchmark.java");

    private static final Pattern USED = Pattern.compile("\\b(io\\.pinshard(?:\\.[a-z][a-z0-9_]*)+)\\.[A-Z*]");

    /** The pinshard packages a source's code names (imports and qualified names). */
    static Set<String> packagesUsed(String source) {
        Set<String> used = new TreeSet<>();
        Matcher m = USED.matcher(PackageLoopsTest.code(source));
        while (m.find()) {
            used.add(m.group(1));
        }
        return used;
    }

    static String packageOf(String source) {
        Matcher m = Pattern.compile("^package ([\\w.]+);", Pattern.MULTILINE).matcher(source);
        return m.find() ? m.group(1) : "";
    }

    /** Every package cycle of {@code arrows} as its packages, found by depth-first search (one per back edge). */
    static List<String> cycles(Map<String, Set<String>> arrows) {
        List<String> found = new ArrayList<>();
        Map<String, Integer> state = new TreeMap<>();
        for (String start : new java.util.TreeSet<>(arrows.keySet())) { // sorted: Map.of's order changes per JVM
            visit(start, arrows, state, new ArrayList<>(), found);
        }
        return found;
    }

    private static void visit(String at, Map<String, Set<String>> arrows, Map<String, Integer> state, List<String> path,
                              List<String> found) {
        Integer s = state.get(at);
        if (s != null) {
            if (s == 1) {
                found.add(String.join(" -> ", path.subList(path.indexOf(at), path.size())) + " -> " + at);
            }
            return;
        }
        state.put(at, 1);
        path.add(at);
        for (String to : new java.util.TreeSet<>(arrows.getOrDefault(at, Set.of()))) {
            visit(to, arrows, state, path, found);
        }
        path.remove(path.size() - 1);
        state.put(at, 2);
    }

    /** Relative path -> source, for every Java file under {@code folder} of the repository. */
    static Map<String, String> sources(String folder) throws IOException {
        Map<String, String> sources = new TreeMap<>();
        Path root = ModuleArrowsTest.repo();
        Path start = root.resolve(folder);
        if (!Files.isDirectory(start)) {
            return sources;
        }
        try (Stream<Path> files = Files.walk(start)) {
            for (Path file : (Iterable<Path>) files.filter(f -> f.toString().endsWith(".java"))::iterator) {
                sources.put(root.relativize(file).toString().replace('\\', '/'), Files.readString(file));
            }
        }
        return sources;
    }

    /** The arrows between the packages of one module's main code: package -> the module's other packages it uses. */
    static Map<String, Set<String>> packageArrows(String module) throws IOException {
        Map<String, String> sources = sources(module + "/src/main/java");
        Set<String> own = new TreeSet<>();
        for (String source : sources.values()) {
            own.add(packageOf(source));
        }
        Map<String, Set<String>> arrows = new TreeMap<>();
        for (String source : sources.values()) {
            String from = packageOf(source);
            Set<String> to = arrows.computeIfAbsent(from, k -> new TreeSet<>());
            for (String used : packagesUsed(source)) {
                if (own.contains(used) && !used.equals(from)) {
                    to.add(used);
                }
            }
        }
        return arrows;
    }

    @Test
    void noModulesPackagesFormACycle() throws Exception {
        List<String> wrong = new ArrayList<>();
        int packages = 0;
        for (String module : ModuleArrowsTest.modules()) {
            Map<String, Set<String>> arrows = packageArrows(module);
            packages += arrows.size();
            for (String cycle : cycles(arrows)) {
                wrong.add(module + ": " + cycle + " (arrows " + arrows + ")");
            }
        }
        assertTrue(packageArrows("loader").keySet().containsAll(INNER), "loader packages: " + packageArrows("loader"));
        assertTrue(packageArrows("cuda-bridge").size() >= 6, "cuda-bridge packages: " + packageArrows("cuda-bridge"));
        assertTrue(packages > 30, "found only " + packages + " packages: is pinshard.repo the checkout?");
        assertEquals(List.of(), wrong, "cycles between the packages of a module");
    }

    @Test
    void noOtherModuleUsesTheLoadersInnerPackages() throws Exception {
        List<String> wrong = new ArrayList<>();
        for (String module : ModuleArrowsTest.modules()) {
            if (module.equals("loader")) {
                continue;
            }
            for (Map.Entry<String, String> file : sources(module + "/src").entrySet()) {
                for (String used : packagesUsed(file.getValue())) {
                    if (INNER.contains(used) && !INNER_ALLOWED.contains(file.getKey())) {
                        wrong.add(file.getKey() + " uses " + used);
                    }
                }
            }
        }
        assertEquals(List.of(), wrong);
    }

    @Test
    void noModuleUsesAPackageOfAModuleAboveIt() throws Exception {
        Map<String, String> moduleOfPackage = new TreeMap<>();
        for (String module : ModuleArrowsTest.modules()) {
            for (String source : sources(module + "/src/main/java").values()) {
                moduleOfPackage.put(packageOf(source), module);
            }
        }
        List<String> wrong = new ArrayList<>();
        for (String module : ModuleArrowsTest.modules()) {
            int level = ModuleArrowsTest.LEVEL.get(module);
            for (Map.Entry<String, String> file : sources(module + "/src").entrySet()) {
                boolean test = file.getKey().startsWith(module + "/src/test/");
                for (String used : packagesUsed(file.getValue())) {
                    String target = moduleOfPackage.get(used);
                    if (target == null || target.equals(module)) {
                        continue;
                    }
                    int to = ModuleArrowsTest.LEVEL.get(target);
                    if (test ? to > level : to >= level) {
                        wrong.add(file.getKey() + " (" + module + ") uses " + used + " (" + target + ")");
                    }
                }
            }
        }
        assertEquals(List.of(), wrong);
    }

    @Test
    void theChecksFindACycleAndAnInnerPackage() {
        Map<String, Set<String>> arrows = Map.of("a", Set.of("b"), "b", Set.of("c"), "c", Set.of("a"), "d", Set.of("a"));
        assertEquals(List.of("a -> b -> c -> a"), cycles(arrows));
        assertEquals(List.of(), cycles(Map.of("a", Set.of("b"), "b", Set.of(), "d", Set.of("a", "b"))));
        assertEquals(Set.of("io.pinshard.loader.work", "io.pinshard.reader"), packagesUsed(
            "import io.pinshard.loader.work.LoaderRun; /** io.pinshard.loader.sample.X */ class A {"
                + " String s = \"io.pinshard.loader.augment.Y\"; io.pinshard.reader.Dataset d; }"));
    }
}
