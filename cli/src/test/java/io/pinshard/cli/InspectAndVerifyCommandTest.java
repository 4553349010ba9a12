package io.pinshard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.pinshard.format.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
}
