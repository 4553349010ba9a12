package io.pinshard.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The write lock of a dataset directory against a second process (a child JVM that holds it, or tries to), a second
 * writer in this JVM, a holder killed with SIGKILL and a lock file that is not what it should be.
 */
class DatasetWriteLockTest {
    @TempDir
    Path tmp;
    private Process child;

    /** A child JVM's main: takes the lock of args[0], prints "held" (or "busy: MESSAGE"), then waits for stdin to close. */
    public static final class Child {
        public static void main(String[] args) throws Exception {
            try (DatasetWriteLock lock = DatasetWriteLock.hold(Path.of(args[0]), "test child")) {
                System.out.println("held " + lock.file());
                System.out.flush();
                while (System.in.read() >= 0) {
                    // until the test closes our stdin or kills us
                }
            } catch (DatasetBusyException e) {
                System.out.println("busy: " + e.getMessage());
                System.out.flush();
            }
        }
    }

    @AfterEach
    void stopChild() throws InterruptedException {
        if (child != null && child.isAlive()) {
            child.destroyForcibly();
            child.waitFor(10, TimeUnit.SECONDS);
        }
    }

    /** Starts a child on {@code directory}; returns its first line ("held ..." or "busy: ..."). */
    private String startChild(Path directory) throws IOException {
        List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-cp", System.getProperty("java.class.path"), Child.class.getName(), directory.toString());
        child = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        BufferedReader lines = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
        String line = lines.readLine();
        assertTrue(line != null, "the child printed nothing");
        return line;
    }

    @org.junit.jupiter.api.Tag("process")
    @Test
    void aSecondProcessIsRefusedAtOnceNamingTheDirectoryTheLockFileAndTheHolder() throws Exception {
        Path dataset = tmp.resolve("pets");
        assertTrue(startChild(dataset).startsWith("held "));
        long started = System.nanoTime();
        DatasetBusyException busy = assertThrows(DatasetBusyException.class,
            () -> DatasetWriteLock.hold(dataset, "pinshard convert"));
        assertTrue(System.nanoTime() - started < TimeUnit.SECONDS.toNanos(5), "refused without waiting");
        String message = busy.getMessage();
        assertTrue(message.startsWith("test child (pid " + child.pid() + ") is writing " + dataset + " since "), message);
        assertTrue(message.contains("command line: " + Child.class.getName() + " " + dataset), message);
        assertTrue(message.contains("it holds the lock file " + dataset.resolve(DatasetWriteLock.FILE_NAME)), message);
        assertEquals(child.pid(), busy.holder().pid());
        assertEquals(dataset, busy.directory());

        child.getOutputStream().close(); // the child ends normally: it deletes the file and lets go
        assertTrue(child.waitFor(30, TimeUnit.SECONDS));
        assertFalse(Files.exists(dataset.resolve(DatasetWriteLock.FILE_NAME)), "a holder that ends removes its file");
        try (DatasetWriteLock lock = DatasetWriteLock.hold(dataset, "pinshard convert")) {
            assertEquals(ProcessHandle.current().pid(), lock.holder().pid());
        }
    }

    @org.junit.jupiter.api.Tag("process")
    @Test
    void aHolderKilledWithSigkillLeavesAFileTheNextWriterTakes() throws Exception {
        Path dataset = tmp.resolve("killed");
        assertTrue(startChild(dataset).startsWith("held "));
        long dead = child.pid();
        child.destroyForcibly(); // SIGKILL: no finally, no delete
        assertTrue(child.waitFor(30, TimeUnit.SECONDS));
        Path file = dataset.resolve(DatasetWriteLock.FILE_NAME);
        assertTrue(Files.readString(file).contains("pid=" + dead + "\n"), "the dead holder's file stays");
        try (DatasetWriteLock lock = DatasetWriteLock.hold(dataset, "pinshard convert")) {
            String text = Files.readString(file);
            assertTrue(text.contains("pid=" + ProcessHandle.current().pid() + "\n"), text);
            assertTrue(text.contains("writer=pinshard convert\n"), text);
            assertFalse(text.contains("pid=" + dead + "\n"), text);
        }
        assertFalse(Files.exists(file));
    }

