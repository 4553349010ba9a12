package io.pinshard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The warm-up's JIT state: the compiler threads' CPU, read from /proc, so that a starved C2 never reads as done. */
class BenchWarmupTest {
    @Test
    void aCompilerThreadsStatLineGivesItsUserAndSystemTicksAndAnyOtherThreadsNone() {
        String tail = " S 1 2 3 0 -1 4194368 10 0 0 0 731 42 0 0 20 0 25 0 100 3133440 414 18446744073709551615";
        assertEquals(773, BenchWarmup.compilerTicks("4242 (C2 CompilerThre)" + tail));
        assertEquals(773, BenchWarmup.compilerTicks("4243 (C1 CompilerThre)" + tail));
        assertEquals(-1, BenchWarmup.compilerTicks("4244 (pinshard-work) x)" + tail), "a worker named oddly");
        assertEquals(-1, BenchWarmup.compilerTicks("4245 (java)" + tail));
    }

    @Test
    void theTicksSinceAWindowStartedCountAThreadStartedSinceWholeAndOneEndedNotAtAll() {
        Map<String, Long> before = Map.of("11", 100L, "12", 50L, "13", 7L);
        assertEquals(0, BenchWarmup.ticksSince(before, before));
        assertEquals(3 + 9, BenchWarmup.ticksSince(before, Map.of("11", 103L, "12", 50L, "14", 9L)));
    }

    @Test
    void thisJvmsCompilerThreadsAreFound() {
        assertFalse(BenchWarmup.compilerThreadTicks().isEmpty(), "a JVM with its JIT on has a compiler thread");
    }
}
