package org.gpusched.powerflow.sim;

import java.util.Locale;

/**
 * What the policies that read job models see, and whether PowerFlow's jobs are profiled for them. The two truth
 * sources split the gap between fitted and ideal runs in two: {@link #TRUTH_PROFILED} against {@link #TRUTH} is what
 * the profiling costs, {@link #FITTED} against {@link #TRUTH_PROFILED} what the models' error costs.
 */
public enum ModelSource {
    /** Models fitted online from each job's telemetry after PowerFlow's profiling: the product. */
    FITTED,
    /** Each job's ground truth and nothing profiled: the paper's Figure 9 ideal case ("pre-profiled performance"). */
    TRUTH,
    /**
     * Each job's ground truth, with the jobs profiled as under {@link #FITTED} (the pre-run, and the sweep at each new
     * GPU count, holding their GPUs): the profiling's overhead without the models' error.
     */
    TRUTH_PROFILED;

    /** The name on the command line and in setup.json: {@code fitted}, {@code truth}, {@code truth-profiled}. */
    public String label() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    public static ModelSource ofLabel(String label) {
        for (ModelSource m : values()) if (m.label().equals(label)) return m;
        throw new IllegalArgumentException("not a model source: " + label + " (fitted, truth or truth-profiled)");
    }

    /** Whether the policies see the ground truth. */
    public boolean truth() {
        return this != FITTED;
    }

    /** Whether PowerFlow's jobs are pre-run and swept at new GPU counts. */
    public boolean profiles() {
        return this != TRUTH;
    }
}
