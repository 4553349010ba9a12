package io.pinshard.writer.vectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.pinshard.format.Codec;
import io.pinshard.format.Crc32c;
import io.pinshard.format.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs {@code format-spec/tools/read_shard.py}, a reader written from SPEC.md alone, on the committed
 * vectors: it must find every record the catalogue describes (raw and lz4 pixels compared by
 * CRC32C), and must reject every single-byte change and every truncation of a shard. Evidence that
 * the specification is complete and its checksum coverage claim holds for an independent reader.
 */
@org.junit.jupiter.api.Tag("process")
class PythonReaderTest {
    private static final Path PYTHON = Path.of("/usr/bin/python3");

    @BeforeAll
    static void needsPython() {
        assumeTrue(Files.isExecutable(PYTHON), "skipped: " + PYTHON + " is not installed");
    }

    @Test
    void independentReaderFindsEveryRecordOfEveryVector() throws Exception {
        Path vectors = TestVectorCatalog.committedDirectory();
        List<String> args = new ArrayList<>();
        for (TestVector vector : TestVectorCatalog.ALL) {
            args.add(vectors.resolve(vector.name()).toString());
        }
        Result result = run(args);
        assertEquals(0, result.exitCode, "read_shard.py reports problems:\n" + result.output);
        Map<String, List<String>> actual = new TreeMap<>();
        for (JsonNode line : result.lines) {
            String file = vectors.relativize(Path.of(line.get("file").asText())).toString().replace('\\', '/');
            String vector = file.contains("/") ? file.substring(0, file.indexOf('/')) : file;
            actual.computeIfAbsent(vector, v -> new ArrayList<>()).add(describe(line.get("key").asText(),
                line.get("label").asInt(), line.get("codec").asText(), line.get("height").asInt(),
                line.get("width").asInt(), line.get("channels").asInt(), line.get("pixelsCrc32c").asText(null))
                + (line.has("fields") ? " fields " + Json.MAPPER.writeValueAsString(line.get("fields")) : ""));
        }
        Map<String, List<String>> expected = new TreeMap<>();
        for (TestVector vector : TestVectorCatalog.ALL) {
            List<String> records = new ArrayList<>();
            for (VectorRecord r : vector.records()) {
                records.add(describe(r.key(), r.label(), r.codec().label(), r.height(), r.width(), r.channels(),
                    r.codec() == Codec.JPEG ? null : Crc32c.hex(crc32c(r.pixels())))
                    + (vector.fields().isEmpty() ? "" : " fields " + Json.MAPPER.writeValueAsString(fields(vector, r))));
            }
            expected.put(vector.name(), records);
        }
        assertEquals(expected, actual);
    }

    @Test
    void independentReaderRejectsEveryChangedByteAndEveryTruncation(@TempDir Path dir) throws Exception {
        Map<String, String> damaged = new LinkedHashMap<>();
        for (String name : List.of("raw-2x3.pinshard", "lz4-8x8.pinshard", "yuv420-5x7.pinshard",
            "fields-dataset/shard-00000.pinshard")) {
            byte[] shard = Files.readAllBytes(TestVectorCatalog.committedDirectory().resolve(name));
            for (int at = 0; at < shard.length; at++) {
                byte[] changed = shard.clone();
                changed[at] ^= (byte) 0xFF;
                Path file = dir.resolve(name.replace('/', '-') + ".flip" + at);
                Files.write(file, changed);
                damaged.put(file.toString(), name + " with byte " + at + " changed");
                Path cut = dir.resolve(name.replace('/', '-') + ".cut" + at);
                Files.write(cut, java.util.Arrays.copyOf(shard, at));
                damaged.put(cut.toString(), name + " truncated to " + at + " bytes");
            }
        }
        Result result = run(new ArrayList<>(damaged.keySet()));
        assertEquals(1, result.exitCode);
        List<String> accepted = new ArrayList<>(damaged.keySet());
        for (JsonNode line : result.lines) {
            if (line.has("error")) {
                accepted.remove(line.get("file").asText());
            }
        }
        assertEquals(List.of(), accepted.stream().map(damaged::get).toList(), "damaged shards read_shard.py accepted");
    }

    /** A record's field values as read_shard.py prints them: names sorted, bytes as hex, json parsed. */
    private static Map<String, Object> fields(TestVector vector, VectorRecord record) throws IOException {
        Map<String, Object> values = new TreeMap<>();
        for (int f = 0; f < vector.fields().size(); f++) {
            Object value = record.fieldValues().get(f);
            values.put(vector.fields().get(f).name(), switch (vector.fields().get(f).type()) {
                case UTF8 -> value;
                case JSON -> ((String) value).isEmpty() ? null : Json.MAPPER.readTree((String) value);
                case BYTES -> java.util.HexFormat.of().formatHex((byte[]) value);
                case FLOAT32 -> {
                    List<Double> doubles = new ArrayList<>();
                    for (float element : (float[]) value) {
                        doubles.add((double) element);
                    }
                    yield doubles;
                }
                default -> value; // int[] and long[] print as JSON arrays
            });
        }
        return values;
    }

    private static String describe(String key, int label, String codec, int height, int width, int channels,
                                   String pixelsCrc) {
        return key + " label " + label + " " + codec + " " + height + "x" + width + "x" + channels
            + (pixelsCrc == null ? "" : " pixels " + pixelsCrc);
    }

    private static int crc32c(byte[] bytes) {
        Crc32c crc = new Crc32c();
        crc.update(bytes, 0, bytes.length);
        return crc.value();
    }

    private record Result(int exitCode, String output, List<JsonNode> lines) {
    }

    private static Result run(List<String> paths) throws IOException, InterruptedException {
        Path script = TestVectorCatalog.repositoryRoot().resolve("format-spec/tools/read_shard.py");
        List<String> command = new ArrayList<>(List.of(PYTHON.toString(), script.toString(), "--json"));
        command.addAll(paths);
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] out = process.getInputStream().readAllBytes();
        if (!process.waitFor(2, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            throw new IllegalStateException("read_shard.py did not finish");
        }
        String output = new String(out, StandardCharsets.UTF_8);
        List<JsonNode> lines = new ArrayList<>();
        for (String line : output.split("\n")) {
            if (!line.isBlank()) {
                lines.add(Json.MAPPER.readTree(line));
            }
        }
        return new Result(process.exitValue(), output, lines);
    }
}
