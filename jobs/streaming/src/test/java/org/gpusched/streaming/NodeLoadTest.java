package org.gpusched.streaming;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.gpusched.core.model.NodeType;
import org.junit.jupiter.api.Test;

class NodeLoadTest {
    private static final List<NodeType> CATALOG = List.of(
            new NodeType("A", "X", 2, new double[] {0.25, 1.1, 2.3}),
            new NodeType("B", "X", 4, new double[] {0.5, 1.7, 3.1, 4.9, 6.7}));

    /** One job's placement: node, type, GPUs. */
    private record Placed(int node, int type, int gpus) {}

    @Test
    void rateIsTheSumOfEachUsedNodesRateWhateverTheOrderJobsCameAndWentIn() {
        Random random = new Random(11);
        int nodes = 37;
        NodeLoad load = new NodeLoad(CATALOG, nodes);
        List<Placed> running = new ArrayList<>();
        int[] typeOf = new int[nodes];
        for (int step = 0; step < 2000; step++) {
            if (!running.isEmpty() && random.nextInt(3) == 0) {
                Placed p = running.remove(random.nextInt(running.size()));
                load.add(p.node(), p.type(), -p.gpus());
            } else {
                int n = random.nextInt(nodes);
                boolean used = running.stream().anyMatch(p -> p.node() == n);
                if (!used) typeOf[n] = random.nextInt(CATALOG.size());
                int free = CATALOG.get(typeOf[n]).gpus()
                        - running.stream()
                                .filter(p -> p.node() == n)
                                .mapToInt(Placed::gpus)
                                .sum();
                if (free == 0) continue;
                Placed p = new Placed(n, typeOf[n], 1 + random.nextInt(free));
                running.add(p);
                load.add(p.node(), p.type(), p.gpus());
            }
            if (step % 7 != 0) continue; // several changes between two reads, as within one step
            double perHour = 0;
            int usedNodes = 0;
            NodeLoad rebuilt = new NodeLoad(CATALOG, nodes);
            for (int n = 0; n < nodes; n++) {
                int node = n;
                int busy = running.stream()
                        .filter(p -> p.node() == node)
                        .mapToInt(Placed::gpus)
                        .sum();
                if (busy == 0) continue;
                usedNodes++;
                perHour += CATALOG.get(typeOf[n]).costPerHour(busy);
                rebuilt.add(n, typeOf[n], busy);
            }
            assertEquals(perHour / 3600, load.costPerSecond(), 1e-12);
            assertEquals(usedNodes, load.usedNodes());
            assertEquals(
                    rebuilt.costPerSecond(),
                    load.costPerSecond(),
                    0.0,
                    "the same loads give the very same rate (restore)");
        }
    }

    @Test
    void aNodeMayHoldMoreThanItsGpusWithinAStepAndChangeType() {
        NodeLoad load = new NodeLoad(CATALOG, 3);
        load.add(1, 0, 2);
        load.add(1, 1, 4); // a job comes as B before the one running as A leaves
        load.add(1, 0, -2);
        assertEquals(6.7 / 3600, load.costPerSecond(), 1e-15);
        assertEquals(1, load.usedNodes());
        load.add(1, 1, -4);
        assertEquals(0, load.costPerSecond());
        assertEquals(0, load.usedNodes());
        assertThrows(IllegalStateException.class, () -> load.add(2, 0, -1));
    }
}
