package io.pinshard.parquet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code .parquet} file whose last 8 bytes claim a huge footer is refused from those 8 bytes: before the fix,
 * parquet-java read and parsed the whole claim (a 1 GiB sparse file took 90 s and 3.2 GB before it was refused).
 * The bound is on the heap the call allocates (the thread's allocated bytes), not on its time.
 */
class ParquetHostileFooterTest {
    /** Heap a refusal may take: the listing's own lists, a temporary spool file's name, the message; not the claim. */
    static final long ALLOCATION_BOUND = 4L << 20;

    @TempDir
    Path tmp;

    /** A sparse file of {@code size} bytes: PAR1, holes, then a footer length of {@code claimed} and PAR1. */
    static Path sparseParquet(Path file, long size, long claimed) throws IOException {
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(size);
            raf.seek(0);
            raf.write("PAR1".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            raf.seek(size - 8);
            raf.write(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt((int) claimed).array());
            raf.write("PAR1".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        }
        return file;
    }

    @Test
    void aGigabyteFooterClaimIsRefusedWithoutReadingIt() throws IOException {
        long size = 1L << 30;
        Path file = sparseParquet(tmp.resolve("train-00000-of-00001.parquet"), size, size - 1024);
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long thread = Thread.currentThread().getId();
        ParquetLister.checkFooter(sparseParquet(tmp.resolve("warm.parquet"), 4096, 100)); // its classes loaded
        long before = threads.getThreadAllocatedBytes(thread);
        IOException refused = assertThrows(IOException.class,
            () -> ParquetLister.list(file, true, List.of(), ParquetLister.DEFAULT_IMAGE_COLUMN, tmp));
        long allocated = threads.getThreadAllocatedBytes(thread) - before;
        assertTrue(refused.getMessage().startsWith(file.toString() + " claims " + (size - 1024) + " bytes of footer"),
            refused.getMessage());
        assertTrue(refused.getMessage().contains("64 MiB"), "the limit, stated: " + refused.getMessage());
        assertTrue(allocated < ALLOCATION_BOUND, allocated + " bytes allocated to refuse a 1 GiB claim");
    }

    @Test
    void aClaimLargerThanTheFileOrAWrongEndIsRefusedNamingTheFile() throws IOException {
        Path longer = sparseParquet(tmp.resolve("longer.parquet"), 4096, 4096);
        IOException refused = assertThrows(IOException.class, () -> ParquetLister.checkFooter(longer));
        assertEquals(longer + " is broken: its footer claims 4096 bytes of metadata, but the file holds 4084 bytes"
            + " besides its magic and length (truncated, or not written to its end)", refused.getMessage());
        // An unsigned reading of the length: 0xFFFFFFFF is 4 GiB, not -1.
        Path negative = sparseParquet(tmp.resolve("negative.parquet"), 4096, 0xFFFFFFFFL);
        assertTrue(assertThrows(IOException.class, () -> ParquetLister.checkFooter(negative)).getMessage()
            .contains("claims 4294967295 bytes"));
        Path notParquet = Files.write(tmp.resolve("short.parquet"), new byte[11]);
        assertTrue(assertThrows(IOException.class, () -> ParquetLister.checkFooter(notParquet)).getMessage()
            .startsWith(notParquet + " is not Parquet"));
    }

    @Test
    void aRealFilesFooterPasses() throws IOException {
        Path file = ParquetConvertTest.write(tmp.resolve("ok.parquet"),
            org.apache.parquet.hadoop.metadata.CompressionCodecName.UNCOMPRESSED);
        long footerStart = ParquetLister.checkFooter(file);
        assertTrue(footerStart > 4 && footerStart < Files.size(file) - 8, "footer at " + footerStart);
    }
}
