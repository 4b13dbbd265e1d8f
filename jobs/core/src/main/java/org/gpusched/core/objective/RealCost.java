package org.gpusched.core.objective;

import org.gpusched.core.model.NodeType;

/**
 * The cost a schedule really incurs over time, used by every report and comparison: a node hosting at least one
 * running job costs costPerHour[type][busy GPUs] for as long as it does (a node with no job is off and costs
 * nothing), and each job completing after its due date costs weight x hours late.
 */
public final class RealCost {
    private RealCost() {}

    public static double nodeCost(NodeType type, int busyGpus, double seconds) {
        if (busyGpus <= 0 || seconds <= 0) return 0;
        return type.costPerHour(busyGpus) * seconds / 3600.0;
    }

    public static double tardinessCost(double weightPerHour, double completionSeconds, double dueSeconds) {
        double late = completionSeconds - dueSeconds;
        return late > 0 ? weightPerHour * late / 3600.0 : 0;
    }
}
