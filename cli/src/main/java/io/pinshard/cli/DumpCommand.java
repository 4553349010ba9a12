package io.pinshard.cli;

import io.pinshard.format.DatasetFiles;
import io.pinshard.format.ShardFormatException;
import io.pinshard.format.ShardHexDump;
import io.pinshard.reader.MappedShard;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code pinshard dump SHARD}: annotated hex dump of one shard file, field by field, as in SPEC.md. */
@Command(name = "dump", mixinStandardHelpOptions = true,
    description = "Print an annotated hex dump of one shard file (header, payloads, index, keys, fields section, metadata, footer).")
final class DumpCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "SHARD", description = "A .pinshard file.")
    Path shard;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        try {
            DatasetFiles.checkRegularFile(shard); // a FIFO or device would block or never end
        } catch (ShardFormatException e) {
            throw new IllegalArgumentException(e.getMessage(), e); // the argument names no file to read
        }
        try (MappedShard mapped = MappedShard.open(shard, null, true)) {
            spec.commandLine().getOut().print(ShardHexDump.render(mapped.buffer()));
            spec.commandLine().getOut().flush();
            return 0;
        } catch (ShardFormatException e) {
            // A file that cannot be read is the argument's fault; one that reads but is no shard, the file's.
            throw e.kind() == ShardFormatException.Kind.IO_ERROR ? new IllegalArgumentException(e.getMessage(), e) : e;
        }
    }
}
