package io.pinshard.writer.convert;

/**
 * {@code --part i/N}: this run converts slice {@code index} (0-based) of {@code count} contiguous
 * slices of the input listing. Its shards are named {@code part-IIIII-of-NNNNN-shard-SSSSS.pinshard}
 * so that parts can be merged into one directory without renaming or rewriting a byte.
 */
public record PartSpec(int index, int count) {
    public PartSpec {
        if (count < 1 || count > 99999 || index < 0 || index >= count) {
            throw new IllegalArgumentException("--part must be i/N with 0 <= i < N <= 99999: " + index + "/" + count);
        }
    }

    public static PartSpec parse(String text) {
        int slash = text.indexOf('/');
        try {
            return new PartSpec(Integer.parseInt(text.substring(0, slash).trim()),
                Integer.parseInt(text.substring(slash + 1).trim()));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("--part must be i/N with 0 <= i < N, e.g. 0/8: " + text);
        }
    }

    public String shardPrefix() {
        return String.format("part-%05d-of-%05d-", index, count);
    }

    @Override
    public String toString() {
        return index + "/" + count;
    }
}
