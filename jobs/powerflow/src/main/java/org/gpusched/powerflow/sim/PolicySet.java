package org.gpusched.powerflow.sim;

import java.util.ArrayList;
import java.util.List;
import org.gpusched.powerflow.policy.AfsPolicy;
import org.gpusched.powerflow.policy.EnergyPolicy;
import org.gpusched.powerflow.policy.GandivaPolicy;
import org.gpusched.powerflow.policy.LimitChoice;
import org.gpusched.powerflow.policy.PowerFlowPolicy;
import org.gpusched.powerflow.policy.TimeSlicing;
import org.gpusched.powerflow.policy.TiresiasPolicy;

/**
 * Policy names to runs: {@code powerflow} once per eta; {@code tiresias}, {@code gandiva} and {@code afs} once per
 * cluster-wide power limit (the paper's clock sweep); {@code tiresias+zeus} and {@code gandiva+zeus} once. Gandiva's
 * runs time-slice as given ({@link TimeSlicing#NONE}, first come first served, unless told).
 */
public final class PolicySet {
    public static final List<String> NAMES =
            List.of("powerflow", "tiresias", "gandiva", "afs", "tiresias+zeus", "gandiva+zeus");

    /** A run: the policy and the swept setting (eta, or the limit in W, or NaN). */
    public record Run(EnergyPolicy policy, String family, double setting) {}

    private PolicySet() {}

    public static List<Run> expand(List<String> names, List<Double> etas, List<Double> limits) {
        return expand(
                names, etas, limits, PowerFlowPolicy.Normalizer.CLUSTER, PowerFlowPolicy.BudgetCheck.NODE_BOUNDARY);
    }

    public static List<Run> expand(
            List<String> names,
            List<Double> etas,
            List<Double> limits,
            PowerFlowPolicy.Normalizer normalizer,
            PowerFlowPolicy.BudgetCheck budgetCheck) {
        return expand(
                names, etas, limits, normalizer, budgetCheck, PowerFlowPolicy.StartLimit.EFFICIENT, TimeSlicing.NONE);
    }

    public static List<Run> expand(
            List<String> names,
            List<Double> etas,
            List<Double> limits,
            PowerFlowPolicy.Normalizer normalizer,
            PowerFlowPolicy.BudgetCheck budgetCheck,
            PowerFlowPolicy.StartLimit startLimit,
            TimeSlicing gandiva) {
        List<Run> runs = new ArrayList<>();
        for (String n : names) {
            switch (n) {
                case "powerflow" ->
                    etas.forEach(
                            e -> runs.add(new Run(new PowerFlowPolicy(e, normalizer, budgetCheck, startLimit), n, e)));
                case "tiresias" ->
                    limits.forEach(l -> runs.add(new Run(new TiresiasPolicy(LimitChoice.fixed(l)), n, l)));
                case "gandiva" ->
                    limits.forEach(l -> runs.add(new Run(new GandivaPolicy(LimitChoice.fixed(l), gandiva), n, l)));
                case "afs" -> limits.forEach(l -> runs.add(new Run(new AfsPolicy(LimitChoice.fixed(l)), n, l)));
                case "tiresias+zeus" -> runs.add(new Run(new TiresiasPolicy(LimitChoice.zeus()), n, Double.NaN));
                case "gandiva+zeus" -> runs.add(new Run(new GandivaPolicy(LimitChoice.zeus(), gandiva), n, Double.NaN));
                default ->
                    throw new IllegalArgumentException(
                            "unknown policy '" + n + "' (known: " + String.join(", ", NAMES) + ")");
            }
        }
        return runs;
    }
}
