package io.pinshard.cli;

import static io.pinshard.serve.RingDescriptor.*;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pinshard.fixtures.ChildJvm;
import io.pinshard.fixtures.ServeTestData;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Another process truncating or overwriting the ring while {@code pinshard serve} writes it (issue 23, finding 8b):
 * the server must stop with an error naming the ring and exit 1, never crash. Each run starts {@code pinshard serve}
 * in a child JVM (so a crash fails the test, not the build, and leaves its hs_err file in the test's directory),
 * lets a client in this JVM stream epochs (so the workers keep writing slots), and tampers with the file at a random
 * moment. Before the guarded ring writes, truncation killed the server with SIGBUS in OpenCV's resize.
 */
@org.junit.jupiter.api.Tag("process")
class ServeRingTamperTest {
    /** Runs per tamper: 2 in {@code mvn verify} (one per resampler), {@code -Dpinshard.tamperRuns=5} for more. */
    private static final int RUNS = Integer.getInteger("pinshard.tamperRuns", 2);
    private static final int RECORDS = 64;
    /** Runs at once: each mostly waits for its JVM to start, and the machine may have only two cores. */
    private static final int PARALLEL_RUNS = 2;

    @TempDir
    Path temp;

    enum Tamper {
        TRUNCATE_TO_ZERO, TRUNCATE_TO_HALF, OVERWRITE_WITH_GARBAGE
    }

    @ParameterizedTest
    @EnumSource(Tamper.class)
    void aTamperedRingStopsTheServerWithAnErrorNamingTheRingNotACrash(Tamper tamper) throws Exception {
        Path dataset = ServeTestData.write(temp.resolve("data"), RECORDS);
        long seed = System.nanoTime();
        Random random = new Random(seed);
        List<String> problems = new ArrayList<>();
        ExecutorService runs = Executors.newFixedThreadPool(PARALLEL_RUNS);
        try {
            List<Future<String>> outcomes = new ArrayList<>();
            for (int run = 0; run < RUNS; run++) {
                int number = run;
                int delayMillis = random.nextInt(400);
                // Crop 24 of 40 x 48 images: the vector kernel takes most boxes, OpenCV those wider than 2.5 x 24;
                // every other run has OpenCV do all of them.
                String resampler = run % 2 == 0 ? "auto" : "opencv";
                outcomes.add(runs.submit(() -> serveAndTamper(dataset, tamper, number, delayMillis, resampler)));
            }
            for (int run = 0; run < RUNS; run++) {
                String problem = outcomes.get(run).get(2, TimeUnit.MINUTES);
                if (problem != null) {
                    problems.add("run " + run + ": " + problem);
                }
            }
        } finally {
            runs.shutdownNow();
        }
        try (Stream<Path> files = Files.list(temp)) {
            List<Path> crashes = files.filter(f -> f.getFileName().toString().startsWith("hs_err")).toList();
            assertEquals(List.of(), crashes, "JVM crash logs (seed " + seed + "); " + problems);
        }
        assertEquals(List.of(), problems, "seed " + seed);
    }

    /** One server, one tampering {@code delayMillis} after the first batch arrived; what went wrong, or null. */
    private String serveAndTamper(Path dataset, Tamper tamper, int run, int delayMillis, String resampler)
        throws Exception {
        Path ring = Path.of("/dev/shm", "pinshard-tamper-" + ProcessHandle.current().pid() + "-" + run + ".ring");
        Path stdout = temp.resolve("serve-" + tamper + "-" + run + ".out");
        Path stderr = temp.resolve("serve-" + tamper + "-" + run + ".err");
        List<String> options = new ArrayList<>(List.of("-XX:-CreateCoredumpOnCrash",
            "-XX:ErrorFile=" + temp.resolve("hs_err_%p.log"), "-Xmx256m", "-XX:+UseSerialGC"));
        options.addAll(ChildJvm.pinshardFlags());
        Process server = new ProcessBuilder(ChildJvm.command(options, PinshardCommand.class, "serve", dataset.toString(),
            "--ring", ring.toString(), "--json", "--batch", "8", "--crop", "24", "--workers", "2", "--prefetch", "4",
            "--resampler", resampler)).redirectOutput(stdout.toFile()).redirectError(stderr.toFile()).start();
        Client client = null;
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!Files.readString(stdout).contains("\"event\":\"ready\"")) {
                if (!server.isAlive() || System.nanoTime() > deadline) {
                    return "the server did not get ready: exit " + (server.isAlive() ? "none" : server.exitValue())
                        + "\n" + Files.readString(stdout) + Files.readString(stderr);
                }
                Thread.sleep(20);
            }
            client = new Client(ring);
            client.start();
            while (client.taken.get() == 0 && client.failure == null && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            if (client.taken.get() == 0) {
                return "the client got no batch: " + client.failure + "\n" + Files.readString(stderr);
            }
            Thread.sleep(delayMillis);
            tamper(ring, tamper, new Random(delayMillis));
            long tampered = System.nanoTime();
            if (!server.waitFor(10, TimeUnit.SECONDS)) {
                new ProcessBuilder("kill", "-QUIT", Long.toString(server.pid())).start().waitFor(); // a thread dump
                Thread.sleep(1000);
                return tamper + " after " + delayMillis + " ms: the server still runs 10 s later\n"
                    + Files.readString(stdout) + Files.readString(stderr);
            }
            long exitMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - tampered);
            String errors = Files.readString(stderr);
            if (server.exitValue() != 1) {
                return tamper + " after " + delayMillis + " ms: exit " + server.exitValue() + " after " + exitMillis
                    + " ms (1 expected)\n" + errors;
            }
            String expected = tamper == Tamper.OVERWRITE_WITH_GARBAGE ? "overwritten by another process"
                : "truncated or replaced by another process";
            if (!errors.contains("pinshard serve: ") || !errors.contains(ring.toString()) || !errors.contains(expected)) {
                return tamper + " after " + delayMillis + " ms: stderr does not name the ring and say \"" + expected
                    + "\":\n" + errors;
            }
            if (tamper != Tamper.TRUNCATE_TO_ZERO) { // the header page survives: the client reads why the server went
                client.finish(true);
                if (client.status != STATUS_FAILED || !client.message.contains(expected)) {
                    return tamper + ": the client saw status " + client.status + ", message \"" + client.message + "\"";
                }
            }
            if (errors.contains("Exception in thread \"main\"")) {
                return tamper + " after " + delayMillis + " ms: the main thread ended in an exception\n" + errors;
            }
            System.out.printf("%s run %d (%s) after %d ms: exit 1 %d ms later%n", tamper, run, resampler, delayMillis,
                exitMillis);
            return null;
        } finally {
            if (client != null) {
                client.finish(false);
            }
            server.descendants().forEach(ProcessHandle::destroyForcibly);
            server.destroyForcibly();
            server.waitFor();
            Files.deleteIfExists(ring);
        }
    }

    private static void tamper(Path ring, Tamper tamper, Random random) throws IOException {
        try (FileChannel file = FileChannel.open(ring, StandardOpenOption.WRITE)) {
            long length = file.size();
            switch (tamper) {
                case TRUNCATE_TO_ZERO -> file.truncate(0); // truncate -s 0
                case TRUNCATE_TO_HALF -> file.truncate(length / 2); // truncate -s half
                case OVERWRITE_WITH_GARBAGE -> { // dd if=/dev/urandom conv=notrunc: same length, every byte changed
                    byte[] garbage = new byte[(int) length];
                    random.nextBytes(garbage);
                    ByteBuffer bytes = ByteBuffer.wrap(garbage);
                    while (bytes.hasRemaining()) {
                        file.write(bytes, bytes.position());
                    }
                }
                default -> throw new IllegalStateException("unreachable: " + tamper);
            }
        }
    }

    /**
     * The client's side of docs/RING.md, reduced to what keeps the workers writing: attach, then epoch after epoch
     * take each batch and release it at once. Its own reads of a truncated ring fault too (an InternalError in this
     * thread), which ends it.
     */
    private static final class Client extends Thread {
        private final UnsafeBuffer buffer;
        final AtomicLong taken = new AtomicLong();
        volatile boolean stopping;
        volatile Throwable failure;
        int status = -1;
        String message = "";

        Client(Path ring) throws IOException {
            super("tamper-test-client");
            setDaemon(true);
            try (FileChannel channel = FileChannel.open(ring, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                buffer = new UnsafeBuffer(channel.map(FileChannel.MapMode.READ_WRITE, 0, channel.size()));
            }
            checkHeader(buffer, buffer.capacity(), ring.toString());
        }

        @Override
        public void run() {
            try {
                long session = 1 + new Random().nextInt(Integer.MAX_VALUE);
                buffer.putLong(CLIENT_PID_OFFSET, ProcessHandle.current().pid());
                buffer.putInt(CLIENT_VERSION_OFFSET, VERSION);
                buffer.putLongRelease(SESSION_OFFSET, session);
                await(() -> buffer.getLongVolatile(ATTACHED_SESSION_OFFSET) == session);
                int slots = buffer.getInt(SLOT_COUNT_OFFSET);
                long command = 0;
                for (int epoch = 0; !stopping; epoch++) {
                    long mine = ++command;
                    buffer.putInt(COMMAND_KIND_OFFSET, COMMAND_EPOCH);
                    buffer.putInt(COMMAND_EPOCH_OFFSET, epoch);
                    buffer.putLongRelease(COMMAND_OFFSET, mine);
                    await(() -> buffer.getLongVolatile(ACK_COMMAND_OFFSET) == mine);
                    long first = buffer.getLong(STREAM_FIRST_SEQUENCE_OFFSET);
                    long batches = buffer.getLong(STREAM_BATCHES_OFFSET);
                    for (long sequence = first; sequence < first + batches && !stopping; sequence++) {
                        int slot = awaitSlot(sequence, slots);
                        buffer.putLongRelease(slotHeaderOffset(slot) + SLOT_RELEASED_OFFSET, sequence);
                        taken.incrementAndGet();
                    }
                }
            } catch (Throwable e) { // the ring went away under this thread's reads, or the wait was stopped
                failure = e;
            }
        }

        private int awaitSlot(long sequence, int slots) {
            int[] slot = {-1};
            await(() -> {
                for (int s = 0; s < slots; s++) {
                    if (buffer.getLongVolatile(slotHeaderOffset(s) + SLOT_SEQUENCE_OFFSET) == sequence) {
                        slot[0] = s;
                        return true;
                    }
                }
                return false;
            });
            return slot[0];
        }

        private void await(java.util.function.BooleanSupplier done) {
            long beat = 0;
            while (!done.getAsBoolean()) {
                if (stopping) {
                    throw new IllegalStateException("stopped");
                }
                buffer.putLongRelease(CLIENT_HEARTBEAT_OFFSET, ++beat);
                LockSupport.parkNanos(20_000); // five clients share two cores with their servers
            }
        }

        /**
         * Stops the thread and, when the header page is still in the file, reads what the server left there. Never
         * unmaps: a fault this thread has not been told of yet would end the JVM inside the unmapping Cleaner
         * ("Cleaner terminated abnormally"); the mapping goes with the object.
         */
        void finish(boolean readHeader) throws InterruptedException {
            stopping = true;
            join(10_000);
            if (isAlive()) {
                throw new IllegalStateException("the test client did not stop");
            }
            if (readHeader) {
                status = buffer.getIntVolatile(STATUS_OFFSET);
                int length = buffer.getInt(MESSAGE_OFFSET);
                if (length >= 0 && length <= MESSAGE_MAX_BYTES) {
                    message = buffer.getStringWithoutLengthUtf8(MESSAGE_OFFSET + Integer.BYTES, length);
                }
            }
        }
    }
}
