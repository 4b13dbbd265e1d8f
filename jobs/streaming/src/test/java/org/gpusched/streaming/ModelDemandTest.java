package org.gpusched.streaming;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.gpusched.core.model.Cluster;
import org.gpusched.core.model.Job;
import org.gpusched.core.model.JobTimes;
import org.gpusched.core.model.Node;
import org.gpusched.core.model.NodeType;
import org.junit.jupiter.api.Test;

/** Which GPU models a job on time on some models only asks room on, and where models are bound to nodes at all. */
class ModelDemandTest {
    private static final NodeType FAST = new NodeType("F2", "F", 2, new double[] {0.5, 1, 1.5});
    private static final NodeType FAST4 = new NodeType("F4", "F", 4, new double[] {0.5, 1, 1.5, 2, 2.5});
    private static final NodeType SLOW = new NodeType("S1", "S", 1, new double[] {0.2, 0.6});

    private static Topology topology(List<NodeType> types, List<Node> nodes) {
        Cluster cluster = new Cluster(types, nodes);
        return new Topology(cluster, nodes.size(), new int[nodes.size()]);
    }

    private static final Topology FIXED = topology(
            List.of(FAST, FAST4, SLOW), List.of(Node.fixed("f", "F2"), Node.fixed("g", "F4"), Node.fixed("s", "S1")));

    /** 3000 s on one GPU of an F2 or F4, 1600 s on two, 1000 s on four (F4), 9000 s on an S1. */
    private static JobTimes times(Topology topology) {
        Job job = new Job(
                "j",
                0,
                10_000,
                1,
                Map.of(
                        "F2",
                        Map.of(1, 3000.0, 2, 1600.0),
                        "F4",
                        Map.of(1, 3000.0, 4, 1000.0),
                        "S1",
                        Map.of(1, 9000.0)));
        return JobTimes.of(job, topology.cluster);
    }

    @Test
    void aJobOnTimeOnOneModelAsksItsFewestOnTimeGpusThere() {
        ModelDemand demand = new ModelDemand(FIXED);
        // at 0 with 0.5 left, due at 2000: on time on 2 GPUs of an F2 (800 s) or 1 of either (1500 s); late on S1
        assertTrue(demand.add(times(FIXED), 0, 0.5, 2000));
        int f = demand.modelOf(0), s = demand.modelOf(2);
        assertEquals(f, demand.modelOf(1), "F2 and F4 are one model");
        assertEquals(1, demand.need(f));
        assertEquals(0, demand.need(s));
        // due at 600: only four GPUs of an F4 make it (500 s)
        assertTrue(demand.add(times(FIXED), 0, 0.5, 600));
        assertEquals(1 + 4, demand.need(f));
        assertTrue(demand.any());
    }

    @Test
    void aJobOnTimeEverywhereOrNowhereAsksNothing() {
        ModelDemand demand = new ModelDemand(FIXED);
        assertFalse(demand.add(times(FIXED), 0, 1, 9000), "on time on every model, S1 included");
        assertFalse(demand.add(times(FIXED), 0, 1, 999), "late on every configuration");
        assertFalse(demand.any());
    }

    @Test
    void whereANodeMayRunAsSeveralModelsNoDemandIsKept() {
        Topology vms = topology(List.of(FAST, FAST4, SLOW), List.of(Node.rightsizable("v0"), Node.fixed("s", "S1")));
        assertFalse(vms.models().boundToNodes());
        assertFalse(new ModelDemand(vms).add(times(vms), 0, 0.5, 2000));
        Topology oneModel = topology(List.of(FAST, FAST4), List.of(Node.fixed("f", "F2"), Node.fixed("g", "F4")));
        assertFalse(oneModel.models().boundToNodes(), "one model: nothing to choose between");
        assertTrue(FIXED.models().boundToNodes());
    }
}
