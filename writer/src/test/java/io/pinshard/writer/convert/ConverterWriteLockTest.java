package io.pinshard.writer.convert;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.format.DatasetBusyException;
import io.pinshard.format.DatasetManifest;
import io.pinshard.format.DatasetWriteLock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Convert's library entry point and the dataset directory's write lock. */
class ConverterWriteLockTest {
    @TempDir
    Path tmp;

    private InputListing twoImages() throws IOException {
        Path cats = Files.createDirectories(tmp.resolve("in/cat"));
        for (int i = 0; i < 2; i++) {
            byte[] pixels = TestImageFiles.gradient(24, 32, 3, i, 0);
            Files.write(cats.resolve(i + ".png"), TestImageFiles.png(pixels, 24, 32, 3));
        }
        return FolderLister.list(tmp.resolve("in"), true);
    }

    private static ConvertSummary convert(InputListing listing, Path output) throws ConvertException {
        ConvertOptions options = ConvertOptions.defaults().withShorterSide(16).withWorkers(1).withCodec(OutputCodec.RAW);
        return new Converter(options, ConvertProgress.NONE).run(listing, null, output);
    }

    private static List<String> names(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void aSecondConversionInThisJvmIsRefusedBeforeItWritesAnything() throws Exception {
        InputListing listing = twoImages();
        Path out = tmp.resolve("out");
        try (DatasetWriteLock first = DatasetWriteLock.hold(out, Converter.WRITER)) {
            DatasetBusyException busy = assertThrows(DatasetBusyException.class, () -> convert(listing, out));
            assertTrue(busy.getMessage().startsWith("pinshard convert (pid " + ProcessHandle.current().pid()
                + ", this process) is writing " + out), busy.getMessage());
            assertEquals(List.of(DatasetWriteLock.FILE_NAME), names(out), "nothing written");
            // The held lock's owner converts through it (convert to s3:// holds its staging so).
            assertEquals(2, new Converter(ConvertOptions.defaults().withShorterSide(16).withWorkers(1),
                ConvertProgress.NONE).run(listing, null, first).written());
        }
        assertEquals(List.of(InputRecord.FILE_NAME, DatasetManifest.FILE_NAME, "shard-00000.pinshard"), names(out), "the lock went at the end");
    }

    @Test
    void aKilledWritersLockFileDoesNotMakeAnEmptyOutputLookTaken() throws Exception {
        InputListing listing = twoImages();
        Path out = Files.createDirectories(tmp.resolve("out"));
        Files.writeString(out.resolve(DatasetWriteLock.FILE_NAME), "pid=999999\nwriter=pinshard convert\n");
        assertEquals(2, convert(listing, out).written());
        assertFalse(Files.exists(out.resolve(DatasetWriteLock.FILE_NAME)));
        assertEquals(2, convert(listing, out).inputs(), "the finished dataset is recognised with the lock taken");
        assertEquals(List.of(InputRecord.FILE_NAME, DatasetManifest.FILE_NAME, "shard-00000.pinshard"), names(out));
    }
}
