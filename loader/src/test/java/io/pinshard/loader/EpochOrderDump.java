package io.pinshard.loader;

import io.pinshard.loader.options.LoaderOptions;
import io.pinshard.loader.options.SampleOrder;
import io.pinshard.loader.sample.EpochPlan;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * For scripts/shuffle-quality.py (a tool, not a test): writes one epoch's order of the loader's {@link EpochPlan}
 * on one rank, record numbers as little-endian int32 in epoch order, for a dataset of RECORDS in SHARDS equal
 * shards (the last one shorter when they do not divide), with the loader's default quasi-random window (1,024) and
 * INTERLEAVE quasi-random windows shuffled together (default 1).
 * {@code EpochOrderDump RECORDS SHARDS ORDER SEED EPOCH FILE [INTERLEAVE]}
 */
public final class EpochOrderDump {
    private EpochOrderDump() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 6 && args.length != 7) {
            System.err.println("usage: EpochOrderDump RECORDS SHARDS random|sequential|quasi-random SEED EPOCH FILE"
                + " [INTERLEAVE]");
            System.exit(2);
        }
        int records = Integer.parseInt(args[0]);
        int shards = Integer.parseInt(args[1]);
        SampleOrder order = SampleOrder.parse(args[2]);
        long perShard = (records + shards - 1L) / shards;
        long[] firstRecord = new long[(int) ((records + perShard - 1) / perShard) + 1];
        for (int s = 0; s < firstRecord.length; s++) {
            firstRecord[s] = Math.min(records, s * perShard);
        }
        LoaderOptions options = LoaderOptions.builder().order(order).seed(Long.parseLong(args[3])).batchSize(256)
            .quasiRandomInterleave(args.length == 7 ? Integer.parseInt(args[6]) : 1).build();
        EpochPlan plan = new EpochPlan(records, firstRecord, options.sampling());
        int epoch = Integer.parseInt(args[4]);
        plan.prepare(0, epoch);
        ByteBuffer buffer = ByteBuffer.allocateDirect(1 << 20).order(ByteOrder.LITTLE_ENDIAN);
        long start = System.nanoTime();
        try (FileChannel out = FileChannel.open(Path.of(args[5]), StandardOpenOption.CREATE,
            StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
            for (int p = 0; p < records; p++) {
                if (!buffer.hasRemaining()) {
                    drain(buffer, out);
                }
                buffer.putInt(plan.recordAt(0, p));
            }
            drain(buffer, out);
        }
        System.err.printf("epoch %d of %s over %,d records: %.2f s%n", epoch, order.label(), records,
            (System.nanoTime() - start) / 1e9);
    }

    private static void drain(ByteBuffer buffer, FileChannel out) throws IOException {
        buffer.flip();
        while (buffer.hasRemaining()) {
            out.write(buffer);
        }
        buffer.clear();
    }
}
