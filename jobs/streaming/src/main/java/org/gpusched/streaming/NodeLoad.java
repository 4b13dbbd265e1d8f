package org.gpusched.streaming;

import java.util.List;
import org.gpusched.core.model.NodeType;

/**
 * The busy GPUs of a key's up nodes and the real cost rate they make, kept as jobs come and go rather than recounted
 * from every running job at each event. The rate is summed in a fixed tree over the nodes, so it depends on the
 * nodes' loads alone, not on the order they changed in: the same after a restore, which rebuilds it from the jobs.
 */
final class NodeLoad {
    private final List<NodeType> catalog;
    /** Per catalog type, its GPUs: {@link #capacity} is asked of every node at every event. */
    private final int[] typeGpus;

    private final int[] busy;
    private final int[] type;
    /** tree[leaves + n]: node n's cost per hour at its busy GPUs (0 when idle); tree[i]: tree[2i] + tree[2i + 1]. */
    private final double[] tree;

    private final int leaves;
    /** Nodes whose load changed since the tree was last summed: mid-step a node may hold a job that is still to leave it. */
    private final java.util.BitSet stale = new java.util.BitSet();

    private int usedNodes;
    private int busyGpus;

    NodeLoad(List<NodeType> catalog, int nodes) {
        this.catalog = catalog;
        typeGpus = catalog.stream().mapToInt(NodeType::gpus).toArray();
        busy = new int[nodes];
        type = new int[nodes];
        leaves = Integer.highestOneBit(Math.max(1, nodes - 1)) << 1;
        tree = new double[2 * leaves];
    }

    /** A job of {@code gpus} GPUs comes to node n as catalog type t (negative: leaves it, t being its type there). */
    void add(int n, int t, int gpus) {
        boolean wasUsed = busy[n] > 0;
        busy[n] += gpus;
        busyGpus += gpus;
        if (busy[n] < 0) throw new IllegalStateException("node index " + n + ": " + busy[n] + " busy GPUs");
        if (gpus > 0) type[n] = t; // jobs staying on a node that changes type come again as the new type
        if (wasUsed != busy[n] > 0) usedNodes += wasUsed ? -1 : 1;
        stale.set(n);
    }

    boolean used(int n) {
        return busy[n] > 0;
    }

    /** Whether node n's jobs hold every GPU of the type they run it as. */
    boolean full(int n) {
        return busy[n] > 0 && busy[n] >= capacity(n);
    }

    /** The GPUs of the type node n's jobs run it as (meaningful while it is {@link #used}). */
    int capacity(int n) {
        return typeGpus[type[n]];
    }

    /** GPUs node n's jobs hold. */
    int busy(int n) {
        return busy[n];
    }

    /** The catalog index of the type node n's jobs run it as (meaningful while it is {@link #used}). */
    int type(int n) {
        return type[n];
    }

    /** GPUs held by running jobs, over every node. */
    int busyGpus() {
        return busyGpus;
    }

    /** Nodes some job runs on. */
    int usedNodes() {
        return usedNodes;
    }

    double costPerSecond() {
        for (int n = stale.nextSetBit(0); n >= 0; n = stale.nextSetBit(n + 1)) {
            int i = leaves + n;
            tree[i] = busy[n] > 0 ? catalog.get(type[n]).costPerHour(busy[n]) : 0;
            for (i >>>= 1; i > 0; i >>>= 1) tree[i] = tree[2 * i] + tree[2 * i + 1];
        }
        stale.clear();
        return tree[1] / 3600.0;
    }
}
