package io.pinshard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The progress line's fitting: whole fields only, lowest rank dropped first, the bar shrinking before it goes. */
class TerminalLineTest {
    private static TerminalLine convertLine() {
        return new TerminalLine().add("convert  41%", 10).bar(0.41, 3).add("1234/3000 img", 9).add("12.3 img/s", 6)
            .add("in 1.2 MB/s", 2).add("out 0.3 MB/s", 1).add("1m07s", 4).add("ETA 3m12s", 7);
    }

    @Test
    void wideTerminalShowsEveryFieldAndABarOfThirtyColumns() {
        assertEquals("convert  41% [" + "=".repeat(12) + " ".repeat(18) + "] 1234/3000 img 12.3 img/s in 1.2 MB/s "
            + "out 0.3 MB/s 1m07s ETA 3m12s", convertLine().fit(200));
    }

    @Test
    void eightyColumnsDropTheLowestRanksWholeAndKeepABarOfTenOrMore() {
        String line = convertLine().fit(80);
        assertTrue(line.length() <= 79, line);
        assertEquals("convert  41% [=====      ] 1234/3000 img 12.3 img/s in 1.2 MB/s 1m07s ETA 3m12s", line);
    }

    @Test
    void narrowTerminalKeepsTheHighestRanks() {
        assertEquals("convert  41% 1234/3000 img ETA 3m12s", convertLine().fit(40));
        assertEquals("convert  41%", convertLine().fit(14));
    }

    @Test
    void ratesHaveADigitBeforeThePoint() {
        assertEquals("0.6", TerminalLine.rate(0.6));
        assertEquals("0.0", TerminalLine.rate(0.0));
        assertEquals("99.5", TerminalLine.rate(99.54));
        assertEquals("1234", TerminalLine.rate(1234.4));
        assertEquals("3m07s", TerminalLine.duration(187));
        assertEquals("1h02m", TerminalLine.duration(3725));
    }
}
