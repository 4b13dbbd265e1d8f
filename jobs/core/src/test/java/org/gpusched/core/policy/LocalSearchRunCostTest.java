package org.gpusched.core.policy;

import static org.gpusched.core.policy.Instances.PAPER;
import static org.gpusched.core.policy.Instances.job;
import static org.gpusched.core.policy.Instances.times;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.gpusched.core.model.Cluster;
import org.gpusched.core.model.JobState;
import org.gpusched.core.model.Node;
import org.gpusched.core.model.NodeType;
import org.gpusched.core.model.Placement;
import org.gpusched.core.model.Schedule;
import org.gpusched.core.model.SchedulingProblem;
import org.gpusched.core.objective.ObjectiveFunction;
import org.gpusched.core.random.RandomState;
import org.junit.jupiter.api.Test;

/**
 * The run-cost guard of rg-ls-guarded: a move that lowers f_OBJ but makes the schedule dearer to run to its end is
 * refused; rg-ls (the papers' reading, by f_OBJ alone) takes it. The run cost is recomputed here from the schedule.
 */
class LocalSearchRunCostTest {
    private static final double EPS = 1e-9;
    private static final PolicyConfig CONFIG = PolicyConfig.DEFAULTS.withMaxIterations(200);

    /**
     * One rightsizable node that can run as X (2 GPUs leased whole at 1 $/h) or Y (2 GPUs at 1.5 $/h, faster). Job a
     * (due 900 s, 1 $/h late): X 1800 s, Y 1000 s; job b (due far): X 7200 s, Y 7000 s; 1 GPU each.
     */
    private static SchedulingProblem retypeTrap() {
        List<NodeType> catalog = List.of(NodeType.priced("X", "V100", 2, 1.0), NodeType.priced("Y", "V100", 2, 1.5));
        Cluster cluster = new Cluster(catalog, List.of(Node.rightsizable("vm0")));
        var a = job("a", 0, 900, 1, times("X", 1, 1800, "Y", 1, 1000));
        var b = job("b", 0, 1e6, 1, times("X", 1, 7200, "Y", 1, 7000));
        return new SchedulingProblem(0, cluster, List.of(JobState.waiting(a), JobState.waiting(b)), null, PAPER);
    }

    @Test
    void aRetypeThatOnlySpeedsUpTheFirstEndingJobIsRefused() {
        SchedulingProblem problem = retypeTrap();
        Placement[] onX = {new Placement(0, 0, 1), new Placement(0, 0, 1)};
        Schedule start = new Schedule(onX, new int[] {0}, ObjectiveFunction.evaluate(problem, onX, new int[] {0}));
        // f_OBJ on X: a 900 s late x 1 $/h = 0.25, the node until a ends 0.5 h x 1 = 0.5 -> 0.75.
        // Run cost on X: 2 h x 1 $/h (the node until b ends) + 0.25 = 2.25
        assertEquals(0.75, start.objective(), EPS);
        assertEquals(2.25, runCost(problem, start), EPS);
        // f_OBJ alone retypes to Y: a 100 s late = 0.0278, the node until a ends 1000 s x 1.5 = 0.4167 -> 0.4444,
        // but the node runs until b ends: 7000 s x 1.5 = 2.9167 + 0.0278 = 2.9444, dearer than staying on X
        Schedule fObj = LocalSearchPolicy.improve(problem, start, 10, false, false, false);
        ScheduleChecks.verify(problem, fObj);
        assertEquals(1, fObj.nodeType(0));
        assertEquals(100 / 3600.0 + 1000 / 3600.0 * 1.5, fObj.objective(), EPS);
        assertEquals(7000 / 3600.0 * 1.5 + 100 / 3600.0, runCost(problem, fObj), EPS);
        // guarded: no move lowers f_OBJ without raising the run cost, so the start comes back
        assertSame(start, LocalSearchPolicy.improve(problem, start, 10, false, false, true));
    }

