package org.gpusched.placement.model;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;
import org.gpusched.core.random.RandomState;

/**
 * The unallocated resource vectors R_n of every node (PWR paper, section II) plus what policies and metrics read on every
 * decision, kept up to date incrementally so that scoring the whole cluster stays cheap:
 * <ul>
 *   <li>resources as packed primitive arrays indexed by node (free milli-CPU, free MiB, free milli per GPU), so the
 *       feasibility scan over 1213 nodes is a tight loop over a few arrays;</li>
 *   <li>per node: whole-free GPU count and largest free GPU share (condition 3 in O(1)), tasks hosted;</li>
 *   <li>per node and in total: CPU and GPU watts (eq. 1-3) and expected fragmentation F_n(M) (eq. 4), recomputed only
 *       for the one node a placement or release touches, so EOPC and F_datacenter are O(1) reads and a fragmentation
 *       policy needs only the hypothetical value per candidate;</li>
 *   <li>an index of nodes by GPU model, so a model-constrained task scans only the nodes it may use;</li>
 *   <li>each node's tie rank: the FGD simulator's scheduler takes, among equal top scores, the node with the smallest
 *       name, and prefixes every name with its index in a per-seed random permutation of the name-sorted nodes
 *       ({@link #permuteTieOrder}); without a permutation the rank is the name order.</li>
 * </ul>
 * Not thread-safe: one state per simulation run or controller.
 */
public final class ClusterState {
    private final NodeSpec[] specs;
    private final long[] cpuFree;
    private final long[] memFree;
    private final int[][] gpuFree;
    private final int[] fullFreeGpus;
    private final int[] maxGpuFree;
    private final int[] tasksOnNode;
    private final int[] modelId;
    private final String[] modelNames;
    private final Map<String, int[]> nodesByModel = new HashMap<>();
    private final Map<Set<String>, int[]> candidateCache = new HashMap<>();
    private final int[] allNodes;
    private final int[] tieRank;
    private final int[] byName;
    private final double[] cpuWatts;
    private final double[] gpuWatts;
    private final double[] frag;
    private final TargetWorkload.Meter meter;
    /** Per node: hosted task count per GPU demand key (GpuClustering). */
    private final Map<Integer, Integer>[] demandCounts;

    private final int[] scratchGpu;
    private double totalCpuWatts;
    private double totalGpuWatts;
    private double totalFrag;
    private long gpuMilliAllocated;
    private final long gpuMilliCapacity;

    /** A cluster of empty nodes; {@code workload} may be null when no fragmentation is needed. */
    @SuppressWarnings("unchecked")
    public ClusterState(List<NodeSpec> nodes, TargetWorkload workload) {
        int n = nodes.size();
        specs = nodes.toArray(new NodeSpec[0]);
        cpuFree = new long[n];
        memFree = new long[n];
        gpuFree = new int[n][];
        fullFreeGpus = new int[n];
        maxGpuFree = new int[n];
        tasksOnNode = new int[n];
        modelId = new int[n];
        cpuWatts = new double[n];
        gpuWatts = new double[n];
        frag = new double[n];
        demandCounts = new Map[n];
        Map<String, Integer> ids = new LinkedHashMap<>();
        Map<String, List<Integer>> byModel = new LinkedHashMap<>();
        long capacity = 0;
        int maxGpus = 0;
        for (int i = 0; i < n; i++) {
            NodeSpec s = specs[i];
            cpuFree[i] = s.cpuMilli();
            memFree[i] = s.memoryMiB();
            gpuFree[i] = new int[s.gpuCount()];
            Arrays.fill(gpuFree[i], Task.MILLI);
            capacity += (long) s.gpuCount() * Task.MILLI;
            maxGpus = Math.max(maxGpus, s.gpuCount());
            if (s.gpuCount() > 0) {
                modelId[i] = ids.computeIfAbsent(s.gpuModel().name(), k -> ids.size());
                byModel.computeIfAbsent(s.gpuModel().name(), k -> new ArrayList<>())
                        .add(i);
            } else {
                modelId[i] = -1;
            }
        }
        modelNames = ids.keySet().toArray(new String[0]);
        byModel.forEach((m, list) ->
                nodesByModel.put(m, list.stream().mapToInt(Integer::intValue).toArray()));
        allNodes = new int[n];
        for (int i = 0; i < n; i++) allNodes[i] = i;
        byName = IntStream.range(0, n)
                .boxed()
                .sorted(Comparator.comparing((Integer i) -> specs[i].name()))
                .mapToInt(Integer::intValue)
                .toArray();
        tieRank = new int[n];
        for (int r = 0; r < n; r++) tieRank[byName[r]] = r;
        gpuMilliCapacity = capacity;
        scratchGpu = new int[maxGpus];
        meter = workload == null ? null : workload.bind(modelNames);
        for (int i = 0; i < n; i++) refresh(i);
    }

