package org.gpusched.core.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ClusterTest {
    private static final NodeType SMALL = NodeType.priced("S", "K80", 1, 1.0);
    private static final NodeType BIG = NodeType.priced("B", "K80", 4, 3.0);
    private static final NodeType OTHER = NodeType.priced("X", "M60", 2, 2.0);

    private final Cluster whole = new Cluster(
            List.of(SMALL, BIG, OTHER),
            List.of(
                    Node.fixed("n0", "S"),
                    Node.fixed("n1", "X"),
                    new Node("n2", null, List.of("S", "B")),
                    Node.fixed("n3", "B")));

    @Test
    void aRestrictedClusterRenumbersTheChosenNodesAndKeepsTheCatalog() {
        Cluster part = whole.restrictedTo(new int[] {3, 0});
        assertEquals(2, part.nodeCount());
        assertEquals("n3", part.node(0).id());
        assertEquals("n0", part.node(1).id());
        assertEquals(0, part.nodeIndex("n3"));
        assertEquals(1, part.nodeIndex("n0"));
        assertFalse(part.hasNode("n1"));
        assertSame(whole.types(), part.types(), "the same list: time tables built for one fit the other");
        assertEquals(whole.typeIndex("X"), part.typeIndex("X"));
        assertArrayEquals(whole.candidateTypes(3), part.candidateTypes(0));
        assertTrue(part.canTake(0, whole.typeIndex("B")));
        assertFalse(part.canTake(1, whole.typeIndex("B")));
        assertFalse(part.typeAvailable(whole.typeIndex("X")), "only n1 could be X, and it is left out");
        assertEquals(whole.maxGpus(), part.maxGpus());

        Job onX = new Job("x", 0, 1000, 1, Map.of("X", Map.of(2, 100.0)));
        JobTimes times = JobTimes.of(onX, whole);
        assertTrue(times.fits(part));
        assertTrue(times.runsOn(whole));
        assertFalse(times.runsOn(part));
    }

    @Test
    void aRestrictedClusterNeedsNodesEachOnce() {
        assertThrows(InvalidInstanceException.class, () -> whole.restrictedTo(new int[0]));
        assertThrows(IllegalArgumentException.class, () -> whole.restrictedTo(new int[] {1, 1}));
    }

    @Test
    void nodesWithTheSameCandidateTypesShareAClassAlsoInARestrictedCluster() {
        Cluster withTwins = new Cluster(
                List.of(SMALL, BIG, OTHER),
                List.of(
                        Node.fixed("a0", "B"),
                        new Node("v0", null, List.of("S", "B")),
                        Node.fixed("a1", "B"),
                        new Node("v1", null, List.of("S", "B")),
                        new Node("w0", null, List.of("B", "S"))));
        assertEquals(withTwins.nodeClass(0), withTwins.nodeClass(2));
        assertEquals(withTwins.nodeClass(1), withTwins.nodeClass(3));
        assertTrue(withTwins.nodeClass(0) != withTwins.nodeClass(1));
        assertTrue(withTwins.nodeClass(4) != withTwins.nodeClass(1), "the candidate types in another order");
        assertEquals(3, withTwins.nodeClassCount());
        Cluster part = withTwins.restrictedTo(new int[] {3, 2, 4});
        assertEquals(withTwins.nodeClass(3), part.nodeClass(0));
        assertEquals(withTwins.nodeClass(2), part.nodeClass(1));
        assertEquals(withTwins.nodeClass(4), part.nodeClass(2));
        assertEquals(3, part.nodeClassCount(), "the whole cluster's count bounds the classes");
    }
}
