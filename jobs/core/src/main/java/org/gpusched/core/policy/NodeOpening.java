package org.gpusched.core.policy;

import java.util.Arrays;
import java.util.List;
import org.gpusched.core.model.Cluster;
import org.gpusched.core.model.NodeType;

/**
 * The node-opening side of {@link GreedyEngine} under one {@link NodeOpeningRule}: the catalog's GPU models (which
 * types may stand in for one another), each configuration's ranking price, a job's configuration on any type, the
 * GPUs the queue still wants per GPU model, and the type a node is switched on as. Holds per-call tables, rewritten
 * by {@link #prepareCatalog} and {@link #prepareJobs} and only read while constructions run; what changes within a
 * construction is in its own {@link Demand}.
 */
final class NodeOpening {
    static final int NONE = -1;

    private final NodeOpeningRule rule;
    private List<NodeType> catalogOf;
    private int types, stride;
    private int[] typeGpus = new int[0];
    private double[] fullPrice = new double[0];
    private boolean[] ownPrice = new boolean[0];
    private double[] preference = new double[0]; // [t * stride + g]
    private int models;
    private int[] model = new int[0];
    /** Per type, the other types of its GPU model, most GPUs first (ties by index). */
    private int[] peerStart = new int[1], peers = new int[0];
    /** Whether some GPU model comes in several types: only then do matching and opening differ between rules. */
    private boolean severalTypesPerModel;
    /** Whether some type is a VM leased whole: {@link NodeOpeningRule#PACKED} changes nothing elsewhere. */
    private boolean anyLeasedWhole;

    private int jobs;
    private int[] configAt = new int[0]; // [(j * types + t) * stride + g]: configuration index, NONE if none
    private int[] queueDemand = new int[0]; // GPUs per model all jobs want

    NodeOpening(NodeOpeningRule rule) {
        this.rule = rule;
    }

    NodeOpeningRule rule() {
        return rule;
    }

    void prepareCatalog(Cluster cluster) {
        if (cluster.types() == catalogOf) return; // shared by every controller's cluster (the same list instance)
        catalogOf = cluster.types();
        anyLeasedWhole = false;
        types = cluster.typeCount();
        stride = cluster.maxGpus() + 1;
        typeGpus = new int[types];
        fullPrice = new double[types];
        ownPrice = new boolean[types];
        preference = new double[types * stride];
        model = new int[types];
        List<String> names = new java.util.ArrayList<>();
        for (int t = 0; t < types; t++) {
            NodeType type = cluster.type(t);
            typeGpus[t] = type.gpus();
            fullPrice[t] = type.costPerHour(type.gpus());
            ownPrice[t] = true;
            for (int g = 0; g <= type.gpus(); g++) {
                preference[t * stride + g] = rule.preferenceRate(type, g);
                if (preference[t * stride + g] != type.costPerHour(g)) ownPrice[t] = false;
            }
            int m = names.indexOf(type.gpuModel());
            if (m < 0) {
                m = names.size();
                names.add(type.gpuModel());
            }
            model[t] = m;
            anyLeasedWhole |= NodeOpeningRule.leasedWhole(type);
        }
        models = names.size();
        severalTypesPerModel = models < types;
        peerStart = new int[types + 1];
        Integer[] order = new Integer[types];
        for (int t = 0; t < types; t++) order[t] = t;
        Arrays.sort(order, (a, b) -> typeGpus[a] != typeGpus[b] ? typeGpus[b] - typeGpus[a] : a - b);
        int[] list = new int[types * types];
        int k = 0;
        for (int t = 0; t < types; t++) {
            peerStart[t] = k;
            for (int u : order) if (u != t && model[u] == model[t]) list[k++] = u;
        }
        peerStart[types] = k;
        peers = Arrays.copyOf(list, k);
        queueDemand = new int[models];
    }

    /** Whether a configuration on type t ranks by the type's own price (true on every type but for {@link NodeOpeningRule#PACKED}'s whole VMs). */
    boolean ranksByOwnPrice(int t) {
        return ownPrice[t];
    }

    double preferenceRate(int t, int g) {
        return preference[t * stride + g];
    }

    /** Whether open nodes of another type of the configuration's GPU model are tried, and the opening type chosen. */
    boolean active() {
        return severalTypesPerModel
                && (rule == NodeOpeningRule.LARGEST_VM || rule == NodeOpeningRule.PACKED && anyLeasedWhole);
    }

