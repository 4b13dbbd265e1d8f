package org.gpusched.placement.policy;

import java.util.List;
import java.util.function.Supplier;

/**
 * The placement policies by name: fgd, pwr, pwr-fgd (with alpha), bestfit, dotprod, gpu-packing, gpu-clustering, random.
 * Each call returns a fresh instance (policies hold scratch memory).
 */
public final class PlacementPolicies {
    public static final List<String> NAMES =
            List.of("fgd", "pwr", "pwr-fgd", "bestfit", "dotprod", "gpu-packing", "gpu-clustering", "random");

    private PlacementPolicies() {}

    /** Whether the policy reads expected fragmentation (so the cluster state needs a target workload). */
    public static boolean needsWorkload(String name) { return name.equals("fgd") || name.equals("pwr-fgd"); }

    public static boolean takesAlpha(String name) { return name.equals("pwr-fgd"); }

    /**
     * Like {@link #byName(String, double)}, but with {@code pluginIntegerScores} fgd, pwr and pwr-fgd score as the
     * authors' Go plugins do (integer scores, random ties; see {@link PwrFgdPolicy}); other policies are unchanged.
     */
    public static Supplier<PlacementPolicy> byName(String name, double alpha, boolean pluginIntegerScores) {
        if (!pluginIntegerScores) return byName(name, alpha);
        return switch (name) {
            case "fgd" -> () -> new PwrFgdPolicy(0, true);
            case "pwr" -> () -> new PwrFgdPolicy(1, true);
            case "pwr-fgd" -> {
                new PwrFgdPolicy(alpha, true);
                yield () -> new PwrFgdPolicy(alpha, true);
            }
            default -> byName(name, alpha);
        };
    }

    /** @throws IllegalArgumentException for an unknown name, listing the known ones */
    public static Supplier<PlacementPolicy> byName(String name, double alpha) {
        return switch (name) {
            case "fgd" -> FgdPolicy::new;
            case "pwr" -> PwrPolicy::new;
            case "pwr-fgd" -> {
                new PwrFgdPolicy(alpha); // validates alpha now rather than inside a run
                yield () -> new PwrFgdPolicy(alpha);
            }
            case "bestfit" -> BestFitPolicy::new;
            case "dotprod" -> DotProductPolicy::new;
            case "gpu-packing" -> GpuPackingPolicy::new;
            case "gpu-clustering" -> GpuClusteringPolicy::new;
            case "random" -> RandomPolicy::new;
            default -> throw new IllegalArgumentException("unknown placement policy '" + name + "'; known: " + String.join(", ", NAMES));
        };
    }
}
