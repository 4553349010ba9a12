package io.pinshard.cli;

import io.pinshard.format.Codec;
import io.pinshard.writer.DatasetWriter;
import io.pinshard.writer.DatasetWriterOptions;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import org.agrona.concurrent.UnsafeBuffer;
import picocli.CommandLine;

/** Runs the pinshard command in-process and captures what it prints. */
final class CommandTestSupport {
    record Result(int exitCode, String out, String err) {
    }

    private CommandTestSupport() {
    }

    static Result run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine commandLine = PinshardCommand.newCommandLine();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        int code = commandLine.execute(args);
        return new Result(code, out.toString(), err.toString());
    }

    /** A dataset of {@code count} 8x6 images over two classes, raw and lz4 alternating, in several shards. */
    static void writeDataset(Path dir, int count) throws IOException {
        DatasetWriterOptions options = DatasetWriterOptions.defaults().withClasses(List.of("cat", "dog"))
            .withTargetShardBytes(2048);
        try (DatasetWriter writer = new DatasetWriter(dir, options)) {
            for (int i = 0; i < count; i++) {
                byte[] pixels = new byte[8 * 6 * 3];
                java.util.Arrays.fill(pixels, (byte) i);
                writer.appendPixels(new UnsafeBuffer(pixels), 0, 8, 6, 3, i % 2, "img" + i,
                    i % 2 == 0 ? Codec.RAW : Codec.LZ4);
            }
            writer.finish();
        }
    }
}
