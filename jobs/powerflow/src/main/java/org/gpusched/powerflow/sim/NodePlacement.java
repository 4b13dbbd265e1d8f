package org.gpusched.powerflow.sim;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Which nodes are powered for a set of GPU counts. With migration (buddy allocation with power-of-two jobs, or
 * Gandiva's packing) jobs are re-packed at each decision, first fit decreasing, so the powered nodes are as few as the
 * sizes allow; power-of-two sizes pack perfectly, into ceil(GPUs / node size) nodes. Without migration (Tiresias) a job
 * keeps the GPUs it started on and a new one goes to the fullest node it fits in, else spreads over the emptiest ones:
 * the cluster fragments. A node with no job is off.
 */
final class NodePlacement {
    private final int nodes, gpusPerNode;
    private final boolean migrates;
    private final Map<Long, int[]> sticky = new HashMap<>();
    private final int[] used;

    NodePlacement(int nodes, int gpusPerNode, boolean migrates) {
        this.nodes = nodes;
        this.gpusPerNode = gpusPerNode;
        this.migrates = migrates;
        this.used = new int[nodes];
    }

    /** Places {@code gpus} (job id -> count, running jobs only) and returns the number of powered nodes. */
    int place(Map<Long, Integer> gpus) {
        return migrates ? packed(gpus) : stick(gpus);
    }

    private int packed(Map<Long, Integer> gpus) {
        List<Integer> items = new ArrayList<>();
        int whole = 0;
        for (int n : gpus.values()) {
            whole += n / gpusPerNode;
            if (n % gpusPerNode != 0) items.add(n % gpusPerNode);
        }
        items.sort(Comparator.reverseOrder());
        List<Integer> bins = new ArrayList<>();
        for (int item : items) {
            int i = 0;
            while (i < bins.size() && bins.get(i) + item > gpusPerNode) i++;
            if (i == bins.size()) bins.add(item);
            else bins.set(i, bins.get(i) + item);
        }
        int powered = whole + bins.size();
        if (powered > nodes) throw new IllegalStateException("placement needs " + powered + " nodes of " + nodes);
        return powered;
    }

    private int stick(Map<Long, Integer> gpus) {
        for (var it = sticky.entrySet().iterator(); it.hasNext(); ) {
            var e = it.next();
            Integer n = gpus.get(e.getKey());
            if (n == null || n != sum(e.getValue())) {
                for (int i = 0; i < nodes; i++) used[i] -= e.getValue()[i];
                it.remove();
            }
        }
        List<Long> fresh = new ArrayList<>();
        for (long id : gpus.keySet()) if (!sticky.containsKey(id)) fresh.add(id);
        fresh.sort(Comparator.naturalOrder());
        for (long id : fresh) sticky.put(id, allocate(gpus.get(id)));
        int powered = 0;
        for (int u : used) if (u > 0) powered++;
        return powered;
    }

    private int[] allocate(int n) {
        int[] take = new int[nodes];
        int left = n;
        for (int i = 0; i < nodes && left >= gpusPerNode; i++)
            if (used[i] == 0) {
                take[i] = gpusPerNode;
                used[i] = gpusPerNode;
                left -= gpusPerNode;
            }
        if (left > 0) {
            int best = -1;
            for (int i = 0; i < nodes; i++)
                if (gpusPerNode - used[i] >= left && (best < 0 || used[i] > used[best])) best = i;
            if (best >= 0) {
                take[best] += left;
                used[best] += left;
                left = 0;
            }
        }
        while (left > 0) {
            int emptiest = -1;
            for (int i = 0; i < nodes; i++)
                if (used[i] < gpusPerNode && (emptiest < 0 || used[i] < used[emptiest])) emptiest = i;
            if (emptiest < 0) throw new IllegalStateException("no free GPU for " + n);
            int k = Math.min(left, gpusPerNode - used[emptiest]);
            take[emptiest] += k;
            used[emptiest] += k;
            left -= k;
        }
        return take;
    }

    private static int sum(int[] a) {
        int s = 0;
        for (int v : a) s += v;
        return s;
    }
}
