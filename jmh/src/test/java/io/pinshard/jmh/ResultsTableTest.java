package io.pinshard.jmh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.jmh.report.ResultsTable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Markdown table turns JMH's per-operation figures into images/s and heap bytes per image. */
class ResultsTableTest {
    @TempDir
    Path dir;

    @Test
    void statesImagesPerSecondHeapPerImageAndSpeedUpOverTheNaiveLoader() throws IOException {
        Path json = dir.resolve("r.json");
        Files.writeString(json, """
            [ {"benchmark": "io.pinshard.jmh.NaiveLoaderBenchmark.loadOneSample", "mode": "thrpt", "jdkVersion": "17",
               "params": {"crop": "224", "input": "full-size-jpeg"},
               "primaryMetric": {"score": 2.0, "scoreError": 0.5, "scoreUnit": "ops/s"},
               "secondaryMetrics": {"gc.alloc.rate.norm": {"score": 1000000.0, "scoreUnit": "B/op"}}},
              {"benchmark": "io.pinshard.jmh.LoaderBenchmark.nextBatch", "mode": "thrpt",
               "params": {"batch": "256", "codec": "raw"},
               "primaryMetric": {"score": 10.0, "scoreError": 1.0, "scoreUnit": "ops/s"},
               "secondaryMetrics": {"gc.alloc.rate.norm": {"score": 512.0, "scoreUnit": "B/op"}}},
              {"benchmark": "io.pinshard.jmh.ConvertBenchmark.convert", "mode": "ss",
               "params": {"images": "40", "workers": "2"},
               "primaryMetric": {"score": 4.0, "scoreUnit": "s/op"}, "secondaryMetrics": {}},
              {"benchmark": "io.pinshard.jmh.RecordAccessBenchmark.accessOneRecord", "mode": "avgt",
               "params": {"order": "random"},
               "primaryMetric": {"score": 150.0, "scoreError": 3.0, "scoreUnit": "ns/op"}, "secondaryMetrics": {}} ]
            """);
        Path md = dir.resolve("r.md");
        ResultsTable.main(new String[] {json.toString(), md.toString(), "test", "jmh/run.sh test"});
        String table = Files.readString(md);
        assertTrue(table.contains("| LoaderBenchmark.nextBatch | batch=256 codec=raw | 10.00 ± 1.00 | ops/s | 2,560 | 1,280x | 512 | 2.00 |"), table);
        assertTrue(table.contains("| NaiveLoaderBenchmark.loadOneSample | crop=224 input=full-size-jpeg | 2.00 ± 0.500 | ops/s | 2.00 | 1.0x |"), table);
        assertTrue(table.contains("| ConvertBenchmark.convert | images=40 workers=2 | 4.00 | s/op | 10.00 | - | - | - |"), table);
        assertTrue(table.contains("| RecordAccessBenchmark.accessOneRecord | order=random | 150 ± 3.00 | ns/op | - | - | - | - |"), table);
        assertEquals(1, table.lines().filter(l -> l.startsWith("- Command: `jmh/run.sh test`")).count(), table);
    }
}
