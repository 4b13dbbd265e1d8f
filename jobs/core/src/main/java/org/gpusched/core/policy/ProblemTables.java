package org.gpusched.core.policy;

import java.util.Arrays;
import java.util.List;
import org.gpusched.core.model.Cluster;
import org.gpusched.core.model.NodeType;
import org.gpusched.core.model.SchedulingProblem;

/**
 * What {@link GreedyEngine} reads about the cluster during one call, built once from the {@link SchedulingProblem}
 * and read-only while the constructions run (so constructions on several threads may share it): sizes, GPUs and
 * hourly rates per type, which node may run as which type, the smaller equivalent types of each type (for the
 * post-processing), and the nodes grouped into classes of equal candidate types so that switching a node on costs
 * O(1) whatever the number of types. Arrays are reused from call to call.
 */
final class ProblemTables {
    SchedulingProblem problem;
    int jobs, nodes, types, maxG, words, stride;
    double now, rho, mu;
    int[] typeGpus = new int[0];
    double[] rate = new double[0]; // [t * stride + g]
    boolean[] canType = new boolean[0]; // [n * types + t]
    boolean[] rightsizable = new boolean[0];
    int[][] nodeCandidates = new int[0][];
    int[] eqStart = new int[1];
    int[] eqList = new int[0]; // smaller types with the same GPU model, by GPU count ascending
    private List<NodeType> equivalentTypesOf;
    /** inverseIdle[d] = 1 / (1 + d): best-fit draw weight of a node left with d idle GPUs. */
    double[] inverseIdle = new double[0];

    // Nodes that can be switched on, grouped into classes of nodes with the same candidate types.
    int classCount;
    int[] nodeClass = new int[0];
    int[] classSize = new int[0];
    int[] classRepresentative = new int[0]; // a node of the class, whose candidate types are the class's
    long[] classMask = new long[0]; // [c * words + w]
    int[] typeClassStart = new int[1];
    int[] typeClasses = new int[0]; // per type, the classes whose nodes may run as it
    long[] idleMask = new long[0]; // nodes hosting no running job
    int[] classSizeIdle = new int[0]; // [c * 2 + (0 idle | 1 hosting running jobs)]: nodes of the group
    int[] sameTypeStart = new int[1];
    int[] sameTypeNodes = new int[0]; // per type, nodes hosting running jobs that run as it now

    void prepare(SchedulingProblem p) {
        problem = p;
        Cluster cluster = p.cluster();
        jobs = p.jobCount();
        nodes = cluster.nodeCount();
        types = cluster.typeCount();
        maxG = cluster.maxGpus();
        stride = maxG + 1;
        words = (nodes + 63) >>> 6;
        now = p.now();
        rho = p.parameters().rho();
        mu = p.parameters().mu();

        inverseIdle = GreedyArrays.grow(inverseIdle, stride);
        for (int d = 0; d < stride; d++) inverseIdle[d] = 1.0 / (1 + d);
        typeGpus = GreedyArrays.grow(typeGpus, types);
        rate = GreedyArrays.grow(rate, types * stride);
        for (int t = 0; t < types; t++) {
            typeGpus[t] = cluster.type(t).gpus();
            for (int g = 0; g <= typeGpus[t]; g++)
                rate[t * stride + g] = cluster.type(t).costPerHour(g);
        }
        canType = GreedyArrays.grow(canType, nodes * types);
        Arrays.fill(canType, 0, nodes * types, false);
        rightsizable = GreedyArrays.grow(rightsizable, nodes);
        if (nodeCandidates.length < nodes) nodeCandidates = new int[nodes][];
        for (int n = 0; n < nodes; n++) {
            nodeCandidates[n] = cluster.candidateTypes(n);
            for (int t : nodeCandidates[n]) canType[n * types + t] = true;
            rightsizable[n] = nodeCandidates[n].length > 1;
        }
        prepareEquivalentTypes(cluster);
        prepareOpeningOrder(p);
    }

    /** Releases the problem (the tables' arrays are kept for the next call). */
    void release() {
        problem = null;
    }

    /** GPUs of all types together: an upper bound of one job's configurations. */
    int perJobMax() {
        int total = 0;
        for (int t = 0; t < types; t++) total += typeGpus[t];
        return total;
    }

