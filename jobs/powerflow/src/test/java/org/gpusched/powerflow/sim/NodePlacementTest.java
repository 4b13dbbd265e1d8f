package org.gpusched.powerflow.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NodePlacementTest {
    @Test
    void buddyPackingOfPowersOfTwoNeedsCeilOfGpusOverNodeSize() {
        NodePlacement p = new NodePlacement(8, 8, true);
        assertEquals(3, p.place(Map.of(1L, 4, 2L, 2, 3L, 1, 4L, 1, 5L, 8, 6L, 2))); // 18 GPUs -> 3 nodes
        assertEquals(2, p.place(Map.of(1L, 16)));
    }

    @Test
    void withoutMigrationDeparturesLeaveFragments() {
        NodePlacement p = new NodePlacement(4, 8, false);
        Map<Long, Integer> jobs = new HashMap<>(Map.of(1L, 6, 2L, 6, 3L, 2, 4L, 2));
        assertEquals(2, p.place(jobs)); // 6+2 | 6+2
        jobs.remove(1L);
        jobs.remove(2L);
        assertEquals(2, p.place(jobs)); // the two 2-GPU jobs stay on two nodes
        assertEquals(1, new NodePlacement(4, 8, true).place(jobs));
    }
}
