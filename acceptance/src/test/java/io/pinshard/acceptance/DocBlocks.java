package io.pinshard.acceptance;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The fenced code blocks of a markdown file, each with the "not run" marker that precedes it, if any, and the rule
 * breaks found while reading them (a fence without a language, an unclosed fence, a marker without a reason).
 *
 * <p>The marker is a paragraph of its own right above the block (blank lines between them allowed) that starts with
 * {@value #MARKER} and ends with {@code *}: {@code *Not run by the docs test: a 20-minute benchmark.*}. Its text
 * between the two is the reason; it may wrap over several lines.
 */
final class DocBlocks {
    static final String MARKER = "*Not run by the docs test:";

    /** Languages whose blocks the docs test runs: shell ones with bash, {@code python} with /usr/bin/python3. */
    static final Set<String> SHELL = Set.of("bash", "sh", "shell", "console");
    static final String PYTHON = "python";

    private static final Pattern FENCE = Pattern.compile("^(\\s*)(```+)\\s*([^\\s`]*)\\s*$");

    private DocBlocks() {
    }

    /** One fenced block: where it opens (1-based line of the fence), its language and text, its marker. */
    record Block(String file, int line, String language, String text, Marker marker) {
        boolean runnable() {
            return SHELL.contains(language) || PYTHON.equals(language);
        }

        boolean python() {
            return PYTHON.equals(language);
        }

        String where() {
            return file + ":" + line + " (```" + language + ")";
        }

        /**
         * The shell text to run: a console block's {@code $ } lines without the prompt (with the lines a trailing
         * backslash continues them onto), its output lines dropped; any other block's text as it stands.
         */
        String script() {
            if (!"console".equals(language)) {
                return text;
            }
            StringBuilder commands = new StringBuilder();
            boolean continued = false;
            for (String line : text.split("\n", -1)) {
                if (continued || line.startsWith("$ ")) {
                    commands.append(continued ? line : line.substring(2)).append('\n');
                    continued = line.endsWith("\\");
                }
            }
            return commands.toString();
        }
    }

    /** A marker paragraph: its line and its reason (empty when the author gave none). */
    record Marker(int line, String reason) {
    }

    /** What one file holds: its blocks and the rule breaks, each naming its line. */
    record Parsed(List<Block> blocks, List<String> problems) {
    }

    static Parsed read(Path file, String name) throws IOException {
        return parse(name, Files.readString(file, StandardCharsets.UTF_8));
    }

    static Parsed parse(String name, String markdown) {
        String[] lines = markdown.split("\n", -1);
        List<Block> blocks = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        int i = 0;
        while (i < lines.length) {
            Matcher open = FENCE.matcher(lines[i]);
            if (!open.matches()) {
                i++;
                continue;
            }
            int start = i;
            String fence = open.group(2);
            String language = open.group(3).toLowerCase(Locale.ROOT);
            String indent = open.group(1);
            StringBuilder text = new StringBuilder();
            i++;
            boolean closed = false;
            for (; i < lines.length; i++) {
                Matcher close = FENCE.matcher(lines[i]);
                if (close.matches() && close.group(3).isEmpty() && close.group(2).length() >= fence.length()) {
                    closed = true;
                    break;
                }
                String line = lines[i];
                text.append(line.startsWith(indent) ? line.substring(indent.length()) : line.strip()).append('\n');
            }
            if (!closed) {
                problems.add(name + ":" + (start + 1) + ": a fence that is never closed");
                break;
            }
            i++;
            if (language.isEmpty()) {
                problems.add(name + ":" + (start + 1) + ": a fence without a language; say what the block is"
                    + " (```bash or ```python to run it, ```text for diagrams and sample output, ```java, ...)");
            }
            Marker marker = markerAbove(lines, start, name, problems);
            blocks.add(new Block(name, start + 1, language, text.toString(), marker));
        }
        return new Parsed(blocks, problems);
    }

    /** The marker paragraph ending at the last non-blank line above {@code fenceLine}, or null. */
    private static Marker markerAbove(String[] lines, int fenceLine, String name, List<String> problems) {
        int end = fenceLine - 1;
        while (end >= 0 && lines[end].isBlank()) {
            end--;
        }
        if (end < 0 || FENCE.matcher(lines[end]).matches()) {
            return null;
        }
        int begin = end;
        while (begin > 0 && !lines[begin - 1].isBlank() && !FENCE.matcher(lines[begin - 1]).matches()) {
            begin--;
        }
        StringBuilder paragraph = new StringBuilder();
        for (int k = begin; k <= end; k++) {
            paragraph.append(k > begin ? " " : "").append(lines[k].strip());
        }
        String text = paragraph.toString();
        if (!text.startsWith(MARKER)) {
            return null;
        }
        String reason = text.substring(MARKER.length()).strip();
        if (!reason.endsWith("*")) {
            problems.add(name + ":" + (begin + 1) + ": a \"" + MARKER + "\" marker that does not end with *");
            return new Marker(begin + 1, "");
        }
        reason = reason.substring(0, reason.length() - 1).strip();
        if (reason.isEmpty()) {
            problems.add(name + ":" + (begin + 1) + ": a \"" + MARKER + "\" marker without a reason");
        }
        return new Marker(begin + 1, reason);
    }
}