    int peerFrom(int t) {
        return peerStart[t];
    }

    int peerTo(int t) {
        return peerStart[t + 1];
    }

    int peer(int i) {
        return peers[i];
    }

    void prepareJobs(int jobCount) {
        jobs = jobCount;
        if (!active()) return;
        int size = jobs * types * stride;
        if (configAt.length < size) configAt = new int[Math.max(size, configAt.length * 3 / 2)];
        Arrays.fill(configAt, 0, size, NONE);
        Arrays.fill(queueDemand, 0);
    }

    /** Records configuration index c as job j's (t, g), and, for its best one, the GPUs it wants of t's model. */
    void configuration(int j, int t, int g, int c) {
        if (active()) configAt[(j * types + t) * stride + g] = c;
    }

    void wants(int t, int g) {
        if (active()) queueDemand[model[t]] += g;
    }

    /** Job j's configuration (t, g), or {@link #NONE}. */
    int configOn(int j, int t, int g) {
        return g < stride ? configAt[(j * types + t) * stride + g] : NONE;
    }

    /** The opening side of one construction: the GPUs still wanted per model and the last candidate types. */
    Demand demand() {
        return new Demand();
    }

    /**
     * Per-construction state of the rule: the GPUs the jobs still to come want per GPU model, and the candidate types
     * of the last {@link #typesToOpen}. One per construction (the tables it reads are the call's, shared).
     */
    final class Demand {
        private int[] demand = new int[0];
        /** Candidate types of the last {@link #typesToOpen}, best first. */
        final int[] candidate = new int[64];

        final double[] candidateWeight = new double[64];

        /** A construction starts: every job of the queue is still to come. */
        void startConstruction() {
            if (!active()) return;
            if (demand.length < models) demand = new int[models];
            System.arraycopy(queueDemand, 0, demand, 0, models);
        }

        /** A job the construction has passed no longer wants the GPUs of its best configuration. */
        void passed(int t, int g) {
            if (active()) demand[model[t]] -= g;
        }

        /**
         * The types a node may be switched on as for job j's configuration (t, g), best first, into {@link #candidate}
         * with draw weights in {@link #candidateWeight}: t itself unless the rule is {@link NodeOpeningRule#VM_PER_JOB}
         * or the job's GPU model has one type, else every type of t's GPU model on which the job has a time with g GPUs
         * and for which {@code hasOff} says a node is still off. Under {@link NodeOpeningRule#PACKED} the weight of a
         * type is 1 / its price per GPU the queue can fill, so a randomized construction draws the cheaper VM sizes
         * more often; under the other rules only the first is ever used.
         *
         * @return how many candidates there are (0: no node of any of them is off)
         */
        int typesToOpen(int j, int t, int g, boolean[] hasOff) {
            if (!active()) {
                if (!hasOff[t]) return 0;
                candidate[0] = t;
                return 1;
            }
            int count = 0;
            if (hasOff[t]) count = insert(count, t, g);
            for (int i = peerStart[t]; i < peerStart[t + 1]; i++) {
                int u = peers[i];
                if (hasOff[u] && typeGpus[u] >= g && configOn(j, u, g) != NONE) count = insert(count, u, g);
            }
            if (rule == NodeOpeningRule.PACKED) {
                int wanted = Math.max(g, demand[model[t]]);
                for (int k = 0; k < count; k++) {
                    int u = candidate[k];
                    candidateWeight[k] = Math.min(typeGpus[u], wanted) / Math.max(fullPrice[u], 1e-12);
                }
            }
            return count;
        }

        private int insert(int count, int u, int g) {
            if (count == candidate.length) return count;
            int k = count;
            while (k > 0 && opensBefore(u, candidate[k - 1], g)) {
                candidate[k] = candidate[k - 1];
                k--;
            }
            candidate[k] = u;
            return count + 1;
        }

        private boolean opensBefore(int u, int v, int g) {
            if (rule == NodeOpeningRule.LARGEST_VM) {
                if (typeGpus[u] != typeGpus[v]) return typeGpus[u] > typeGpus[v];
                return fullPrice[u] < fullPrice[v];
            }
            int wanted = Math.max(g, demand[model[u]]);
            double pu = fullPrice[u] / Math.min(typeGpus[u], wanted);
            double pv = fullPrice[v] / Math.min(typeGpus[v], wanted);
            if (pu != pv) return pu < pv;
            return typeGpus[u] > typeGpus[v];
        }
    }
}
