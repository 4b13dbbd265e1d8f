package org.gpusched.core.policy;

import org.gpusched.core.model.NodeType;

/**
 * How the greedy family prices a job's configurations and which VM it leases when it switches a node on. The rules
 * differ only where a GPU model comes in several node types (rightsizable nodes) or a VM is leased whole (one price
 * at every busy-GPU count): on a catalog of one type per GPU model with no such VM all three make the same
 * decisions, and {@link #PACKED} decides as {@link #VM_PER_JOB} on every catalog without a VM leased whole (the
 * ANDREAS and ARMIDA energy-priced catalogs).
 *
 * <ul>
 *   <li>{@link #VM_PER_JOB}: a configuration costs the whole VM's price for the job's time, and a node is switched
 *       on as the configuration's own type; open nodes are matched by exact type.</li>
 *   <li>{@link #LARGEST_VM}: the GPUScheduler Greedy's rule: priced as {@link #VM_PER_JOB}, but a node is switched
 *       on as the largest type of the configuration's GPU model on which the job has a time with the same GPU
 *       count, and open nodes of any type of that model take the job.</li>
 *   <li>{@link #PACKED}: on a VM leased whole a configuration costs the job's share of the VM (its price x g / the
 *       type's GPUs), so a job leaves the rest of the node to the queue; open nodes of any type of the configuration's GPU model take the
 *       job; a node is switched on as the type of that model that minimizes the price per GPU the queue can fill
 *       (price / min(its GPUs, the GPUs still wanted on that model by this job and the jobs after it)).</li>
 * </ul>
 */
public enum NodeOpeningRule {
    VM_PER_JOB,
    LARGEST_VM,
    PACKED;

    /** The rule of {@code greedy}, {@code andreas-rg} and {@code rg-ls}: measured cheapest (docs/gpuscheduler-comparison.md). */
    public static final NodeOpeningRule DEFAULT = PACKED;

    /**
     * The hourly price that ranks configuration (type, g) against the job's others. {@link #PACKED} charges a job on
     * a VM leased whole (one price at every busy-GPU count) its GPUs' share of that price; any other pricing (per
     * GPU, or an energy price with an idle part) ranks by the type's own price, as under {@link #VM_PER_JOB}.
     */
    double preferenceRate(NodeType type, int g) {
        double own = type.costPerHour(g);
        return this == PACKED && leasedWhole(type) ? own * g / type.gpus() : own;
    }

    static boolean leasedWhole(NodeType type) {
        double full = type.costPerHour(type.gpus());
        for (int g = 1; g < type.gpus(); g++) if (type.costPerHour(g) != full) return false;
        return type.gpus() > 1;
    }
}