    private void prepareEquivalentTypes(Cluster cluster) {
        // depends on the catalog only, which the clusters of all controllers share (the same list instance)
        if (cluster.types() == equivalentTypesOf) return;
        equivalentTypesOf = cluster.types();
        eqStart = GreedyArrays.grow(eqStart, types + 1);
        int count = 0;
        for (int t = 0; t < types; t++) for (int u = 0; u < types; u++) if (isSmallerEquivalent(cluster, u, t)) count++;
        eqList = GreedyArrays.grow(eqList, count);
        int k = 0;
        for (int t = 0; t < types; t++) {
            eqStart[t] = k;
            for (int u = 0; u < types; u++) if (isSmallerEquivalent(cluster, u, t)) eqList[k++] = u;
            // by GPU count ascending, then index: the smallest node that holds the jobs is tried first
            for (int a = eqStart[t] + 1; a < k; a++) {
                int v = eqList[a];
                int b = a - 1;
                while (b >= eqStart[t] && typeGpus[eqList[b]] > typeGpus[v]) {
                    eqList[b + 1] = eqList[b];
                    b--;
                }
                eqList[b + 1] = v;
            }
        }
        eqStart[types] = k;
    }

    private static boolean isSmallerEquivalent(Cluster cluster, int candidate, int of) {
        return candidate != of
                && cluster.type(candidate).gpus() < cluster.type(of).gpus()
                && cluster.type(candidate).gpuModel().equals(cluster.type(of).gpuModel());
    }

    private void prepareOpeningOrder(SchedulingProblem p) {
        boolean[] hostsRunning = new boolean[nodes];
        for (int j = 0; j < jobs; j++) {
            var current = p.job(j).current();
            if (current != null) hostsRunning[current.node()] = true;
        }
        nodeClass = GreedyArrays.grow(nodeClass, nodes);
        int[][] classCandidates = new int[nodes][];
        classCount = 0;
        for (int n = 0; n < nodes; n++) {
            int c = 0;
            while (c < classCount && !Arrays.equals(classCandidates[c], nodeCandidates[n])) c++;
            if (c == classCount) classCandidates[classCount++] = nodeCandidates[n];
            nodeClass[n] = c;
        }
        classRepresentative = GreedyArrays.grow(classRepresentative, classCount);
        for (int n = nodes - 1; n >= 0; n--) classRepresentative[nodeClass[n]] = n;
        classSize = GreedyArrays.grow(classSize, classCount);
        Arrays.fill(classSize, 0, classCount, 0);
        classMask = GreedyArrays.grow(classMask, classCount * words);
        Arrays.fill(classMask, 0, classCount * words, 0L);
        idleMask = GreedyArrays.grow(idleMask, words);
        Arrays.fill(idleMask, 0, words, 0L);
        classSizeIdle = GreedyArrays.grow(classSizeIdle, classCount * 2);
        Arrays.fill(classSizeIdle, 0, classCount * 2, 0);
        for (int n = 0; n < nodes; n++) {
            classSizeIdle[nodeClass[n] * 2 + (hostsRunning[n] ? 1 : 0)]++;
            classSize[nodeClass[n]]++;
            classMask[nodeClass[n] * words + (n >>> 6)] |= 1L << (n & 63);
            if (!hostsRunning[n]) idleMask[n >>> 6] |= 1L << (n & 63);
        }
        typeClassStart = GreedyArrays.grow(typeClassStart, types + 1);
        typeClasses = GreedyArrays.grow(typeClasses, types * classCount);
        sameTypeStart = GreedyArrays.grow(sameTypeStart, types + 1);
        sameTypeNodes = GreedyArrays.grow(sameTypeNodes, nodes);
        int k = 0, m = 0;
        for (int t = 0; t < types; t++) {
            typeClassStart[t] = k;
            for (int c = 0; c < classCount; c++) {
                for (int u : classCandidates[c])
                    if (u == t) {
                        typeClasses[k++] = c;
                        break;
                    }
            }
            sameTypeStart[t] = m;
            for (int n = 0; n < nodes; n++) {
                if (hostsRunning[n] && p.currentNodeType(n) == t && canType[n * types + t]) sameTypeNodes[m++] = n;
            }
        }
        typeClassStart[types] = k;
        sameTypeStart[types] = m;
    }
}
