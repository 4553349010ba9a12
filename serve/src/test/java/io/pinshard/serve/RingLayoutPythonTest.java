package io.pinshard.serve;

import io.pinshard.testkit.GeneratedFile;
import org.junit.jupiter.api.Test;

/** The committed python/pinshard/_layout.py is exactly what {@link RingLayoutPython} generates from RingDescriptor. */
class RingLayoutPythonTest {
    static final GeneratedFile LAYOUT = new GeneratedFile("python/pinshard/_layout.py",
        "RingLayoutPython (from RingDescriptor)", "serve", "RingLayoutPythonTest", "pinshard.regenerateLayout");

    @Test
    void committedLayoutIsTheGeneratedOne() throws Exception {
        LAYOUT.assertCommitted(RingLayoutPython.text());
    }
}
