package io.pinshard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.pinshard.format.Codec;
import io.pinshard.format.DatasetManifest;
import io.pinshard.format.Json;
import io.pinshard.writer.DatasetWriter;
import io.pinshard.writer.DatasetWriterOptions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class InspectAndVerifyCommandTest {
    @TempDir
    Path dir;

    @Test
    void inspectJsonListsRecordsShardsAndClasses() throws IOException {
        CommandTestSupport.writeDataset(dir, 30);
        CommandTestSupport.Result result = CommandTestSupport.run("inspect", dir.toString(), "--json");
        assertEquals(0, result.exitCode(), result.err());
        JsonNode json = Json.MAPPER.readTree(result.out());
        assertEquals(30, json.get("records").asLong());
        assertTrue(json.get("shards").size() > 1, "several shards: " + json.get("shards"));
        long records = 0;
        long bytes = 0;
        for (JsonNode shard : json.get("shards")) {
            records += shard.get("records").asLong();
            bytes += shard.get("bytes").asLong();
            assertEquals(Files.size(dir.resolve(shard.get("file").asText())), shard.get("bytes").asLong());
        }
        assertEquals(30, records);
        assertEquals(json.get("bytes").asLong(), bytes);
        assertEquals(15, json.get("classes").get(0).get("records").asLong());
        assertEquals("dog", json.get("classes").get(1).get("name").asText());
        assertEquals(15, json.get("codecs").get("raw").asLong());
        assertEquals(8, json.get("imageSize").get("maxHeight").asInt());
    }

    @Test
    void inspectTextNamesTheClasses() throws IOException {
        CommandTestSupport.writeDataset(dir, 4);
        CommandTestSupport.Result result = CommandTestSupport.run("inspect", dir.toString());
        assertEquals(0, result.exitCode());
        assertTrue(result.out().contains("cat") && result.out().contains("records      4"), result.out());
    }

    @Test
    void verifyExitsZeroWhenIntactAndOneNamingShardAndRecordWhenCorrupt() throws IOException {
        CommandTestSupport.writeDataset(dir, 10);
        assertEquals(0, CommandTestSupport.run("verify", dir.toString()).exitCode());
        Path shard = dir.resolve("shard-00000.pinshard");
        byte[] bytes = Files.readAllBytes(shard);
        bytes[64] ^= 1; // first byte of record 0's payload
        Files.write(shard, bytes);
        CommandTestSupport.Result result = CommandTestSupport.run("verify", dir.toString());
        assertEquals(1, result.exitCode());
        assertTrue(result.out().contains("shard-00000.pinshard record 0: payload CRC32C"), result.out());
    }

    @Test
    void verifyExitsTwoForWhatIsNotADatasetOrBadUsage(@TempDir Path empty) {
        assertEquals(2, CommandTestSupport.run("verify", empty.toString()).exitCode());
        assertEquals(2, CommandTestSupport.run("verify", empty.resolve("missing").toString()).exitCode());
        assertEquals(2, CommandTestSupport.run("verify").exitCode());
        assertEquals(2, CommandTestSupport.run("verify", "--no-such-option", empty.toString()).exitCode());
        assertEquals(2, CommandTestSupport.run("inspect", empty.toString()).exitCode());
    }

    @Test
    void dumpAnnotatesTheCommittedTestVector() {
        Path vector = Path.of(System.getProperty("pinshard.repo"), "format-spec/test-vectors/raw-2x3.pinshard");
        CommandTestSupport.Result result = CommandTestSupport.run("dump", vector.toString());
        assertEquals(0, result.exitCode(), result.err());
        assertTrue(result.out().contains("PINSHARD") && result.out().contains("DRAHSNIP"), result.out());
        assertEquals(1, CommandTestSupport.run("dump", Path.of(System.getProperty("pinshard.repo"), "README.md").toString()).exitCode());
    }

    @Test
    void verifyDecodesByDefaultAndSaysSoInItsHelp() throws IOException {
        CommandTestSupport.writeDataset(dir, 6);
        CommandTestSupport.Result help = CommandTestSupport.run("verify", "--help");
        assertTrue(help.out().contains("--no-decode") && help.out().contains("decoded as the loader decodes it"),
            help.out());
        CommandTestSupport.Result fast = CommandTestSupport.run("verify", "--no-decode", dir.toString());
        assertEquals(0, fast.exitCode(), fast.err());
        assertTrue(fast.out().contains("payloads not decoded"), fast.out());
        CommandTestSupport.Result full = CommandTestSupport.run("verify", dir.toString());
        assertEquals(0, full.exitCode(), full.err());
        assertTrue(full.out().endsWith(": intact" + System.lineSeparator()), full.out());
        assertTrue(full.err().matches("(?s)verify: [0-9.,]+ MB checked in [0-9.]+ s: [0-9.]+ GB/s \\(\\d+ thread\\(s\\), payloads decoded\\)\\R"),
            "the rate, on stderr: " + full.err());
    }

    @Test
    void namesWithTerminalEscapesArePrintedEscaped() throws IOException {
        String hostile = "\u001b[31mcat\u001b]0;owned\u0007";
        DatasetWriterOptions options = DatasetWriterOptions.defaults().withClasses(List.of(hostile, "dog"));
        try (DatasetWriter writer = new DatasetWriter(dir, options)) {
            writer.appendPixels(new UnsafeBuffer(new byte[12]), 0, 2, 2, 3, 0, "k", Codec.RAW);
            writer.finish();
        }
        for (String command : List.of("inspect", "verify")) {
            CommandTestSupport.Result result = CommandTestSupport.run(command, dir.toString());
            assertEquals(0, result.exitCode(), result.err());
            assertNoControls(result);
        }
        assertTrue(CommandTestSupport.run("inspect", dir.toString()).out().contains("\\x1b[31mcat"));

        // A shard name with escapes: refused, and the refusal shows the name escaped.
        String shard = "\u001b]0;owned\u0007.pinshard";
        String original = Json.readManifest(dir).shards().get(0).file();
        Files.move(dir.resolve(original), dir.resolve(shard));
        Path manifest = dir.resolve(DatasetManifest.FILE_NAME);
        Files.writeString(manifest, Files.readString(manifest).replace(original, "\\u001b]0;owned\\u0007.pinshard"));
        for (String command : List.of("inspect", "verify")) {
            CommandTestSupport.Result result = CommandTestSupport.run(command, dir.toString());
            assertEquals(1, result.exitCode(), command + ": " + result.out() + result.err());
            assertNoControls(result);
            assertTrue((result.out() + result.err()).contains("\\x1b]0;owned\\x07"), result.out() + result.err());
        }
    }

    private static void assertNoControls(CommandTestSupport.Result result) {
        String all = result.out() + result.err();
        assertTrue(all.chars().noneMatch(c -> c == 0x1b || c == 0x07), "unescaped control characters: " + all);
    }

    @Test
    void aNulInAShardNameOrANullShardIsABadManifestNotANullPointer() throws IOException {
        CommandTestSupport.writeDataset(dir, 2);
        Path manifest = dir.resolve(DatasetManifest.FILE_NAME);
        String original = Files.readString(manifest);
        String shard = Json.readManifest(dir).shards().get(0).file();
        Files.writeString(manifest, original.replace(shard, "shard\\u0000.pinshard"));
        for (String command : List.of("inspect", "verify")) {
            CommandTestSupport.Result result = CommandTestSupport.run(command, dir.toString());
            assertEquals(1, result.exitCode(), command + ": " + result.out() + result.err());
            assertTrue((result.out() + result.err()).contains("control character"), result.out() + result.err());
        }
        Files.writeString(manifest, "{\"format\":\"pinshard-dataset\",\"formatVersion\":\"1.0\",\"records\":0,"
            + "\"bytes\":0,\"classes\":[],\"shards\":[null]}", StandardCharsets.UTF_8);
        for (String command : List.of("inspect", "verify")) {
            CommandTestSupport.Result result = CommandTestSupport.run(command, dir.toString());
            assertEquals(1, result.exitCode(), command + ": " + result.out() + result.err());
            String all = result.out() + result.err();
            assertTrue(all.contains("shards[0] is null") && !all.contains("NullPointerException"), all);
        }
    }

    @org.junit.jupiter.api.Tag("process")
    @Test
    void aFifoInPlaceOfAShardEndsEveryCommandPromptly() throws Exception {
        CommandTestSupport.writeDataset(dir, 4);
        Path shard = dir.resolve(Json.readManifest(dir).shards().get(0).file());
        Files.delete(shard);
        assertEquals(0, new ProcessBuilder("mkfifo", shard.toString()).start().waitFor());
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            CommandTestSupport.Result verify = CommandTestSupport.run("verify", dir.toString());
            assertEquals(1, verify.exitCode(), verify.err());
            assertTrue(verify.out().contains("not a regular file"), verify.out());
            assertEquals(1, CommandTestSupport.run("inspect", dir.toString()).exitCode());
            CommandTestSupport.Result dump = CommandTestSupport.run("dump", shard.toString());
            assertEquals(2, dump.exitCode(), dump.err());
            assertFalse(dump.err().isEmpty());
        });
    }
}
