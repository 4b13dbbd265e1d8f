package org.gpusched.workloads;

import java.util.List;
import java.util.Locale;
import org.gpusched.formats.FormatException;

/** The scenarios by name, as {@code gpusched generate --scenario NAME} knows them. */
public final class Scenarios {
    public static final List<String> NAMES =
            List.of("hierarchical", "hierarchical-tight", "andreas", "armida", "gpuscheduler");

    private Scenarios() {}

    /**
     * @param nodes null when not given; armida has its fixed 3 nodes and rejects any other count
     * @param shape andreas only ({@code small} or {@code large}); null = small
     */
    public static Scenario create(String name, Integer nodes, String shape, ApplicationCatalog catalog) {
        return create(name, nodes, shape, null, catalog);
    }

    /** @param meanGap mean inter-arrival (s) instead of the protocol's, to vary the load; null = the protocol's */
    public static Scenario create(
            String name, Integer nodes, String shape, Double meanGap, ApplicationCatalog catalog) {
        return create(name, nodes, shape, meanGap, null, catalog);
    }

    /** @param energy andreas/armida node power, measured (default) or datasheet ({@link AndreasScenario.Energy}) */
    public static Scenario create(
            String name, Integer nodes, String shape, Double meanGap, String energy, ApplicationCatalog catalog) {
        return create(name, nodes, shape, meanGap, energy, null, null, catalog);
    }

    /**
     * @param vmCatalog gpuscheduler only: table2 (default) or azure ({@link HierarchicalScenario.VmCatalog})
     * @param dueRule gpuscheduler only: hierarchical (default) or their ({@link GpuSchedulerScenario.DueRule})
     */
    public static Scenario create(
            String name,
            Integer nodes,
            String shape,
            Double meanGap,
            String energy,
            String vmCatalog,
            String dueRule,
            ApplicationCatalog catalog) {
        String n = name == null ? "" : name.toLowerCase(Locale.ROOT);
        if (vmCatalog != null && !n.equals("gpuscheduler"))
            throw new FormatException("--catalog applies to the gpuscheduler scenario only", "catalog");
        if (dueRule != null && !n.equals("gpuscheduler"))
            throw new FormatException("--due-rule applies to the gpuscheduler scenario only", "dueRule");
        if (shape != null && !n.equals("andreas"))
            throw new FormatException("--shape applies to the andreas scenario only", "shape");
        if (meanGap != null && !(meanGap > 0))
            throw new FormatException("--mean-gap must be > 0 seconds, got " + meanGap, "meanGap");
        if (meanGap != null && n.equals("armida"))
            throw new FormatException("--mean-gap does not apply to armida (Table V: one job every 1200 s)", "meanGap");
        if (energy != null && !n.equals("andreas") && !n.equals("armida"))
            throw new FormatException("--energy applies to the andreas and armida scenarios only", "energy");
        AndreasScenario.Energy power =
                energy == null ? AndreasScenario.Energy.MEASURED : AndreasScenario.Energy.parse(energy);
        switch (n) {
            case "hierarchical":
                return new HierarchicalScenario(requireNodes(n, nodes), meanGap, catalog);
            case "gpuscheduler":
                return new GpuSchedulerScenario(
                        requireNodes(n, nodes),
                        meanGap,
                        vmCatalog == null
                                ? HierarchicalScenario.VmCatalog.TABLE_II
                                : HierarchicalScenario.VmCatalog.parse(vmCatalog),
                        GpuSchedulerScenario.DueRule.parse(dueRule),
                        catalog);
            case "hierarchical-tight":
                return HierarchicalScenario.tight(requireNodes(n, nodes), meanGap, catalog);
            case "andreas":
                return new AndreasScenario(
                        requireNodes(n, nodes),
                        shape == null ? AndreasScenario.Shape.SMALL : AndreasScenario.Shape.parse(shape),
                        meanGap,
                        power,
                        catalog);
            case "armida":
                if (nodes != null && nodes != 3)
                    throw new FormatException(
                            "armida runs on its 3 nodes (armida-05/06/07); --nodes " + nodes + " is not possible",
                            "nodes");
                return new ArmidaScenario(power, catalog);
            default:
                throw new FormatException(
                        "unknown scenario '" + name + "' (known: " + String.join(", ", NAMES) + ")", "scenario");
        }
    }

    private static int requireNodes(String scenario, Integer nodes) {
        if (nodes == null)
            throw new FormatException("--nodes N is required for the " + scenario + " scenario", "nodes");
        if (nodes < 1) throw new FormatException("--nodes must be >= 1, got " + nodes, "nodes");
        return nodes;
    }
}
