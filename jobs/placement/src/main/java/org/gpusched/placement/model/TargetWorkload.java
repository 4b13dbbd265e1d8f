package org.gpusched.placement.model;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The target workload M of the FGD fragmentation measure: task classes (CPU demand, GPU demand, GPU-model constraint)
 * with their popularity p_m, derived from a trace by counting identical demands.
 *
 * <p>F_n(m), the GPU milli on node n that a task of class m cannot use, as the FGD simulator measures it
 * (NodeGpuShareFragAmount): for a CPU-only class every free GPU milli of n is fragment (the simulator's "XL/XR" cases:
 * a task using no GPU can never use them); for a GPU class that cannot run on n at all (too little CPU, too few or too
 * small free GPUs, wrong GPU model) every free GPU milli too; for a GPU class that can, the free milli of each GPU whose
 * free part is below min(D_m^GPU, 1 GPU). F_n(M) = sum_m p_m F_n(m). Memory plays no part, as in the simulator.
 *
 * <p>The classes kept are the simulator's "typical pods": classes sorted by decreasing task count, taken until they
 * cover {@link #SIMULATOR_POPULARITY} of the trace's tasks (the one crossing the threshold included), popularity
 * renormalised over the kept ones ({@link #fromTasks(Collection, double)}; equal counts keep first-seen order).
 *
 * <p>Fast evaluation: classes are grouped by GPU demand (the default trace has 91 classes but only 25 GPU demands);
 * within a group the CPU demands are sorted with prefix sums of popularity, so the classes that lack CPU on a node are
 * found by one binary search, and the GPU test runs once per group. One node evaluation costs
 * O(groups * (log classes + GPUs)) and reads no memory outside a few small arrays. See {@link #bind(String[])}.
 */
public final class TargetWorkload {
    /** One class m of the target workload and its popularity p_m (fractions summing to 1 over the workload). */
    public record TaskClass(
            long cpuMilli, int gpuCount, int gpuMilliPerGpu, Set<String> gpuModels, double popularity) {}

    private final List<TaskClass> classes;
    private final Group[] groups;

    private static final class Group {
        final int gpuCount;
        final int gpuMilliPerGpu;
        final Set<String> gpuModels;
        long[] cpuSorted;
        double[] popularityPrefix; // popularityPrefix[i] = sum of popularity of cpuSorted[0..i)
        double total;

        Group(int gpuCount, int gpuMilliPerGpu, Set<String> gpuModels) {
            this.gpuCount = gpuCount;
            this.gpuMilliPerGpu = gpuMilliPerGpu;
            this.gpuModels = gpuModels;
        }

        /** Popularity of the classes of this group whose CPU demand is at most {@code cpuFree}. */
        double popularityFittingCpu(long cpuFree) {
            int lo = 0, hi = cpuSorted.length; // first index with cpuSorted > cpuFree
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (cpuSorted[mid] <= cpuFree) lo = mid + 1;
                else hi = mid;
            }
            return popularityPrefix[lo];
        }
    }

    public TargetWorkload(Collection<TaskClass> classes) {
        if (classes.isEmpty()) throw new IllegalArgumentException("target workload has no task class");
        double sum = classes.stream().mapToDouble(TaskClass::popularity).sum();
        if (!(sum > 0)) throw new IllegalArgumentException("target workload popularity sums to " + sum);
        List<TaskClass> normalized = new ArrayList<>();
        for (TaskClass c : classes) {
            if (c.popularity() < 0) throw new IllegalArgumentException("negative popularity " + c);
            normalized.add(new TaskClass(
                    c.cpuMilli(), c.gpuCount(), c.gpuMilliPerGpu(), Set.copyOf(c.gpuModels()), c.popularity() / sum));
        }
        this.classes = List.copyOf(normalized);
        Map<List<Object>, List<TaskClass>> byGpu = new LinkedHashMap<>();
        for (TaskClass c : this.classes)
            byGpu.computeIfAbsent(List.of(c.gpuCount(), c.gpuMilliPerGpu(), c.gpuModels()), k -> new ArrayList<>())
                    .add(c);
        groups = new Group[byGpu.size()];
        int gi = 0;
        for (List<TaskClass> members : byGpu.values()) {
            members.sort(Comparator.comparingLong(TaskClass::cpuMilli));
            TaskClass first = members.get(0);
            Group g = new Group(first.gpuCount(), first.gpuMilliPerGpu(), first.gpuModels());
            g.cpuSorted = new long[members.size()];
            g.popularityPrefix = new double[members.size() + 1];
            for (int i = 0; i < members.size(); i++) {
                g.cpuSorted[i] = members.get(i).cpuMilli();
                g.popularityPrefix[i + 1] =
                        g.popularityPrefix[i] + members.get(i).popularity();
            }
            g.total = g.popularityPrefix[members.size()];
            groups[gi++] = g;
        }
    }

    /** The simulator's default podPopularityThreshold: the most popular classes covering 95% of tasks. */
    public static final double SIMULATOR_POPULARITY = 0.95;

    /** {@link #fromTasks(Collection, double)} with the simulator's 95% threshold. */
    public static TargetWorkload fromTasks(Collection<Task> tasks) {
        return fromTasks(tasks, SIMULATOR_POPULARITY);
    }

    /**
     * Classes = distinct (CPU, GPU count, GPU milli, GPU models) of the tasks, popularity = share of tasks; only the most
     * popular classes are kept, in decreasing count, until their cumulative share reaches {@code coverage} (1 = all).
     */
    public static TargetWorkload fromTasks(Collection<Task> tasks, double coverage) {
        if (!(coverage > 0 && coverage <= 1))
            throw new IllegalArgumentException("coverage must be in (0, 1], got " + coverage);
        Map<List<Object>, Integer> counts = new LinkedHashMap<>();
        for (Task t : tasks)
            counts.merge(List.of(t.cpuMilli(), t.gpuCount(), t.gpuMilliPerGpu(), t.gpuModels()), 1, Integer::sum);
        List<TaskClass> classes = new ArrayList<>();
        for (Map.Entry<List<Object>, Integer> e : counts.entrySet()) {
            List<Object> k = e.getKey();
            @SuppressWarnings("unchecked")
            Set<String> models = (Set<String>) k.get(3);
            classes.add(new TaskClass((Long) k.get(0), (Integer) k.get(1), (Integer) k.get(2), models, e.getValue()));
        }
        classes.sort(Comparator.comparingDouble(TaskClass::popularity)
                .reversed()); // stable: equal counts keep first-seen order
        double wanted = coverage * tasks.size();
        double covered = 0;
        int kept = 0;
        while (kept < classes.size() && covered < wanted - 1e-9)
            covered += classes.get(kept++).popularity();
        return new TargetWorkload(classes.subList(0, kept));
    }

    public List<TaskClass> classes() {
        return classes;
    }

    public int gpuDemandGroups() {
        return groups.length;
    }

    /**
     * A meter for a cluster whose GPU models are {@code modelNames} (index = model id): precomputes, per class group
     * and model, whether the group's model constraint admits the model, so evaluation does no set look-ups.
     */
    public Meter bind(String[] modelNames) {
        boolean[][] allowed = new boolean[groups.length][modelNames.length];
        for (int g = 0; g < groups.length; g++)
            for (int m = 0; m < modelNames.length; m++)
                allowed[g][m] = groups[g].gpuModels.isEmpty() || groups[g].gpuModels.contains(modelNames[m]);
        return new Meter(allowed);
    }

    /** Evaluates F_n(M) for node states of one cluster. Stateless apart from the bound model table; thread-safe. */
    public final class Meter {
        private final boolean[][] allowed;

        private Meter(boolean[][] allowed) {
            this.allowed = allowed;
        }

        /**
         * Expected GPU fragmentation F_n(M) in milli-GPUs of a node with {@code cpuFree} milli-CPU, the first
         * {@code gpuCount} entries of {@code gpuFree} as free milli per GPU, and GPU model id {@code modelId}.
         */
        public double fragmentation(long cpuFree, int[] gpuFree, int gpuCount, int modelId) {
            long total = 0;
            int maxFree = 0, fullFree = 0;
            for (int g = 0; g < gpuCount; g++) {
                int f = gpuFree[g];
                total += f;
                if (f > maxFree) maxFree = f;
                if (f >= Task.MILLI) fullFree++;
            }
            if (total == 0) return 0;
            double frag = 0;
            for (int gi = 0; gi < groups.length; gi++) {
                Group grp = groups[gi];
                if (grp.gpuCount == 0) { // a CPU-only class can use no free GPU milli, whether its CPU fits or not
                    frag += grp.total * total;
                    continue;
                }
                boolean gpuFits;
                if (modelId < 0 || !allowed[gi][modelId]) gpuFits = false;
                else if (grp.gpuMilliPerGpu < Task.MILLI) gpuFits = maxFree >= grp.gpuMilliPerGpu;
                else gpuFits = fullFree >= grp.gpuCount;
                if (!gpuFits) {
                    frag += grp.total * total;
                    continue;
                }
                double fitting = grp.popularityFittingCpu(cpuFree);
                long unusable = 0;
                int threshold = Math.min(grp.gpuMilliPerGpu, Task.MILLI);
                for (int g = 0; g < gpuCount; g++) if (gpuFree[g] < threshold) unusable += gpuFree[g];
                frag += fitting * unusable + (grp.total - fitting) * total;
            }
            return frag;
        }
    }
}