    /** Per call, rg-ls-guarded is no worse than andreas-rg's schedule under f_OBJ and under the run cost. */
    @Property(tries = 40)
    void rgLsGuardedIsNeverDearerToRunThanAndreasRg(
            @ForAll @LongRange(min = 0, max = 1_000_000) long seed, @ForAll @IntRange(min = 0, max = 2) int kind) {
        SchedulingProblem problem = switch (kind) {
            case 0 -> Instances.random(seed, 6, 14);
            case 1 -> MilpPolicyInstances.andreasLike(seed, 2 + (int) Math.floorMod(seed, 4L), 12, 2, seed % 2);
            default -> MilpPolicyInstances.rightsizable(seed, 2 + (int) Math.floorMod(seed, 3L), 10, seed % 2);
        };
        Schedule rg = WorkConservation.fill(
                problem, AndreasRandomizedGreedyPolicy.byFObj(CONFIG).schedule(problem, RandomState.derive(seed, 7)));
        for (String name : List.of(LocalSearchPolicy.GUARDED_NAME)) {
            Schedule ls = Policies.create(name, CONFIG).schedule(problem, RandomState.derive(seed, 7));
            ScheduleChecks.verify(problem, ls);
            assertTrue(ls.objective() <= rg.objective(), name + " f_OBJ " + ls.objective() + " > " + rg.objective());
            double lsRun = runCost(problem, ls), rgRun = runCost(problem, rg);
            assertTrue(lsRun <= rgRun + 1e-7 * Math.max(1, rgRun), name + " run cost " + lsRun + " > " + rgRun);
        }
    }

    /**
     * What the schedule costs if it runs to its end unchanged: each used node at its type's price for its busy GPUs
     * while its jobs end one after the other, the scheduled jobs' tardiness, and for a waiting job its f_OBJ
     * penalty plus its cheapest execution (priced as the greedy ranks configurations).
     */
    static double runCost(SchedulingProblem problem, Schedule s) {
        Cluster cluster = problem.cluster();
        double total = 0;
        for (int n = 0; n < cluster.nodeCount(); n++) {
            List<double[]> onNode = new ArrayList<>(); // {remaining, gpus}
            for (int j = 0; j < problem.jobCount(); j++) {
                Placement p = s.placement(j);
                if (p != null && p.node() == n)
                    onNode.add(new double[] {problem.remaining(j, p.type(), p.gpus()), p.gpus()});
            }
            if (onNode.isEmpty()) continue;
            onNode.sort((x, y) -> Double.compare(x[0], y[0]));
            NodeType type = cluster.type(s.nodeType(n));
            int busy = 0;
            for (double[] e : onNode) busy += (int) e[1];
            double previous = 0;
            for (double[] e : onNode) {
                total += (e[0] - previous) / 3600.0 * type.costPerHour(busy);
                previous = e[0];
                busy -= (int) e[1];
            }
        }
        var params = problem.parameters();
        for (int j = 0; j < problem.jobCount(); j++) {
            var job = problem.job(j).job();
            Placement p = s.placement(j);
            if (p != null) {
                double late = problem.now() + problem.remaining(j, p.type(), p.gpus()) - job.dueSeconds();
                total += Math.max(0, late) * job.weightPerHour() / 3600.0;
                continue;
            }
            double worst = problem.now() + params.horizonSeconds() + problem.slowestRemaining(j) - job.dueSeconds();
            total += Math.max(0, worst) * params.rho() * job.weightPerHour() / 3600.0;
            double cheapest = Double.POSITIVE_INFINITY;
            for (int t = 0; t < cluster.typeCount(); t++) {
                if (!problem.typeAvailable(t)) continue;
                for (int g = 1; g <= cluster.type(t).gpus(); g++) {
                    double r = problem.remaining(j, t, g);
                    if (!Double.isNaN(r))
                        cheapest = Math.min(
                                cheapest, r / 3600.0 * NodeOpeningRule.DEFAULT.preferenceRate(cluster.type(t), g));
                }
            }
            if (cheapest < Double.POSITIVE_INFINITY) total += cheapest;
        }
        return total;
    }
}
