package org.gpusched.core.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

/** A job's times by type held as flat arrays read as the map of sorted maps they replace, types in the order given. */
class TimesByTypeTest {
    @Property(tries = 200)
    void readsAsTheMapOfSortedMapsItWasGiven(
            @ForAll @Size(min = 1, max = 9) List<@Size(max = 6) List<@IntRange(min = 1, max = 16) Integer>> types) {
        Map<String, Map<Integer, Double>> given = new LinkedHashMap<>();
        Map<String, Map<Integer, Double>> expected = new LinkedHashMap<>();
        for (int t = 0; t < types.size(); t++) {
            // names in an order unrelated to their sort order
            String name = "T" + (types.size() - t) + (t % 2 == 0 ? "a" : "b");
            Map<Integer, Double> perGpus = new LinkedHashMap<>();
            for (int g : types.get(t)) perGpus.put(g, 100.0 * t + g + 0.25);
            given.put(name, perGpus);
            if (!perGpus.isEmpty()) expected.put(name, new TreeMap<>(perGpus));
        }
        if (expected.isEmpty()) return;
        Job job = new Job("j", 0, 100, 1, given);
        Map<String, Map<Integer, Double>> times = job.times();
        assertEquals(expected, times);
        assertEquals(times, expected);
        assertEquals(expected.hashCode(), times.hashCode());
        assertEquals(expected.toString(), times.toString(), "types in the order given, GPUs ascending");
        assertEquals(new ArrayList<>(expected.keySet()), new ArrayList<>(times.keySet()));
        for (String name : given.keySet()) {
            assertEquals(expected.containsKey(name), times.containsKey(name), name);
            assertEquals(expected.get(name), times.get(name), name);
            for (int g = 0; g <= 17; g++) {
                Double s = expected.containsKey(name) ? expected.get(name).get(g) : null;
                assertEquals(s == null ? Double.NaN : s, job.timeOn(name, g), name + " x " + g);
            }
        }
        assertNull(times.get("absent"));
        assertFalse(times.containsKey(7));
        assertEquals(Double.NaN, job.timeOn(new String("absent"), 1));
    }

    @Test
    void findsATypeByAnEqualNameAndIsReadOnly() {
        Job job = new Job("j", 0, 100, 1, Map.of("V100", Map.of(1, 5.0, 2, 3.0), "T4", Map.of(1, 9.0)));
        assertEquals(3.0, job.timeOn(new String("V100"), 2));
        assertEquals(9.0, job.timeOn(new StringBuilder("T").append(4).toString(), 1));
        Map<String, Map<Integer, Double>> times = job.times();
        assertThrows(UnsupportedOperationException.class, () -> times.put("A100", Map.of(1, 1.0)));
        assertThrows(UnsupportedOperationException.class, () -> times.keySet().remove("T4"));
        assertThrows(UnsupportedOperationException.class, () -> times.values().clear());
        assertThrows(
                UnsupportedOperationException.class,
                () -> times.entrySet().iterator().next().setValue(Map.of()));
    }
}
