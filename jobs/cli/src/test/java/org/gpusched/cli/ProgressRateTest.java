package org.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class ProgressRateTest {
    @Test
    void theRateIsThatOfTheLastHalfMinuteSoASlowingRunIsNotPromisedAnEarlyEnd() {
        ProgressRate rate = new ProgressRate();
        assertEquals("", rate.after(0, 0, 10_000, "jobs"));
        // 1,000 jobs/s for the first minute ...
        for (int s = 1; s <= 60; s++) rate.after(s, 1000.0 * s, 100_000, "jobs");
        // ... then 100 jobs/s for 40 s: the window (30 s) sees only the slow part, 36,000 jobs left at 100/s.
        String line = "";
        for (int s = 61; s <= 100; s++) line = rate.after(s, 60_000 + 100.0 * (s - 60), 100_000, "jobs");
        assertEquals(", 100 jobs/s, ETA 6 min 00 s", line);
    }

    @Test
    void aStalledRunHasNoEtaAndAFinishedOneNoTail() {
        ProgressRate rate = new ProgressRate();
        rate.after(0, 50, 100, "jobs");
        assertEquals(", 0 jobs/s, ETA unknown", rate.after(5, 50, 100, "jobs"));
        assertEquals("", rate.after(6, 100, 100, "jobs"));
    }

    @Test
    void durationsReadAsPeopleSayThem() {
        assertEquals("45 s", ProgressRate.duration(45));
        assertEquals("3 min 05 s", ProgressRate.duration(185));
        assertEquals("2 h 07 min", ProgressRate.duration(7620));
    }
}
