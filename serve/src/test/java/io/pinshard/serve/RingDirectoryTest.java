package io.pinshard.serve;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The attacks of issue 24 on ring names, by a second real user ({@code nobody}, through {@code setpriv}) sharing
 * the sticky, world-writable {@code /dev/shm} with this one: each hung or attached before and is refused now,
 * naming the path and its owner. Skipped, saying why, where the test cannot run a second user.
 */
@org.junit.jupiter.api.Tag("process")
class RingDirectoryTest {
    private static final int NOBODY = 65534;
    private static final Path SHM = Path.of("/dev/shm");
    private final String tag = "pinshard-attack-" + ProcessHandle.current().pid() + "-" + UUID.randomUUID();
    private final List<Path> made = new java.util.ArrayList<>();

    @AfterEach
    void removeWhatTheAttackerMade() throws IOException {
        for (Path path : made) {
            Files.deleteIfExists(path);
        }
    }

    @Test
    void theDirectoryIsCreatedOwnerOnlyAndABareNameLiesInIt() throws IOException {
        Path directory = Files.createTempDirectory("ringdir").resolve("pinshard-" + RingDirectory.ownUid());
        made.add(directory);
        assertEquals(directory, RingDirectory.ensure(directory));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(directory)));
        assertEquals(directory, RingDirectory.ensure(directory), "a second use checks and accepts it");
        Path bare = RingDirectory.resolve("train.ring", 1);
        assertEquals(RingDirectory.current().resolve("train.ring"), bare);
        assertEquals(Path.of("/some/where/x.ring"), RingDirectory.resolve("/some/where/x.ring", 1));
        assertEquals("pinshard-42.ring", RingDirectory.resolve(null, 42).getFileName().toString());
        assertTrue(assertThrows(IllegalArgumentException.class,
            () -> RingDirectory.resolve("", 42)).getMessage().startsWith("--ring is empty"), "not the default ring");
    }

    @Test
    void aDirectoryOfTheRightNameWithTheWrongModeIsRefused() throws IOException {
        Path directory = Files.createTempDirectory("ringdir-open");
        made.add(directory);
        Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString("rwxrwxrwx"));
        IllegalStateException refused = assertThrows(IllegalStateException.class,
            () -> RingDirectory.ensure(directory));
        assertTrue(refused.getMessage().contains(directory + " is a directory owned by uid " + RingDirectory.ownUid()
            + " with mode 0777"), refused.getMessage());
    }

    @Test
    void xdgRuntimeDirIsUsedOnlyWhenItIsOursAndPrivate() throws IOException {
        Path runtime = Files.createTempDirectory("xdg");
        made.add(runtime);
        Files.setPosixFilePermissions(runtime, PosixFilePermissions.fromString("rwx------"));
        assertEquals(runtime.resolve("pinshard"), RingDirectory.of(Map.of("XDG_RUNTIME_DIR", runtime.toString())));
        Files.setPosixFilePermissions(runtime, PosixFilePermissions.fromString("rwxr-xr-x"));
        assertEquals(RingDirectory.of(Map.of()), RingDirectory.of(Map.of("XDG_RUNTIME_DIR", runtime.toString())),
            "a runtime directory others can read is not used");
    }

    @Test
    void anotherUsersDirectoryAtTheRingDirectorysNameIsRefused() throws Exception {
        Path directory = SHM.resolve(tag + "-dir");
        asNobody("mkdir -m 0700 " + directory);
        IllegalStateException refused = assertTimeoutPreemptively(Duration.ofSeconds(10),
            () -> assertThrows(IllegalStateException.class, () -> RingDirectory.ensure(directory)));
        assertTrue(refused.getMessage().contains(directory + " is a directory owned by uid " + NOBODY),
            refused.getMessage());
    }

    @Test
    void aFifoAtAnExplicitRingPathIsRefusedNotOpened() throws Exception {
        Path fifo = SHM.resolve(tag + ".ring");
        asNobody("mkfifo -m 0666 " + fifo);
        // Before: prepare opened it and hung; the sweep of its directory must not hang either.
        IllegalStateException refused = assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
            StaleRings.sweep(SHM);
            return assertThrows(IllegalStateException.class, () -> RingFile.prepare(fifo, 2));
        });
        assertTrue(refused.getMessage().contains(fifo + " is a FIFO owned by uid " + NOBODY), refused.getMessage());
        assertTrue(Files.exists(fifo), "another user's FIFO is not removed");
    }

    @Test
    void anotherUsersLiveRingAtAnExplicitPathIsRefusedNamingItsOwner() throws Exception {
        Path ring = SHM.resolve(tag + ".ring");
        // A real ring header whose server (a sleep of nobody's) runs: before, the victim's server said "in use" and the
        // victim's client attached to it.
        Process server = new ProcessBuilder("setpriv", "--reuid=" + NOBODY, "--regid=" + NOBODY, "--clear-groups",
            "sleep", "60").start();
        try {
            byte[] header = new byte[RingDescriptor.HEADER_END + RingDescriptor.BLOCK_LENGTH];
            org.agrona.concurrent.UnsafeBuffer b = new org.agrona.concurrent.UnsafeBuffer(header);
            b.putBytes(RingDescriptor.MAGIC_OFFSET, RingDescriptor.MAGIC);
            b.putInt(RingDescriptor.VERSION_OFFSET, RingDescriptor.VERSION);
            b.putLong(RingDescriptor.SERVER_PID_OFFSET, server.pid());
            b.putLong(RingDescriptor.SERVER_START_MILLIS_OFFSET, RingFile.RingOwner.startMillis(server.toHandle()));
            Path staged = Files.createTempFile("ring", ".bin");
            Files.write(staged, header);
            staged.toFile().setReadable(true, false);
            asNobody("cp " + staged + " " + ring + " && chmod 0600 " + ring);
            Files.delete(staged);
            IllegalStateException refused = assertTimeoutPreemptively(Duration.ofSeconds(10),
                () -> assertThrows(IllegalStateException.class, () -> RingFile.prepare(ring, 2)));
            assertTrue(refused.getMessage().contains(ring + " is a regular file owned by uid " + NOBODY
                + " with mode 0600"), refused.getMessage());
        } finally {
            server.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        }
    }

    /** Runs {@code script} as {@code nobody}; skips the test where that cannot be done. */
    private void asNobody(String script) throws Exception {
        assumeTrue(RingDirectory.ownUid() == 0, "the test runs a second user through setpriv, which needs root");
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/setpriv")), "no /usr/bin/setpriv");
        assumeTrue(Files.isDirectory(SHM), "no /dev/shm");
        for (String word : script.split(" ")) {
            if (word.startsWith(SHM.toString())) {
                made.add(Path.of(word));
            }
        }
        Process p = new ProcessBuilder("setpriv", "--reuid=" + NOBODY, "--regid=" + NOBODY, "--clear-groups", "sh",
            "-c", script).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(10, TimeUnit.SECONDS), script);
        assertEquals(0, p.exitValue(), script + ": " + output);
    }
}
