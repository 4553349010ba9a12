package io.pinshard.cli;

/**
 * What a resumable command (convert, push, pull) says when a signal stops it midway (Ctrl-C, {@code kill PID}):
 * that its output is not complete and that the same command resumes; without it a stopped command printed nothing.
 * Armed for the command's work, as a shutdown hook; closed (the hook removed) once the work returns or throws.
 */
final class StopNotice implements AutoCloseable {
    private final Thread hook;

    private StopNotice(Thread hook) {
        this.hook = hook;
    }

    /** Arms the notice {@code "pinshard COMMAND: stopped by a signal; STATE; run the same command again ..."}. */
    static StopNotice arm(String command, String state) {
        return arm(command, () -> null, state);
    }

    /**
     * As above, with what was done by the time of the signal ({@code done}, asked in the hook: "2 of 6 shard(s) in
     * place, 78.1 KiB of 234.4 KiB sent") before the state; a null or failing {@code done} is left out.
     */
    static StopNotice arm(String command, java.util.function.Supplier<String> done, String state) {
        // On a terminal the progress bar's line is still open: the notice starts on a line of its own.
        String start = System.console() != null ? System.lineSeparator() : "";
        Thread hook = new Thread(() -> {
            String did;
            try {
                did = done.get();
            } catch (RuntimeException e) {
                did = null;
            }
            System.err.println(start + "pinshard " + command + ": stopped by a signal; "
                + (did == null || did.isEmpty() ? "" : did + "; ") + state + "; run the same command again to resume");
            System.err.flush();
        }, "pinshard-stop-notice");
        Runtime.getRuntime().addShutdownHook(hook);
        return new StopNotice(hook);
    }

    @Override
    public void close() {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shutdownInProgress) {
            // A signal came as the work ended: the notice is printed, which is true enough.
        }
    }
}
