package io.pinshard.writer.vectors;

import io.pinshard.format.ShardHexDump;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The generated blocks embedded in SPEC.md: annotated hex dumps between {@code <!-- hexdump:NAME -->}
 * and {@code <!-- /hexdump -->}, and verbatim JSON files between {@code <!-- include:NAME -->} and
 * {@code <!-- /include -->}, NAME being a file relative to the vectors directory.
 */
final class SpecHexDumps {
    static final Pattern BLOCK = Pattern.compile("(<!-- (hexdump|include):(\\S+) -->\\n)(.*?)(<!-- /\\2 -->)", Pattern.DOTALL);

    /** A dump block as it belongs in SPEC.md, between the markers. */
    record Block(String name, String embedded, String expected) {
    }

    private SpecHexDumps() {
    }

    static List<Block> blocks(String spec, Path vectors) throws IOException {
        List<Block> blocks = new ArrayList<>();
        Matcher matcher = BLOCK.matcher(spec);
        while (matcher.find()) {
            String name = matcher.group(3);
            blocks.add(new Block(name, matcher.group(4), render(matcher.group(2), vectors.resolve(name))));
        }
        return blocks;
    }

    /** SPEC.md with every dump block replaced by the dump of the named shard in {@code vectors}. */
    static String refresh(String spec, Path vectors) throws IOException {
        Matcher matcher = BLOCK.matcher(spec);
        StringBuilder out = new StringBuilder();
        while (matcher.find()) {
            String block = render(matcher.group(2), vectors.resolve(matcher.group(3)));
            matcher.appendReplacement(out, Matcher.quoteReplacement(matcher.group(1) + block + matcher.group(5)));
        }
        matcher.appendTail(out);
        return out.toString();
    }

    static String render(String kind, Path file) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        if (kind.equals("include")) {
            return "```json\n" + new String(bytes, StandardCharsets.UTF_8) + "```\n";
        }
        return "```text\n" + ShardHexDump.render(new UnsafeBuffer(bytes)) + "```\n";
    }
}
