package io.pinshard.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/** The ready event's jvm_ms: this process's age, from the kernel's ticks, not from a boot time in whole seconds. */
class ServeStartupStepsTest {
    @Test
    void theProcessAgeIsTheJvmsUptimePlusItsOwnStartWithinTicks() {
        double age = ServeCommand.processAgeMillis();
        long uptime = ManagementFactory.getRuntimeMXBean().getUptime();
        // The JVM's uptime starts a little after the process (exec, loading libjvm); two 10 ms ticks of rounding.
        assertTrue(age >= uptime - 20, "process age " + age + " ms under the JVM's uptime " + uptime + " ms");
        // ProcessHandle's start instant, with Linux's boot time in whole seconds, was up to 1 s too early
        assertTrue(age <= uptime + 500, "process age " + age + " ms, the JVM's uptime " + uptime + " ms");
    }
}
