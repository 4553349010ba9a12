package io.pinshard.loader.options;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** The checkpoint record: a plain JSON object through Jackson, and it refuses nonsense naming what is wrong. */
class LoaderStateTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void roundTripsAsAPlainJsonObject() throws Exception {
        LoaderState state = new LoaderState(3, 7, 42, 3, 0, List.of(new LoaderState.Segment(8, 5)));
        String json = JSON.writeValueAsString(state);
        assertEquals("{\"epoch\":3,\"batchesConsumed\":7,\"seed\":42,\"worldSize\":3,\"rank\":0,"
            + "\"segments\":[{\"worldSize\":8,\"batches\":5}]}", json);
        assertEquals(state, JSON.readValue(json, LoaderState.class));
        assertEquals(2, state.batchesInSegment());
    }

    @Test
    void aStateWithoutSegmentsReadsAsOneThatNeverChangedWorldSize() throws Exception {
        LoaderState old = JSON.readValue("{\"epoch\":1,\"batchesConsumed\":5,\"seed\":42,\"worldSize\":1,\"rank\":0}",
            LoaderState.class);
        assertEquals(new LoaderState(1, 5, 42, 1, 0), old);
        assertEquals(List.of(), old.segments());
        assertEquals(5, old.batchesInSegment());
    }

    @Test
    void refusesNonsense() {
        refused(() -> new LoaderState(-1, 0, 1, 1, 0), "invalid loader state: epoch -1");
        refused(() -> new LoaderState(0, -2, 1, 1, 0), "batches -2");
        refused(() -> new LoaderState(0, 0, 1, 2, 2), "rank 2 of 2");
        refused(() -> new LoaderState(0, 0, 1, 0, 0), "rank 0 of 0");
        refused(() -> new LoaderState.Segment(0, 3), "3 batches on 0 ranks");
        refused(() -> new LoaderState.Segment(2, -1), "-1 batches on 2 ranks");
        refused(() -> new LoaderState(4, 5, 1, 2, 0, List.of(new LoaderState.Segment(8, 3), new LoaderState.Segment(3, 4))),
            "its segments consumed 7 batches of epoch 4, more than the 5");
        List<LoaderState.Segment> many = new ArrayList<>();
        for (int i = 0; i <= LoaderState.MAX_SEGMENTS; i++) {
            many.add(new LoaderState.Segment(2 + i % 2, 1));
        }
        refused(() -> new LoaderState(0, 100, 1, 2, 0, many), "9 segments in epoch 0, at most 8");
    }

    @Test
    void jsonNonsenseIsRefusedWithTheSameMessage() {
        ValueInstantiationException e = assertThrows(ValueInstantiationException.class, () -> JSON.readValue(
            "{\"epoch\":0,\"batchesConsumed\":1,\"seed\":1,\"worldSize\":3,\"rank\":0,"
                + "\"segments\":[{\"worldSize\":8,\"batches\":2}]}", LoaderState.class));
        assertTrue(e.getMessage().contains("its segments consumed 2 batches of epoch 0, more than the 1"),
            e.getMessage());
    }

    private static void refused(Executable build, String message) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, build);
        assertTrue(e.getMessage().contains(message), e.getMessage());
    }
}
