package io.pinshard.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.management.ThreadMXBean;
import io.pinshard.format.Crc32c;
import io.pinshard.testkit.S3ServerExtension;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The store path allocates per request, never per piece of body: downloading an object 64 MiB larger (256 more
 * 256 KiB pieces read, written and checksummed) allocates no more heap on the downloading thread than a 1 MiB one,
 * beyond the noise of one request's own allocations. Before, a ByteBuffer per piece was 48 bytes each or more.
 */
@org.junit.jupiter.api.Tag("process")
class ObjectDownloadHeapTest {
    private static final ThreadMXBean THREADS = (ThreadMXBean) ManagementFactory.getThreadMXBean();
    private static final int SMALL = 1 << 20;
    private static final int LARGE = 65 << 20;

    @RegisterExtension
    static final S3ServerExtension server = new S3ServerExtension().withBuckets("heap");

    @TempDir
    Path tmp;

    @Test
    void heapPerDownloadDoesNotGrowWithTheBody() throws Exception {
        try (S3Client s3 = S3Clients.create(S3TestSettings.of(server).build())) {
            Random random = new Random(28);
            int[] crcs = new int[2];
            int[] sizes = {SMALL, LARGE};
            for (int i = 0; i < 2; i++) {
                byte[] body = new byte[sizes[i]];
                random.nextBytes(body);
                Crc32c crc = new Crc32c();
                crc.update(body, 0, body.length);
                crcs[i] = crc.value();
                String key = "object-" + i;
                s3.putObject(b -> b.bucket("heap").key(key), RequestBody.fromBytes(body));
            }
            ObjectDownload download = new ObjectDownload(s3, 1, Duration.ofMinutes(1));
            long[] least = {Long.MAX_VALUE, Long.MAX_VALUE};
            for (int round = 0; round < 6; round++) { // the first rounds warm the SDK's and Apache's code
                for (int i = 0; i < 2; i++) {
                    Path part = tmp.resolve("part-" + round + "-" + i);
                    long before = THREADS.getCurrentThreadAllocatedBytes();
                    ObjectDownload.Body got = download.to(part, "heap", "object-" + i, sizes[i], "s3://heap/object-" + i,
                        ObjectDownload.ResponseCheck.NONE, n -> { });
                    long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
                    assertEquals(crcs[i], got.crc32c(), "the checksum computed as the body arrived");
                    assertEquals(sizes[i], Files.size(part));
                    Files.delete(part);
                    if (round >= 2) {
                        least[i] = Math.min(least[i], allocated);
                    }
                }
            }
            long pieces = (LARGE - SMALL) / (256 << 10);
            long extra = least[1] - least[0];
            assertTrue(extra < pieces * 16, "a " + (LARGE >> 20) + " MiB download allocated " + least[1] + " bytes, a "
                + (SMALL >> 20) + " MiB one " + least[0] + ": " + extra + " more for " + pieces + " more pieces");
        }
    }
}
