package io.pinshard.testkit.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * The module arrows follow the data path: format-spec at the bottom, with testkit (the tests' shared support, nothing
 * of ours, only ever a test dependency) beside it; memory (the batch-memory API), datawait (data-wait monitoring), jpeg (the
 * libjpeg-turbo binding) and baseline (the naive loader people are measured against) beside it; writer and reader
 * on top of those; fixtures (the test fixtures the modules' tests share, on the writer: a test dependency, like the
 * testkit) above them, so the writer's and reader's own tests cannot take it; loader (the training data loader) on the reader; cuda-bridge and serve (the shared-memory ring for other processes) on the reader; torch (the
 * libtorch adapter) on the reader and cuda-bridge; spark (the Spark data source) on writer and reader, nothing on it; the tools, cli, jmh and examples (training examples, stream benchmarks), on everything and nothing on them but acceptance (the user-path tests), above all. Read
 * from the poms themselves, so a new module or dependency has to take its place here.
 */
class ModuleArrowsTest {
    /** A module's level; a main dependency points strictly down, a test one down or sideways. */
    static final Map<String, Integer> LEVEL = Map.ofEntries(
        Map.entry("format-spec", 0),
        Map.entry("testkit", 0),
        Map.entry("memory", 1),
        Map.entry("datawait", 1),
        Map.entry("jpeg", 1),
        Map.entry("baseline", 1),
        Map.entry("writer", 2),
        Map.entry("reader", 2),
        Map.entry("fixtures", 3),
        Map.entry("loader", 3),
        Map.entry("parquet", 3),
        Map.entry("cuda-bridge", 4),
        Map.entry("serve", 4),
        Map.entry("s3", 4),
        Map.entry("spark", 4),
        Map.entry("torch", 5),
        Map.entry("cli", 6),
        Map.entry("jmh", 6),
        Map.entry("examples", 6),
        Map.entry("acceptance", 7));

    record Arrow(String from, String to, String scope) {
        @Override
        public String toString() {
            return from + " -> " + to + ("compile".equals(scope) ? "" : " (" + scope + ")");
        }
    }

    static Path repo() {
        return Path.of(System.getProperty("pinshard.repo", "..")).toAbsolutePath().normalize();
    }

    static Document read(Path pom) throws Exception {
        return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile());
    }

    static List<Element> children(Node parent, String name) {
        List<Element> found = new ArrayList<>();
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getTagName().equals(name)) {
                found.add(e);
            }
        }
        return found;
    }

    static String text(Element parent, String name, String otherwise) {
        List<Element> found = children(parent, name);
        return found.isEmpty() ? otherwise : found.get(0).getTextContent().trim();
    }

    /** The root pom's modules, in order. */
    static List<String> modules() throws Exception {
        Element project = read(repo().resolve("pom.xml")).getDocumentElement();
        List<String> modules = new ArrayList<>();
        for (Element list : children(project, "modules")) {
            for (Element module : children(list, "module")) {
                modules.add(module.getTextContent().trim());
            }
        }
        return modules;
    }

    /** Every dependency of one pinshard module on another, with its scope, as the module poms declare them. */
    static List<Arrow> arrows() throws Exception {
        Map<String, String> moduleOfArtifact = new LinkedHashMap<>();
        Map<String, Element> projects = new LinkedHashMap<>();
        for (String module : modules()) {
            Element project = read(repo().resolve(module).resolve("pom.xml")).getDocumentElement();
            projects.put(module, project);
            moduleOfArtifact.put(text(project, "artifactId", ""), module);
        }
        List<Arrow> arrows = new ArrayList<>();
        for (Map.Entry<String, Element> entry : projects.entrySet()) {
            for (Element dependencies : children(entry.getValue(), "dependencies")) {
                for (Element dependency : children(dependencies, "dependency")) {
                    String target = moduleOfArtifact.get(text(dependency, "artifactId", ""));
                    if ("io.pinshard".equals(text(dependency, "groupId", "")) && target != null) {
                        arrows.add(new Arrow(entry.getKey(), target, text(dependency, "scope", "compile")));
                    }
                }
            }
        }
        return arrows;
    }

    static List<String> upward(List<Arrow> arrows) {
        List<String> wrong = new ArrayList<>();
        for (Arrow arrow : arrows) {
            int from = LEVEL.get(arrow.from());
            int to = LEVEL.get(arrow.to());
            // A test arrow may point sideways below the tools' level; onto the tools only from above them (acceptance).
            boolean ok = "test".equals(arrow.scope()) && to < LEVEL.get("cli") ? to <= from : to < from;
            if (!ok) {
                wrong.add(arrow.toString());
            }
        }
        return wrong;
    }

    @Test
    void everyModuleHasALevel() throws Exception {
        List<String> modules = modules();
        assertTrue(modules.containsAll(List.of("format-spec", "writer", "reader", "cuda-bridge", "baseline", "cli", "jmh")),
            "root pom modules: " + modules);
        for (String module : modules) {
            assertTrue(LEVEL.containsKey(module), module + " has no level in ModuleArrowsTest.LEVEL: decide where it sits");
        }
    }

    @Test
    void noModuleDependsUpwardOrOnATool() throws Exception {
        List<Arrow> arrows = arrows();
        assertEquals(List.of(), upward(arrows), "arrows that point up or sideways: " + arrows);
        assertTrue(arrows.contains(new Arrow("cli", "baseline", "compile")), "arrows read: " + arrows);
        assertTrue(arrows.contains(new Arrow("jmh", "baseline", "compile")), "arrows read: " + arrows);
    }

    /** Test support: the testkit (nothing of ours) and the fixtures (the writer's datasets, child JVMs). */
    static final List<String> TEST_SUPPORT = List.of("testkit", "fixtures");

    @Test
    void theTestSupportIsOnlyEverATestDependency() throws Exception {
        List<String> wrong = new ArrayList<>();
        for (Arrow arrow : arrows()) {
            boolean tool = LEVEL.get(arrow.from()) >= LEVEL.get("cli"); // examples' benchmarks start its S3 server
            if (TEST_SUPPORT.contains(arrow.to()) && !"test".equals(arrow.scope()) && !tool
                || arrow.from().equals("testkit")) {
                wrong.add(arrow.toString());
            }
        }
        assertEquals(List.of(), wrong, "the testkit and the fixtures are test support (for the libraries' tests, the "
            + "tools' benchmarks), and the testkit needs nothing of ours");
        assertTrue(arrows().contains(new Arrow("s3", "testkit", "test")));
        assertTrue(arrows().contains(new Arrow("loader", "fixtures", "test")));
    }

    @Test
    void theRuleCatchesTheDemoOnTheBenchmarks() {
        // The arrow this test was written for (the demo reused the benchmark module's naive loader).
        assertEquals(List.of("cli -> jmh"), upward(List.of(new Arrow("cli", "jmh", "compile"),
            new Arrow("reader", "writer", "test"), new Arrow("cuda-bridge", "reader", "compile"))));
        assertEquals(List.of("reader -> cli (test)"), upward(List.of(new Arrow("reader", "cli", "test"))));
    }

    @Test
    void benchmarksLiveInTheBenchmarkPackage() throws IOException {
        Path sources = repo().resolve("jmh/src/main/java");
        try (Stream<Path> files = Files.walk(sources)) {
            List<String> outside = files.filter(f -> f.toString().endsWith(".java"))
                .map(f -> sources.relativize(f).toString().replace('\\', '/'))
                .filter(f -> !f.startsWith("io/pinshard/jmh/")).toList();
            assertFalse(outside.iterator().hasNext(), "benchmark code inside a library's package: " + outside);
        }
    }
}
