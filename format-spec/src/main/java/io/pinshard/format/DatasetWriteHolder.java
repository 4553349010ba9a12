package io.pinshard.format;

import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/**
 * Who holds a {@link DatasetWriteLock}, as its lock file says: PID, what it is ({@code "pinshard convert"}), since when
 * and its command line. Any field may be null (an empty, cut or foreign file); values read back are escaped for
 * printing ({@link Printable#escape}), since anyone who can write the directory can write the file.
 */
public record DatasetWriteHolder(Long pid, String writer, String since, String command) {
    static final DatasetWriteHolder UNKNOWN = new DatasetWriteHolder(null, null, null, null);

    static DatasetWriteHolder ofThisProcess(String writer) {
        ProcessHandle self = ProcessHandle.current();
        String command = System.getProperty("sun.java.command");
        if (command == null || command.isBlank()) {
            command = self.info().commandLine().orElse(null);
        }
        return new DatasetWriteHolder(self.pid(), writer, Instant.now().toString(), command);
    }

    /** The file's text: a comment line, then {@code key=value} lines, values on one line each. */
    String text() {
        return "# pinshard: this process is writing the dataset in this directory while it holds an OS lock on"
            + " this file; a file left by a killed process is taken by the next writer\n"
            + "pid=" + pid + "\n"
            + "writer=" + Printable.escape(writer) + "\n"
            + "since=" + since + "\n"
            + "command=" + (command == null ? "" : Printable.escape(command)) + "\n";
    }

    static DatasetWriteHolder parse(String text) {
        Map<String, String> values = new HashMap<>();
        for (String line : text.split("\n", -1)) {
            int equals = line.indexOf('=');
            if (equals > 0 && equals + 1 < line.length() && !line.startsWith("#")) {
                values.putIfAbsent(line.substring(0, equals), Printable.escape(line.substring(equals + 1)));
            }
        }
        Long pid = null;
        String number = values.get("pid");
        if (number != null && number.matches("[0-9]{1,18}")) {
            pid = Long.parseLong(number);
        }
        return new DatasetWriteHolder(pid, values.get("writer"), values.get("since"), values.get("command"));
    }
}
