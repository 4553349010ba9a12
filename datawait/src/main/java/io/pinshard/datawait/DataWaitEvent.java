package io.pinshard.datawait;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.EventType;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/**
 * JFR event: one training step's data wait, committed by {@link DataWaitMonitor#record} while a recording has it
 * enabled (off by default: {@code jfr configure} or a {@code .jfc} with {@code io.pinshard.DataWait#enabled=true}).
 * One object of ~48 bytes per step while enabled; nothing allocated while it is disabled or JFR is not in use.
 */
@Name(DataWaitEvent.NAME)
@Label("Data Wait")
@Category({"pinshard", "Loader"})
@Description("How long one training step waited for its batch, and how long the step took")
@StackTrace(false)
@jdk.jfr.Enabled(false)
final class DataWaitEvent extends Event {
    static final String NAME = "io.pinshard.DataWait";

    @Label("Waiting For")
    String what;

    @Label("Wait")
    @Timespan(Timespan.NANOSECONDS)
    long wait;

    @Label("Step")
    @Description("From the end of the previous wait to the end of this one; 0 for the first")
    @Timespan(Timespan.NANOSECONDS)
    long step;

    @Label("Step Number")
    long stepNumber;

    /**
     * Whether a recording enables this event: a field read once JFR runs, so a disabled event costs no object
     * (escape analysis would remove one only in compiled code). Look the type up only after
     * {@link jdk.jfr.FlightRecorder#isInitialized()}: the first look-up before that starts JFR's metadata.
     */
    static boolean enabled() {
        return Type.TYPE.isEnabled();
    }

    private static final class Type {
        static final EventType TYPE = EventType.getEventType(DataWaitEvent.class);
    }
}
