package org.gpusched.streaming;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.gpusched.core.model.Cluster;
import org.gpusched.core.model.JobTimes;

/**
 * Per GPU model of a cluster, the GPUs wanted by jobs that meet their due date on some models but not on others (a
 * job on time on a V100 but late on a T4): {@link RoomScope} makes room for them on the models where they are on
 * time, which counting GPUs of any model does not. Without it, on fixed V100 and T4 nodes with every V100 busy, the
 * scope held T4s and no V100, and such jobs started on a T4 to end late: 46 late jobs over six 1,000-node {@code
 * andreas} instances where the whole-cluster optimizer had 2, and 2 with this (docs/benchmarks-scale.md). Built per
 * event.
 */
final class ModelDemand {
    /**
     * A cluster's GPU models, derived once per {@link Topology}: per catalog type the index of its model, and whether
     * models are bound to nodes (several models, and no node that may run as types of more than one). Where a node is
     * leased as the model its jobs want, the scope's nodes that are off already hold any model, and asking for room per
     * model there cost the 100,000-job benchmark on 1,000 VMs 27 % more time for 0.4 % more cost: no demand is kept.
     */
    record Models(int[] modelOfType, int count, boolean boundToNodes) {
        static Models of(Cluster cluster) {
            List<String> names = new ArrayList<>();
            int[] modelOfType = new int[cluster.typeCount()];
            for (int t = 0; t < modelOfType.length; t++) {
                String model = cluster.type(t).gpuModel();
                int m = names.indexOf(model);
                if (m < 0) {
                    m = names.size();
                    names.add(model);
                }
                modelOfType[t] = m;
            }
            boolean oneModelPerNode = true;
            for (int n = 0; n < cluster.nodeCount() && oneModelPerNode; n++) {
                int[] types = cluster.candidateTypes(n);
                for (int t : types) if (modelOfType[t] != modelOfType[types[0]]) oneModelPerNode = false;
            }
            return new Models(modelOfType, names.size(), names.size() > 1 && oneModelPerNode);
        }
    }

    private final Cluster cluster;
    private final int[] modelOfType;
    private final boolean applies;
    /** Per model, the GPUs wanted there. */
    private final int[] need;
    /** Scratch of {@link #add}, per model: the job's fewest on-time GPUs there (0: none), and whether it runs there. */
    private final int[] fewestOnTime;

    private final boolean[] runs;
    private boolean any;

    ModelDemand(Topology topology) {
        this.cluster = topology.cluster;
        Models models = topology.models();
        modelOfType = models.modelOfType();
        applies = models.boundToNodes();
        need = new int[models.count()];
        fewestOnTime = new int[models.count()];
        runs = new boolean[models.count()];
    }

    /**
     * Adds a job needing {@code left} of its full times, due at {@code due}, started at {@code now}: when it is on time
     * on some model and late on another, its fewest on-time GPUs count towards each model it is on time on. Whether it
     * was added.
     */
    boolean add(JobTimes times, double now, double left, double due) {
        if (!applies) return false;
        Arrays.fill(fewestOnTime, 0);
        Arrays.fill(runs, false);
        for (int t = 0; t < modelOfType.length; t++) {
            if (!cluster.typeAvailable(t)) continue;
            int m = modelOfType[t];
            for (int g = 1; g <= cluster.type(t).gpus(); g++) {
                double full = times.seconds(t, g);
                if (Double.isNaN(full)) continue;
                runs[m] = true;
                if (now + full * left <= due) {
                    if (fewestOnTime[m] == 0 || g < fewestOnTime[m]) fewestOnTime[m] = g;
                    break;
                }
            }
        }
        boolean onTimeSomewhere = false, lateSomewhere = false;
        for (int m = 0; m < need.length; m++) {
            if (fewestOnTime[m] > 0) onTimeSomewhere = true;
            else if (runs[m]) lateSomewhere = true;
        }
        if (!onTimeSomewhere || !lateSomewhere) return false;
        for (int m = 0; m < need.length; m++) need[m] += fewestOnTime[m];
        any = true;
        return true;
    }

    boolean any() {
        return any;
    }

    int models() {
        return need.length;
    }

    /** GPUs wanted on model m. */
    int need(int m) {
        return need[m];
    }

    int modelOf(int type) {
        return modelOfType[type];
    }

    /** Whether node n of the cluster can run as some type of model m. */
    boolean serves(int n, int m) {
        for (int t : cluster.candidateTypes(n)) if (modelOfType[t] == m) return true;
        return false;
    }
}
