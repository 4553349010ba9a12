package io.pinshard.writer.convert;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Measures (prints, asserts nothing) what the record of a conversion's inputs ({@link InputRecord}) costs: 100,000
 * image files (a stat each) and 1,000,000 tar members of 100 tars; the digest a rerun computes, writing the record,
 * and the full comparison a rerun over changed inputs makes. Off by default; run with
 * {@code mvn -pl writer -am test -Dtest=InputRecordCost -Dsurefire.failIfNoSpecifiedTests=false -Dpinshard.measureInputRecord=true}.
 */
class InputRecordCost {
    private static final int ROUNDS = 3;

    @TempDir
    Path tmp;

    @Test
    void cost() throws Exception {
        assumeTrue(Boolean.getBoolean("pinshard.measureInputRecord"), "set -Dpinshard.measureInputRecord=true");
        List<InputItem> files = new ArrayList<>();
        Path folder = Files.createDirectories(tmp.resolve("files"));
        for (int i = 0; i < 100_000; i++) {
            Path file = Files.write(folder.resolve(String.format(Locale.ROOT, "img%07d.jpg", i)), new byte[] {1, 2, 3});
            files.add(InputItem.file("files/" + file.getFileName(), 0, file));
        }
        List<InputItem> members = new ArrayList<>();
        for (int t = 0; t < 100; t++) {
            Path tar = Files.write(tmp.resolve(String.format(Locale.ROOT, "shard-%03d.tar", t)), new byte[] {0});
            for (int m = 0; m < 10_000; m++) {
                members.add(InputItem.slice(tar.getFileName() + "/" + m + ".jpg", 0, tar, 512L + 110_000L * m, 109_000));
            }
        }
        for (String what : new String[] {"100,000 files", "1,000,000 tar members"}) {
            List<InputItem> items = what.startsWith("100,000") ? files : members;
            for (int round = 0; round < ROUNDS; round++) {
                Path out = Files.createDirectories(tmp.resolve("out-" + items.size() + "-" + round));
                long t0 = System.nanoTime();
                InputRecord.of(items, null).digest();
                long t1 = System.nanoTime();
                InputRecord.of(items, null).write(out);
                long t2 = System.nanoTime();
                String change = InputRecord.of(items, null).firstChange(out);
                long t3 = System.nanoTime();
                System.out.printf(Locale.ROOT, "%s, round %d: digest %.0f ms, write %.0f ms, full comparison %.0f ms,"
                    + " record %d bytes (change found: %s)%n", what, round, (t1 - t0) / 1e6, (t2 - t1) / 1e6,
                    (t3 - t2) / 1e6, Files.size(out.resolve(InputRecord.FILE_NAME)), change);
            }
        }
    }
}
