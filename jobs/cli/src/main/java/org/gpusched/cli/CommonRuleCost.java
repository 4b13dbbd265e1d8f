package org.gpusched.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The one cost rule both schedulers are held to, computed from schedule steps in the GPUScheduler layout (their
 * schedule CSV, or a run directory through {@link RunScheduleSteps}), so the same code prices both: a node costs
 * its VM's price per hour (the step's {@code cost}) for every second of a step in which it hosts a running job; a
 * job costs its weight times the time it finished after its due date. A job never reaching 100% is unfinished.
 */
final class CommonRuleCost implements Consumer<GpuSchedulerScheduleCsv.Row> {
    /** Their CSV prints 6 significant digits: a finished job shows 100, a nearly finished one at most 99.9999. */
    static final double FINISHED_PERCENT = 100 - 1e-5;

    record Totals(
            double nodeCost,
            double tardinessCost,
            long jobs,
            long tardyJobs,
            long unfinishedJobs,
            long steps,
            double nodeHours,
            Map<String, double[]> byVmType) {
        double total() {
            return nodeCost + tardinessCost;
        }
    }

    private final Set<String> nodeSteps = new HashSet<>();
    private final Map<String, Boolean> finished = new LinkedHashMap<>();
    /** VM type -> {node hours, node cost}. */
    private final Map<String, double[]> byVmType = new java.util.TreeMap<>();

    private double nodeCost, tardinessCost, nodeSeconds;
    private long tardy, lastStep = -1, steps;

    /** Prices a run directory or a GPUScheduler schedule CSV. */
    static Totals of(Path schedule) {
        CommonRuleCost cost = new CommonRuleCost();
        if (Files.isDirectory(schedule)) RunScheduleSteps.rows(schedule, cost);
        else GpuSchedulerScheduleCsv.read(schedule, cost);
        return cost.totals();
    }

    @Override
    public void accept(GpuSchedulerScheduleCsv.Row r) {
        if (r.iteration() != lastStep) {
            lastStep = r.iteration();
            steps++;
        }
        if (r.placed() && r.executionTime() > 0 && nodeSteps.add(r.iteration() + "\u0000" + r.node())) {
            double cost = r.pricePerHour() * r.executionTime() / 3600;
            nodeCost += cost;
            nodeSeconds += r.executionTime();
            double[] perType = byVmType.computeIfAbsent(r.vmType(), k -> new double[2]);
            perType[0] += r.executionTime() / 3600;
            perType[1] += cost;
        }
        boolean done = r.completionPercent() >= FINISHED_PERCENT;
        Boolean before = finished.putIfAbsent(r.job(), done);
        if (done && !Boolean.TRUE.equals(before)) {
            finished.put(r.job(), true);
            double late = Math.max(0, r.finishTime() - r.deadline());
            if (late > 0) {
                tardy++;
                tardinessCost += late * r.weightPerSecond();
            }
        }
    }

    Totals totals() {
        long unfinished = finished.values().stream().filter(f -> !f).count();
        return new Totals(
                nodeCost, tardinessCost, finished.size(), tardy, unfinished, steps, nodeSeconds / 3600, byVmType);
    }
}
