package org.gpusched.core.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

/** A job's per-type times held as arrays read as the sorted map they replace. */
class GpuTimesTest {
    @Property(tries = 200)
    void readsAsTheSortedMapOfItsEntries(
            @ForAll @Size(min = 1, max = 12) List<@IntRange(min = 1, max = 64) Integer> g) {
        Map<Integer, Double> given = new HashMap<>();
        for (int k : g) given.put(k, 10.0 * k + 0.5);
        TreeMap<Integer, Double> sorted = new TreeMap<>(given);
        Job job = new Job("j", 0, 100, 1, Map.of("T", given));
        Map<Integer, Double> times = job.times().get("T");
        assertEquals(sorted, times);
        assertEquals(times, sorted);
        assertEquals(sorted.hashCode(), times.hashCode());
        assertEquals(sorted.toString(), times.toString());
        assertEquals(new ArrayList<>(sorted.keySet()), new ArrayList<>(times.keySet()), "ascending GPU order");
        for (int k = 0; k <= 65; k++) {
            assertEquals(sorted.get(k), times.get(k));
            assertEquals(sorted.containsKey(k), times.containsKey(k));
            assertEquals(sorted.containsKey(k) ? sorted.get(k) : Double.NaN, job.timeOn("T", k));
        }
        assertNull(times.get("1"));
        assertTrue(Double.isNaN(job.timeOn("U", g.get(0))));
    }

    @Test
    void isReadOnly() {
        Map<Integer, Double> times = new Job("j", 0, 100, 1, Map.of("T", Map.of(1, 5.0, 2, 3.0)))
                .times()
                .get("T");
        assertThrows(UnsupportedOperationException.class, () -> times.put(4, 1.0));
        assertThrows(
                UnsupportedOperationException.class,
                () -> times.entrySet().iterator().next().setValue(1.0));
        assertThrows(UnsupportedOperationException.class, () -> times.keySet().remove(1));
    }
}
