package io.pinshard.serve;

import static org.junit.jupiter.api.Assertions.*;

import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The Python client's copy of the layout (python/pinshard/_layout.py) says what RingDescriptor says. */
class RingLayoutParityTest {
    private static final Pattern CONSTANT = Pattern.compile("^([A-Z][A-Z0-9_]*) = (\\d+)$");

    @Test
    void everyPythonConstantEqualsTheJavaOne() throws Exception {
        Path layout = Path.of(System.getProperty("pinshard.repo", "."), "python", "pinshard", "_layout.py");
        assertTrue(Files.isRegularFile(layout), layout + " exists");
        List<String> compared = new ArrayList<>();
        for (String line : Files.readAllLines(layout, StandardCharsets.UTF_8)) {
            Matcher m = CONSTANT.matcher(line);
            if (!m.matches()) {
                continue;
            }
            Field field;
            try {
                field = RingDescriptor.class.getField(m.group(1));
            } catch (NoSuchFieldException e) {
                throw new AssertionError(layout + " has " + m.group(1) + ", which RingDescriptor lacks", e);
            }
            assertEquals(((Number) field.get(null)).longValue(), Long.parseLong(m.group(2)), m.group(1));
            compared.add(m.group(1));
        }
        assertTrue(compared.size() > 60, "compared " + compared);
        assertTrue(Files.readString(layout).contains("MAGIC = b\"" + new String(RingDescriptor.MAGIC,
            StandardCharsets.US_ASCII) + "\""), "the magic");
    }
}
