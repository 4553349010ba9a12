package io.pinshard.testkit.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code mvn test} runs unit tests only: a test class that starts a child process or a server says so with
 * {@code @Tag("process")} (on the class, or on the test methods that start one), and the root pom's surefire leaves
 * those out for failsafe to run in {@code mvn verify}. This finds the test classes of every module that start one
 * without the tag: by a call that starts one ({@link #STARTS}), or by naming a test helper that does (acceptance's
 * Launcher, examples' FashionMnistData, ...), in its own package or imported.
 */
class ProcessTagTest {
    /** What starts a child process or a server, as a test's code writes it. */
    static final Pattern STARTS = Pattern.compile(String.join("|",
        "\\bProcessBuilder\\b", "\\bRuntime\\.getRuntime\\(\\)\\.exec\\b", // a child process
        "\\bS3ServerExtension\\b", "\\bS3TestServer\\.start\\b", "\\bS3rverTestServer\\b", "\\bnew FaultProxy\\b",
        "\\bRingFile\\.prepare\\b", "\\bRingServer\\.start\\b", // a ring file starts its reaper, a shell (serve)
        "\\bSparkTestSupport\\.spark\\(", // the spark module's Spark session: its RPC server on loopback
        "\\bImageCollection\\.realOrSynthetic\\b")); // runs scripts/fetch-photos.sh without the photo cache
    static final Pattern TAG = Pattern.compile("@(?:org\\.junit\\.jupiter\\.api\\.)?Tag\\(\"process\"\\)");
    /** A text block, string or char literal (group 1), or a comment: read left to right, so "s3://" is a string. */
    private static final Pattern LITERAL_OR_COMMENT = Pattern.compile(
        "(\"\"\"(?s:.*?)\"\"\"|\"(?:\\\\.|[^\"\\\\\n])*\"|'(?:\\\\.|[^'\\\\])')|/\\*(?s:.*?)\\*/|//[^\n]*");
    private static final Pattern PACKAGE = Pattern.compile("(?m)^package\\s+([\\w.]+)\\s*;");

    /**
     * A test source: its package, simple class name, whether it carries the tag, and its code without comments and
     * literals (a string that spells a call starts nothing).
     */
    private record Source(String pkg, String name, boolean tagged, String code) {
        static Source of(String path, String text) {
            Matcher p = PACKAGE.matcher(text);
            String name = path.substring(path.lastIndexOf('/') + 1).replace(".java", "");
            StringBuilder noComments = new StringBuilder();
            StringBuilder code = new StringBuilder();
            Matcher m = LITERAL_OR_COMMENT.matcher(text);
            int at = 0;
            while (m.find()) {
                noComments.append(text, at, m.start()).append(m.group(1) != null ? m.group(1) : " ");
                code.append(text, at, m.start()).append(m.group(1) != null ? "\"\"" : " ");
                at = m.end();
            }
            noComments.append(text.substring(at));
            code.append(text.substring(at));
            return new Source(p.find() ? p.group(1) : "", name, TAG.matcher(noComments).find(), code.toString());
        }

        boolean isTest() {
            return name.endsWith("Test");
        }

        /** Whether this code names {@code helper}: in its own package, or imported. */
        boolean names(Source helper) {
            if (helper == this) {
                return false;
            }
            String quoted = Pattern.quote(helper.name);
            return helper.pkg.equals(pkg) ? Pattern.compile("\\b" + quoted + "\\b").matcher(code).find()
                : Pattern.compile("\\bimport\\s+(static\\s+)?" + Pattern.quote(helper.pkg) + "\\." + quoted + "\\b")
                    .matcher(code).find();
        }
    }

    /** The test classes (path -> source) that start a child process or a server and carry no process tag. */
    static List<String> untagged(Map<String, String> testSources) {
        Map<String, Source> sources = new TreeMap<>();
        testSources.forEach((path, text) -> sources.put(path, Source.of(path, text)));
        Map<Source, Boolean> starts = new HashMap<>();
        sources.values().forEach(s -> starts.put(s, STARTS.matcher(s.code).find()));
        for (boolean more = true; more; ) { // helpers that name a helper that starts one start one too
            more = false;
            for (Source s : sources.values()) {
                if (!starts.get(s) && sources.values().stream().anyMatch(h -> !h.isTest() && starts.get(h) && s.names(h))) {
                    starts.put(s, true);
                    more = true;
                }
            }
        }
        List<String> wrong = new ArrayList<>();
        sources.forEach((path, s) -> {
            if (s.isTest() && starts.get(s) && !s.tagged) {
                wrong.add(path);
            }
        });
        return wrong;
    }

    @Test
    void everyTestThatStartsAProcessOrAServerIsTaggedProcess() throws Exception {
        Map<String, String> tests = new TreeMap<>();
        for (String module : ModuleArrowsTest.modules()) {
            tests.putAll(PackageCyclesTest.sources(module + "/src/test/java"));
        }
        assertTrue(tests.size() > 150, "found only " + tests.size() + " test sources: is pinshard.repo the checkout?");
        assertEquals(List.of(), untagged(tests), "test classes that start a child process or a server: tag them "
            + "@org.junit.jupiter.api.Tag(\"process\") (mvn test leaves them to mvn verify's failsafe)");
    }

    @Test
    void theCheckFindsAStartDirectOrThroughAHelperAndNotInAComment() {
        String helper = "package a;\nfinal class Launcher {\n static Process run() { return new ProcessBuilder(\"x\")"
            + ".start(); }\n}\n";
        Map<String, String> sources = new TreeMap<>(Map.of(
            "m/a/Launcher.java", helper,
            "m/a/DirectTest.java", "package a;\nclass DirectTest {\n void t() { new ProcessBuilder(\"ls\"); }\n}\n",
            "m/a/ThroughTest.java", "package a;\nclass ThroughTest {\n void t() { Launcher.run(); }\n}\n",
            "m/b/ImportedTest.java", "package b;\nimport a.Launcher;\nclass ImportedTest {\n void t() {} }\n",
            "m/b/ServerTest.java", "package b;\nclass ServerTest {\n static final S3ServerExtension s = null;\n}\n",
            "m/b/OtherLauncherTest.java", "package b;\nclass OtherLauncherTest {\n void t() { Launcher.run(); }\n}\n",
            "m/a/CommentTest.java", "package a;\n/** Unlike the ProcessBuilder tests. */\nclass CommentTest {\n"
                + " String s = \"s3://b new ProcessBuilder\"; // no new ProcessBuilder here\n}\n",
            "m/a/CommentTagTest.java", "package a;\n// @Tag(\"process\") one day\nclass CommentTagTest {\n"
                + " void t() { new ProcessBuilder(\"ls\"); }\n}\n",
            "m/a/TaggedTest.java", "package a;\n@org.junit.jupiter.api.Tag(\"process\")\nclass TaggedTest {\n"
                + " void t() { Launcher.run(); }\n}\n",
            "m/a/MethodTaggedTest.java", "package a;\nimport org.junit.jupiter.api.Tag;\nclass MethodTaggedTest {\n"
                + " @Tag(\"process\") void t() { new ProcessBuilder(\"ls\"); }\n}\n"));
        assertEquals(List.of("m/a/CommentTagTest.java", "m/a/DirectTest.java", "m/a/ThroughTest.java", "m/b/ImportedTest.java",
            "m/b/ServerTest.java"), untagged(sources));
    }
}
