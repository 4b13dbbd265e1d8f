package org.gpusched.placement.policy;

import java.util.List;
import java.util.function.Supplier;

/**
 * The placement policies by name. The plain names are the FGD simulator's definitions (integer plugin scores, ties to
 * the smallest node name): fgd, pwr, pwr-fgd (with alpha), bestfit, dotprod, gpu-packing, gpu-clustering, random. The
 * variants this product adds keep their own names: fgd-exact, pwr-exact, pwr-fgd-exact (exact double scores, random
 * ties), bestfit-3d, dotprod-3d (CPU, memory and GPU as shares of the node), gpu-packing-tight (tiers, then the least
 * free GPU milli), gpu-clustering-demand (affinity by exact GPU demand), random-tightest (a share on the tightest GPU).
 * Each call returns a fresh instance (policies hold scratch memory).
 */
public final class PlacementPolicies {
    public static final List<String> NAMES = List.of(
            "fgd",
            "pwr",
            "pwr-fgd",
            "bestfit",
            "dotprod",
            "gpu-packing",
            "gpu-clustering",
            "random",
            "fgd-exact",
            "pwr-exact",
            "pwr-fgd-exact",
            "bestfit-3d",
            "dotprod-3d",
            "gpu-packing-tight",
            "gpu-clustering-demand",
            "random-tightest");

    private PlacementPolicies() {}

    /** Whether the policy reads expected fragmentation (so the cluster state needs a target workload). */
    public static boolean needsWorkload(String name) {
        return name.startsWith("fgd") || name.startsWith("pwr-fgd");
    }

    public static boolean takesAlpha(String name) {
        return name.startsWith("pwr-fgd");
    }

    /** @throws IllegalArgumentException for an unknown name, listing the known ones */
    public static Supplier<PlacementPolicy> byName(String name, double alpha) {
        return switch (name) {
            case "fgd" -> () -> new PwrFgdPolicy("fgd", 0, true);
            case "pwr" -> () -> new PwrFgdPolicy("pwr", 1, true);
            case "pwr-fgd" -> {
                new PwrFgdPolicy(name, alpha, true); // validates alpha now rather than inside a run
                yield () -> new PwrFgdPolicy(name, alpha, true);
            }
            case "bestfit" -> BestFitScorePolicy::new;
            case "dotprod" -> DotProductScorePolicy::new;
            case "gpu-packing" -> GpuPackingScorePolicy::new;
            case "gpu-clustering" -> GpuClusteringScorePolicy::new;
            case "random" -> RandomScorePolicy::new;
            case "fgd-exact" -> FgdPolicy::new;
            case "pwr-exact" -> PwrPolicy::new;
            case "pwr-fgd-exact" -> {
                new PwrFgdPolicy(alpha);
                yield () -> new PwrFgdPolicy(alpha);
            }
            case "bestfit-3d" -> BestFitPolicy::new;
            case "dotprod-3d" -> DotProductPolicy::new;
            case "gpu-packing-tight" -> GpuPackingPolicy::new;
            case "gpu-clustering-demand" -> GpuClusteringPolicy::new;
            case "random-tightest" -> RandomPolicy::new;
            default ->
                throw new IllegalArgumentException(
                        "unknown placement policy '" + name + "'; known: " + String.join(", ", NAMES));
        };
    }
}