    @Test
    void aSecondWriterInThisJvmIsRefusedAndTheFirstKeepsItsOsLock() throws Exception {
        Path dataset = tmp.resolve("same-jvm");
        try (DatasetWriteLock first = DatasetWriteLock.hold(dataset, "pinshard convert")) {
            DatasetBusyException busy = assertThrows(DatasetBusyException.class,
                () -> DatasetWriteLock.hold(dataset, "pinshard merge"));
            assertTrue(busy.getMessage().startsWith("pinshard convert (pid " + ProcessHandle.current().pid()
                + ", this process) is writing " + dataset), busy.getMessage());
            // The refusal opened no second descriptor: POSIX would have dropped the first one's lock with it.
            String other = startChild(dataset);
            assertTrue(other.startsWith("busy: pinshard convert (pid " + ProcessHandle.current().pid() + ")"), other);
            assertTrue(Files.exists(first.file()));
        }
        try (DatasetWriteLock again = DatasetWriteLock.hold(dataset, "pinshard merge")) {
            assertEquals("pinshard merge", again.holder().writer());
        }
    }

    @Test
    void aLockTakenInThisJvmByOtherCodeIsARefusalAndStaysHeld() throws Exception {
        Path dataset = Files.createDirectories(tmp.resolve("overlap"));
        Path file = dataset.resolve(DatasetWriteLock.FILE_NAME);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
             FileLock lock = channel.lock()) {
            DatasetBusyException busy = assertThrows(DatasetBusyException.class,
                () -> DatasetWriteLock.hold(dataset, "pinshard convert"));
            assertTrue(busy.getMessage().startsWith("another writer (pid unknown, this process) is writing " + dataset),
                busy.getMessage());
            assertTrue(lock.isValid());
            assertTrue(startChild(dataset).startsWith("busy: "), "the other code's OS lock still holds");
        }
    }

    @Test
    void releaseDeletesTheFileAndToleratesItsDirectoryGoneAlready() throws Exception {
        Path dataset = tmp.resolve("staging");
        DatasetWriteLock lock = DatasetWriteLock.hold(dataset, "pinshard convert");
        assertTrue(Files.isDirectory(dataset), "created");
        Files.delete(lock.file()); // convert's s3 staging deletes its whole directory before it lets go
        Files.delete(dataset);
        lock.close();
        lock.close();
        try (DatasetWriteLock next = DatasetWriteLock.hold(dataset, "pinshard convert")) {
            assertTrue(Files.exists(next.file()));
        }
    }

    @Test
    void aLockFileThatIsNotARegularFileIsRefusedUnopened() throws Exception {
        Path dataset = Files.createDirectories(tmp.resolve("odd"));
        Files.createSymbolicLink(dataset.resolve(DatasetWriteLock.FILE_NAME), tmp.resolve("elsewhere"));
        IOException refused = assertThrows(IOException.class, () -> DatasetWriteLock.hold(dataset, "pinshard pull"));
        assertTrue(refused.getMessage().contains("is not a regular file"), refused.getMessage());
        assertFalse(Files.exists(tmp.resolve("elsewhere")), "the link was not followed");
    }

    @Test
    void aHoldersLinesAreReadBackEscapedAndGarbageNamesNoOne() {
        DatasetWriteHolder holder = new DatasetWriteHolder(42L, "pinshard pull", "2026-12-03T14:00:00Z",
            "pinshard.jar pull s3://b/p /data/x\n\u001b[31m");
        DatasetWriteHolder read = DatasetWriteHolder.parse(holder.text());
        assertEquals(42L, read.pid());
        assertEquals("pinshard pull", read.writer());
        assertEquals("pinshard.jar pull s3://b/p /data/x\\n\\x1b[31m", read.command());
        DatasetWriteHolder garbage = DatasetWriteHolder.parse("pid=-1\n\u0000\u0000 not ours\nwriter=\n");
        assertEquals(new DatasetWriteHolder(null, null, null, null), garbage);
    }
}
