package org.gpusched.core.model;

import java.util.Arrays;

/**
 * An optimizer's decision: the placement of each job of the problem (null = postponed, waits in the queue)
 * and the type each node runs as (-1 = off). Immutable once built.
 */
public final class Schedule {
    private final Placement[] placements;
    private final int[] nodeTypes;
    private final double objective;

    public Schedule(Placement[] placements, int[] nodeTypes, double objective) {
        this.placements = placements.clone();
        this.nodeTypes = nodeTypes.clone();
        this.objective = objective;
    }

    public Placement placement(int job) {
        return placements[job];
    }

    public int nodeType(int node) {
        return nodeTypes[node];
    }

    public int jobCount() {
        return placements.length;
    }

    public int nodeCount() {
        return nodeTypes.length;
    }
    /** f_OBJ of this schedule as computed by {@link org.gpusched.core.objective.ObjectiveFunction}. */
    public double objective() {
        return objective;
    }

    public Placement[] placements() {
        return placements.clone();
    }

    public int[] nodeTypes() {
        return nodeTypes.clone();
    }

    public long scheduledCount() {
        return Arrays.stream(placements).filter(p -> p != null).count();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Schedule s
                && Arrays.equals(s.placements, placements)
                && Arrays.equals(s.nodeTypes, nodeTypes);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(placements) + Arrays.hashCode(nodeTypes);
    }

    @Override
    public String toString() {
        return "Schedule{f=" + objective + ", placements=" + Arrays.toString(placements) + ", nodeTypes="
                + Arrays.toString(nodeTypes) + "}";
    }
}
