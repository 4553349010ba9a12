package io.pinshard.format;

import java.nio.file.Path;

/**
 * A dataset directory that another writer holds ({@link DatasetWriteLock}): refused at once, nothing written. The
 * message names the directory, the lock file and the holder as its lock file describes it.
 */
public final class DatasetBusyException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    private final transient Path directory;
    private final transient Path lockFile;
    private final transient DatasetWriteHolder holder;

    DatasetBusyException(Path directory, Path lockFile, DatasetWriteHolder holder, boolean thisProcess) {
        super(message(directory, lockFile, holder, thisProcess));
        this.directory = directory;
        this.lockFile = lockFile;
        this.holder = holder;
    }

    private static String message(Path directory, Path lockFile, DatasetWriteHolder holder, boolean thisProcess) {
        String dir = Printable.escape(directory.toString());
        String who = holder.writer() != null ? holder.writer() : "another writer";
        String pid = holder.pid() != null ? "pid " + holder.pid() : "pid unknown";
        StringBuilder text = new StringBuilder(who).append(" (").append(pid)
            .append(thisProcess ? ", this process" : "").append(") is writing ").append(dir);
        if (holder.since() != null) {
            text.append(" since ").append(holder.since());
        }
        if (holder.command() != null) {
            text.append(" (command line: ").append(holder.command()).append(')');
        }
        return text.append("; it holds the lock file ").append(Printable.escape(lockFile.toString()))
            .append(". One writer per dataset directory: wait for it to finish, or write into another directory;")
            .append(" nothing was written").toString();
    }

    /** The dataset directory that is being written. */
    public Path directory() {
        return directory;
    }

    /** Its lock file. */
    public Path lockFile() {
        return lockFile;
    }

    /** The holder, as the lock file (or this JVM's table) describes it; fields may be null. */
    public DatasetWriteHolder holder() {
        return holder;
    }
}
