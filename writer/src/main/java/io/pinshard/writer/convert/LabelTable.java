package io.pinshard.writer.convert;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Turns textual labels (from a manifest, a .cls member or a JSON field) into label numbers. When
 * every label is a non-negative integer the numbers are kept and the classes are "0".."max";
 * otherwise the labels are class names, sorted, and numbered by that order (as ImageFolder does).
 * An absent label ({@code null}) stays unlabeled.
 */
public final class LabelTable {
    static final int MAX_NUMERIC_LABEL = 1 << 24;

    private final List<String> classes;
    private final Map<String, Integer> numbers = new TreeMap<>();
    private final boolean numeric;

    public LabelTable(Iterable<String> labels) {
        TreeSet<String> names = new TreeSet<>();
        boolean allNumeric = true;
        int max = -1;
        for (String label : labels) {
            if (label == null) {
                continue;
            }
            names.add(label);
            Integer value = parseNumber(label);
            if (value == null) {
                allNumeric = false;
            } else {
                max = Math.max(max, value);
            }
        }
        numeric = allNumeric && !names.isEmpty();
        classes = new ArrayList<>();
        if (numeric) {
            for (int i = 0; i <= max; i++) {
                classes.add(Integer.toString(i));
            }
        } else {
            classes.addAll(names);
            for (int i = 0; i < classes.size(); i++) {
                numbers.put(classes.get(i), i);
            }
        }
    }

    public List<String> classes() {
        return classes;
    }

    public int label(String text) {
        if (text == null) {
            return -1;
        }
        return numeric ? parseNumber(text) : numbers.get(text);
    }

    private static Integer parseNumber(String text) {
        if (text.isEmpty() || text.length() > 8 || !text.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return null;
        }
        int value = Integer.parseInt(text);
        return value <= MAX_NUMERIC_LABEL ? value : null;
    }
}
