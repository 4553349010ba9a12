package io.pinshard.loader;

import io.pinshard.format.Crc32c;
import io.pinshard.format.ShardFormatException;
import io.pinshard.loader.options.LoaderOptions;
import io.pinshard.loader.options.Resampler;
import io.pinshard.loader.ring.Batch;
import io.pinshard.reader.CrcCheck;
import io.pinshard.reader.Dataset;
import io.pinshard.reader.RecordDecoder;
import io.pinshard.reader.RecordView;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Run by {@link TruncatedShardTest} in a child JVM: reads a dataset in a loop (through {@link RecordDecoder}
 * or a {@link Loader}) until a read fails, then exits 3 when the failure is a {@link ShardFormatException}
 * and 4 for anything else. A JVM crash (SIGBUS in native code reading a truncated mapping) exits 134.
 */
public final class TruncatedShardChild {
    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        boolean loader = args[1].equals("loader");
        try (Dataset dataset = Dataset.open(dir)) {
            if (args[1].equals("payload")) {
                decodeAfterTruncation(dataset, Integer.parseInt(args[2]));
            }
            boolean ready = false;
            for (int pass = 0; ; pass++) {
                if (loader) {
                    epoch(dataset, pass);
                } else {
                    decodeAll(dataset);
                }
                if (!ready) {
                    System.out.println("READY");
                    System.out.flush();
                    ready = true;
                }
            }
        } catch (Throwable t) {
            Throwable cause = t;
            while (cause != null && !(cause instanceof ShardFormatException)) {
                cause = cause.getCause();
            }
            if (cause != null) {
                System.out.println("CLEAN " + t);
                System.exit(3);
            }
            t.printStackTrace(System.out);
            System.exit(4);
        }
    }

    /** Points a view at {@code record}, waits for the parent to truncate the shard, then decodes the payload. */
    private static void decodeAfterTruncation(Dataset dataset, int record) throws java.io.IOException {
        RecordView view = dataset.record(record, new RecordView());
        RecordDecoder decoder = new RecordDecoder(CrcCheck.ALWAYS);
        UnsafeBuffer out = new UnsafeBuffer(ByteBuffer.allocateDirect(1 << 20));
        decoder.decode(view, out, 0);
        System.out.println("READY " + view.codec().label());
        System.out.flush();
        new java.io.BufferedReader(new java.io.InputStreamReader(System.in)).readLine();
        decoder.decode(view, out, 0);
        System.out.println("decoded a truncated payload");
        System.exit(5);
    }

    private static void decodeAll(Dataset dataset) {
        RecordView view = new RecordView();
        RecordDecoder decoder = new RecordDecoder(CrcCheck.ALWAYS);
        Crc32c crc = new Crc32c();
        UnsafeBuffer out = new UnsafeBuffer(ByteBuffer.allocateDirect(1 << 20));
        for (long r = 0; r < dataset.size(); r++) {
            dataset.record(r, view);
            view.payloadIntact(crc);
            decoder.decode(view, out, 0);
        }
    }

    private static void epoch(Dataset dataset, int pass) {
        LoaderOptions options = LoaderOptions.builder().batchSize(4).crop(16).workers(2).prefetch(4).seed(pass)
            .resampler(Resampler.OPENCV).build();
        try (Loader loader = Loader.open(dataset, options); Epoch epoch = loader.epoch(0)) {
            for (Batch batch : epoch) {
                batch.close();
            }
        }
    }
}
