package org.gpusched.core.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.gpusched.core.objective.ObjectiveParameters;
import org.junit.jupiter.api.Test;

class JobTimesTest {
    private static final NodeType SMALL = NodeType.priced("S", "K80", 1, 1.0);
    private static final NodeType BIG = NodeType.priced("B", "K80", 4, 3.0);
    private static final NodeType ABSENT = NodeType.priced("X", "M60", 2, 2.0);
    private static final List<NodeType> CATALOG = List.of(SMALL, BIG, ABSENT);

    private static Job job() {
        return new Job(
                "j",
                0,
                10_000,
                1,
                Map.of("S", Map.of(1, 900.0), "B", Map.of(1, 800.0, 4, 300.0), "X", Map.of(2, 100.0)));
    }

    @Test
    void extremesCountOnlyTypesSomeNodeCanRunAndScaleExactly() {
        // no node can be X: its 100 s is not the fastest time
        Cluster cluster = new Cluster(CATALOG, List.of(Node.fixed("n0", "S"), Node.fixed("n1", "B")));
        JobTimes times = JobTimes.of(job(), cluster);
        assertEquals(300.0, times.fastest(cluster));
        assertEquals(900.0, times.slowest(cluster));
        assertEquals(800.0, times.seconds(1, 1));
        assertTrue(Double.isNaN(times.seconds(1, 2)));
        assertTrue(Double.isNaN(times.seconds(0, 4)));
        SchedulingProblem p = new SchedulingProblem(
                0,
                cluster,
                List.of(new JobState(job(), 0.3, null)),
                List.of(times),
                null,
                ObjectiveParameters.DEFAULTS);
        assertEquals(300.0 * 0.7, p.fastestRemaining(0));
        assertEquals(900.0 * 0.7, p.slowestRemaining(0));
        assertEquals(800.0 * 0.7, p.remaining(0, 1, 1));

        Cluster withX = new Cluster(CATALOG, List.of(Node.fixed("n0", "S"), Node.rightsizable("n1")));
        assertEquals(100.0, times.fastest(withX), "recomputed for another cluster");
    }

    @Test
    void aTableForAnotherCatalogIsNotUsed() {
        Cluster cluster = new Cluster(CATALOG, List.of(Node.fixed("n0", "S")));
        Cluster other = new Cluster(List.of(BIG, SMALL, ABSENT), List.of(Node.fixed("n0", "S")));
        JobTimes foreign = JobTimes.of(job(), other); // B is type 0 there
        SchedulingProblem p = new SchedulingProblem(
                0, cluster, List.of(JobState.waiting(job())), List.of(foreign), null, ObjectiveParameters.DEFAULTS);
        assertEquals(900.0, p.remaining(0, 0, 1), "type 0 is S in this cluster");
    }

    @Test
    void unknownTypesAndTooManyGpusAreNamed() {
        Cluster cluster = new Cluster(List.of(SMALL), List.of(Node.fixed("n0", "S")));
        var unknown = assertThrows(InvalidInstanceException.class, () -> JobTimes.of(job(), cluster));
        assertTrue(unknown.getMessage().contains("job j: unknown node type"), unknown.getMessage());
        Job tooMany = new Job("k", 0, 10, 1, Map.of("S", Map.of(2, 5.0)));
        var gpus = assertThrows(InvalidInstanceException.class, () -> JobTimes.of(tooMany, cluster));
        assertTrue(gpus.getMessage().contains("times.S.2 asks for more GPUs"), gpus.getMessage());
    }

    @Test
    void canTakeFollowsEachNodesCandidateTypes() {
        Cluster cluster = new Cluster(CATALOG, List.of(Node.fixed("n0", "B"), Node.rightsizable("n1")));
        assertTrue(cluster.canTake(0, 1));
        assertFalse(cluster.canTake(0, 0));
        assertTrue(cluster.canTake(1, 0) && cluster.canTake(1, 2));
        assertFalse(cluster.canTake(1, 3));
    }

    @Test
    void fewestGpusIsTheSmallestCountWithATimePerType() {
        Cluster cluster = new Cluster(CATALOG, List.of(Node.rightsizable("n0")));
        Job job = new Job("j", 0, 10_000, 1, Map.of("B", Map.of(2, 800.0, 4, 300.0)));
        JobTimes times = JobTimes.of(job, cluster);
        assertEquals(2, times.fewestGpus(cluster.typeIndex("B")));
        assertEquals(0, times.fewestGpus(cluster.typeIndex("S")), "no time on S");
    }
}