    public int nodeCount() {
        return specs.length;
    }

    public NodeSpec spec(int node) {
        return specs[node];
    }

    public long cpuFree(int node) {
        return cpuFree[node];
    }

    public long memFree(int node) {
        return memFree[node];
    }

    public int gpuCount(int node) {
        return gpuFree[node].length;
    }

    public int gpuFree(int node, int gpu) {
        return gpuFree[node][gpu];
    }

    public int fullFreeGpus(int node) {
        return fullFreeGpus[node];
    }

    public int maxGpuFree(int node) {
        return maxGpuFree[node];
    }

    public int tasksOnNode(int node) {
        return tasksOnNode[node];
    }

    /** Among equal scores the node with the smaller rank wins (the simulator's smallest prefixed name). */
    public int tieRank(int node) {
        return tieRank[node];
    }

    /**
     * The simulator's node naming for one seed: the i-th node in name order is renamed "perm[i]-name" with perm a random
     * permutation of 0..n-1 (Fisher-Yates from {@code random}), so its rank becomes perm[i].
     */
    public void permuteTieOrder(RandomState random) {
        int n = byName.length;
        int[] perm = new int[n];
        for (int i = 0; i < n; i++) perm[i] = i;
        for (int i = n - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
        for (int i = 0; i < n; i++) tieRank[byName[i]] = perm[i];
    }

    public long gpuFreeTotal(int node) {
        long t = 0;
        for (int f : gpuFree[node]) t += f;
        return t;
    }

    /** Tasks with the same GPU demand as {@code task} hosted on the node (GpuClustering's affinity). */
    public int sameGpuDemandOnNode(int node, Task task) {
        Map<Integer, Integer> m = demandCounts[node];
        return m == null ? 0 : m.getOrDefault(demandKey(task), 0);
    }

    /**
     * GPU tasks on the node with the same GPU affinity as {@code task} in the simulator's sense: every share is one
     * affinity ("share"), whole GPUs one per count ("k-gpu"). 0 for a CPU-only task.
     */
    public int sameGpuAffinityOnNode(int node, Task task) {
        Map<Integer, Integer> m = demandCounts[node];
        if (m == null || task.gpuCount() == 0) return 0;
        int tag = affinityTag(demandKey(task)), n = 0;
        for (Map.Entry<Integer, Integer> e : m.entrySet()) if (affinityTag(e.getKey()) == tag) n += e.getValue();
        return n;
    }

    /** Distinct GPU affinities (see {@link #sameGpuAffinityOnNode}) among the node's tasks. */
    public int gpuAffinitiesOnNode(int node) {
        Map<Integer, Integer> m = demandCounts[node];
        if (m == null || m.isEmpty()) return 0;
        Set<Integer> tags = new HashSet<>(4);
        for (Integer key : m.keySet()) tags.add(affinityTag(key));
        return tags.size();
    }

    private static int affinityTag(int demandKey) {
        return demandKey % 10_000 < Task.MILLI ? 0 : demandKey / 10_000;
    }

    public double nodeCpuWatts(int node) {
        return cpuWatts[node];
    }

    public double nodeGpuWatts(int node) {
        return gpuWatts[node];
    }

    public double nodeFragmentationMilli(int node) {
        return frag[node];
    }

    /** EOPC CPU part (sum of eq. 1 over nodes), watts. */
    public double eopcCpuWatts() {
        return totalCpuWatts;
    }

    /** EOPC GPU part (sum of eq. 2 over nodes), watts. */
    public double eopcGpuWatts() {
        return totalGpuWatts;
    }

    /** F_datacenter (eq. 4) in milli-GPUs; 0 without a target workload. */
    public double fragmentationMilli() {
        return totalFrag;
    }

    public long gpuMilliAllocated() {
        return gpuMilliAllocated;
    }

    public long gpuMilliCapacity() {
        return gpuMilliCapacity;
    }

    public boolean hasWorkload() {
        return meter != null;
    }

    /**
     * Nodes whose GPU model the task admits (condition 5), from the model index; every node when unconstrained. The
     * returned array is shared: do not modify.
     */
    public int[] candidates(Task task) {
        if (task.gpuModels().isEmpty()) return allNodes;
        return candidateCache.computeIfAbsent(
                task.gpuModels(),
                models -> models.stream()
                        .map(nodesByModel::get)
                        .filter(a -> a != null)
                        .flatMapToInt(Arrays::stream)
                        .sorted()
                        .toArray());
    }

    /**
     * Conditions 1-5 of the PWR paper. Condition 3 for a GPU share reads "some GPU has at least D_t^GPU free": the
     * paper's literal u_n - floor(u_n) is the largest free part of a partly used GPU and would exclude whole free GPUs,
     * so an empty node would reject every share; the FGD simulator the paper ran admits any GPU with enough free milli.
     */
    public boolean fits(Task task, int node) {
        if (task.cpuMilli() > cpuFree[node] || task.memoryMiB() > memFree[node]) return false;
        if (!task.cpuModels().isEmpty()
                && !task.cpuModels().contains(specs[node].cpuModel().name())) return false;
        if (task.gpuCount() == 0) return gpuModelAllowed(task, node);
        if (gpuFree[node].length == 0 || !gpuModelAllowed(task, node)) return false;
        return task.gpuMilliPerGpu() < Task.MILLI
                ? maxGpuFree[node] >= task.gpuMilliPerGpu()
                : fullFreeGpus[node] >= task.gpuCount();
    }

    private boolean gpuModelAllowed(Task task, int node) {
        return task.gpuModels().isEmpty()
                || (modelId[node] >= 0 && task.gpuModels().contains(modelNames[modelId[node]]));
    }

    /**
     * The GPUs a task takes on a node given, for a share, the chosen GPU ({@code sharedGpu}); whole GPUs are the
     * lowest-indexed whole free ones (which whole free GPUs does not change any score).
     */
    public Placement placementOf(Task task, int node, int sharedGpu) {
        return switch (task.kind()) {
            case NONE -> new Placement(node, new int[0]);
            case SHARED -> new Placement(node, new int[] {sharedGpu});
            case WHOLE -> {
                int[] gpus = new int[task.gpuCount()];
                int k = 0;
                int[] free = gpuFree[node];
                for (int g = 0; g < free.length && k < gpus.length; g++) if (free[g] == Task.MILLI) gpus[k++] = g;
                if (k < gpus.length)
                    throw new IllegalStateException("node " + specs[node].name() + " lacks whole GPUs");
                yield new Placement(node, gpus);
            }
        };
    }

    /** The GPU with the least free milli that still holds the share (best fit), or -1. */
    public int tightestGpu(Task task, int node) {
        int best = -1;
        int[] free = gpuFree[node];
        for (int g = 0; g < free.length; g++)
            if (free[g] >= task.gpuMilliPerGpu() && (best < 0 || free[g] < free[best])) best = g;
        return best;
    }

    /** Allocates the task; throws if the placement breaks a fit condition. */
    public void place(Task task, Placement p) {
        int node = p.node();
        if (!fits(task, node))
            throw new IllegalStateException("task " + task.name() + " does not fit node " + specs[node].name());
        int[] free = gpuFree[node];
        if (p.gpuCount() != task.gpuCount())
            throw new IllegalArgumentException("placement GPU count differs from the task's");
        for (int i = 0; i < p.gpuCount(); i++) {
            int g = p.gpu(i);
            if (free[g] < task.gpuMilliPerGpu())
                throw new IllegalStateException("GPU " + g + " of " + specs[node].name() + " lacks milli");
        }
        cpuFree[node] -= task.cpuMilli();
        memFree[node] -= task.memoryMiB();
        for (int i = 0; i < p.gpuCount(); i++) free[p.gpu(i)] -= task.gpuMilliPerGpu();
        gpuMilliAllocated += task.gpuMilliTotal();
        tasksOnNode[node]++;
        if (task.gpuCount() > 0) {
            if (demandCounts[node] == null) demandCounts[node] = new HashMap<>(4);
            demandCounts[node].merge(demandKey(task), 1, Integer::sum);
        }
        refresh(node);
    }

    /** Returns the task's resources (time-driven replay: a task leaving). */
    public void release(Task task, Placement p) {
        int node = p.node();
        int[] free = gpuFree[node];
        for (int i = 0; i < p.gpuCount(); i++) {
            if (free[p.gpu(i)] + task.gpuMilliPerGpu() > Task.MILLI)
                throw new IllegalStateException("release of an unallocated GPU share");
        }
        if (tasksOnNode[node] == 0) throw new IllegalStateException("release on an empty node " + specs[node].name());
        cpuFree[node] += task.cpuMilli();
        memFree[node] += task.memoryMiB();
        for (int i = 0; i < p.gpuCount(); i++) free[p.gpu(i)] += task.gpuMilliPerGpu();
        gpuMilliAllocated -= task.gpuMilliTotal();
        tasksOnNode[node]--;
        if (task.gpuCount() > 0 && demandCounts[node] != null) {
            demandCounts[node].computeIfPresent(demandKey(task), (k, v) -> v == 1 ? null : v - 1);
        }
        refresh(node);
    }

    /** Node watts (CPU + GPU) if the task were placed as given, without changing the state (PWR's HypAssignToNode). */
    public double powerAfter(Task task, int node, int sharedGpu) {
        NodeSpec s = specs[node];
        double cpu = PowerModel.cpuWatts(s.cpuModel(), s.cpuMilli(), cpuFree[node] - task.cpuMilli());
        double gpu = gpuWatts[node];
        if (task.kind() == Task.GpuKind.SHARED) {
            if (gpuFree[node][sharedGpu] == Task.MILLI)
                gpu += s.gpuModel().maxWatts() - s.gpuModel().idleWatts();
        } else if (task.kind() == Task.GpuKind.WHOLE) {
            gpu += task.gpuCount() * (s.gpuModel().maxWatts() - s.gpuModel().idleWatts());
        }
        return cpu + gpu;
    }

    public double nodeWatts(int node) {
        return cpuWatts[node] + gpuWatts[node];
    }

    /** F_n(M) in milli-GPUs if the task were placed as given, without changing the state. Needs a target workload. */
    public double fragmentationAfter(Task task, int node, int sharedGpu) {
        int[] free = gpuFree[node];
        int n = free.length;
        System.arraycopy(free, 0, scratchGpu, 0, n);
        if (task.kind() == Task.GpuKind.SHARED) {
            scratchGpu[sharedGpu] -= task.gpuMilliPerGpu();
        } else if (task.kind() == Task.GpuKind.WHOLE) {
            int left = task.gpuCount();
            for (int g = 0; g < n && left > 0; g++)
                if (scratchGpu[g] == Task.MILLI) {
                    scratchGpu[g] = 0;
                    left--;
                }
        }
        return meter.fragmentation(cpuFree[node] - task.cpuMilli(), scratchGpu, n, modelId[node]);
    }

    private void refresh(int node) {
        int[] free = gpuFree[node];
        int full = 0, max = 0;
        for (int f : free) {
            if (f == Task.MILLI) full++;
            if (f > max) max = f;
        }
        fullFreeGpus[node] = full;
        maxGpuFree[node] = max;
        NodeSpec s = specs[node];
        double c = PowerModel.cpuWatts(s.cpuModel(), s.cpuMilli(), cpuFree[node]);
        double g = s.gpuCount() == 0 ? 0 : PowerModel.gpuWatts(s.gpuModel(), free, free.length);
        totalCpuWatts += c - cpuWatts[node];
        totalGpuWatts += g - gpuWatts[node];
        cpuWatts[node] = c;
        gpuWatts[node] = g;
        if (meter != null) {
            double f = meter.fragmentation(cpuFree[node], free, free.length, modelId[node]);
            totalFrag += f - frag[node];
            frag[node] = f;
        }
    }

    private static int demandKey(Task task) {
        return task.gpuCount() * 10_000 + task.gpuMilliPerGpu();
    }
}
