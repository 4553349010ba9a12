package io.pinshard.acceptance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class DocBlocksTest {
    @Test
    void aMarkerAboveABlockGivesItsReasonEvenWrappedAndAfterBlankLines() {
        DocBlocks.Parsed parsed = DocBlocks.parse("x.md", String.join("\n",
            "Some text.", "", "*Not run by the docs test: a 20-minute benchmark;", "its smallest run is below.*", "", "",
            "```bash", "scripts/bench.sh --long", "```", "", "```sh", "scripts/bench.sh --short", "```", ""));
        assertEquals(List.of(), parsed.problems());
        DocBlocks.Block marked = parsed.blocks().get(0);
        assertEquals(7, marked.line());
        assertEquals("a 20-minute benchmark; its smallest run is below.", marked.marker().reason());
        DocBlocks.Block runs = parsed.blocks().get(1);
        assertNull(runs.marker(), "a marker covers only the block right after it");
        assertEquals("scripts/bench.sh --short\n", runs.text());
        assertTrue(runs.runnable());
    }

    @Test
    void aMarkerWithoutAReasonAFenceWithoutALanguageAndAnUnclosedMarkerAreProblems() {
        DocBlocks.Parsed parsed = DocBlocks.parse("x.md", String.join("\n",
            "*Not run by the docs test: *", "```bash", "ls", "```", "", "```", "ls", "```", "",
            "*Not run by the docs test: no closing star", "```python", "pass", "```"));
        assertEquals(3, parsed.problems().size(), parsed.problems().toString());
        assertTrue(parsed.problems().get(0).startsWith("x.md:1: "), parsed.problems().toString());
        assertTrue(parsed.problems().get(0).contains("without a reason"), parsed.problems().toString());
        assertTrue(parsed.problems().get(1).startsWith("x.md:6: a fence without a language"), parsed.problems().toString());
        assertTrue(parsed.problems().get(2).contains("does not end with *"), parsed.problems().toString());
    }

    @Test
    void textJavaAndOtherBlocksAreNotRunnableAndAConsoleBlockRunsItsPromptLines() {
        DocBlocks.Parsed parsed = DocBlocks.parse("x.md", String.join("\n",
            "```text", "a -> b", "```", "```java", "int x;", "```", "```console", "$ pinshard inspect d", "records: 3",
            "$ pinshard verify d \\", "    --threads 2", "exit 0", "```"));
        assertEquals(List.of(false, false, true),
            parsed.blocks().stream().map(DocBlocks.Block::runnable).toList());
        assertEquals("pinshard inspect d\npinshard verify d \\\n    --threads 2\n", parsed.blocks().get(2).script());
    }
}
