package org.gpusched.core.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.gpusched.core.model.JobState;
import org.gpusched.core.model.SchedulingProblem;
import org.gpusched.core.random.RandomState;

/**
 * The ranking value a construction returns is kept as it goes (each placement's terms added when the job is placed,
 * updated when the post-processing resizes it, node terms read off a per-call table); it must equal the same
 * fixed-point sum taken from scratch over the schedule the construction ends with, for either ranking, with moves
 * charged or free, after random swaps, draws and post-processing.
 */
class ConstructionRankingTest {

    @Property(tries = 300)
    void theKeptRankingEqualsTheSumOverTheFinishedSchedule(
            @ForAll long instanceSeed,
            @ForAll long seed,
            @ForAll boolean chargeMoves,
            @ForAll @IntRange(min = 0, max = 2) int rule,
            @ForAll boolean bestFit) {
        SchedulingProblem drawn = Instances.random(instanceSeed, 8, 24);
        // a move costs a running job a restore and its progress since a snapshot, so a migration's time differs
        List<JobState> jobs = new ArrayList<>();
        for (JobState s : drawn.jobs()) {
            jobs.add(
                    s.isRunning()
                            ? new JobState(s.job(), s.doneFraction(), s.current(), s.doneFraction() * 0.8, 120)
                            : s);
        }
        SchedulingProblem problem = new SchedulingProblem(
                drawn.now(),
                drawn.cluster(),
                jobs,
                currentNodeTypes(drawn),
                drawn.parameters().withChargedMoves(chargeMoves));
        NodeOpening opening = new NodeOpening(NodeOpeningRule.values()[rule]);
        for (Ranking ranking : Ranking.values()) {
            ProblemTables tables = new ProblemTables();
            tables.prepare(problem);
            opening.prepareCatalog(problem.cluster());
            JobConfigurations configs = new JobConfigurations();
            configs.prepare(problem, tables, opening, ranking, null, 1);
            GreedyConstruction construction = new GreedyConstruction(opening);
            construction.prepare(tables, configs, ranking == Ranking.WASTE);
            for (int it = 0; it < 20; it++) {
                RandomState random = it == 0 ? null : RandomState.derive(seed, it);
                long kept = construction.construct(random, bestFit);
                assertEquals(fromScratch(construction, ranking), kept, ranking + ", iteration " + it);
                construction.reset();
            }
        }
    }

    /** The construction's ranking value summed anew: every term rounded on its own, as the engine ranks. */
    private static long fromScratch(GreedyConstruction c, Ranking ranking) {
        ProblemTables p = c.tables;
        JobConfigurations cf = c.configs;
        SchedulingProblem problem = p.problem;
        double horizon = problem.parameters().horizonSeconds();
        long f = cf.postponedTotal;
        for (int j = 0; j < p.jobs; j++) {
            int n = c.jobNode[j];
            if (n < 0) continue;
            double r = c.remainingOn(j, n, c.jobType[j], c.jobGpus[j]);
            f += cf.deltaUnits(j, n, c.jobType[j], c.jobGpus[j], r);
            if (ranking == Ranking.WASTE) f -= cf.units(horizon * problem.cheapestShare(j) / r);
        }
        NodePool np = c.pool;
        for (int n = 0; n < p.nodes; n++) {
            int t = np.nodeType[n];
            if (t < 0) continue;
            f += ranking == Ranking.WASTE
                    ? cf.units(horizon / 3600.0 * p.rate[t * p.stride + p.typeGpus[t] - np.nodeFree[n]])
                    : cf.units(np.nodeFirstCost[n] + p.mu * np.nodeFree[n]);
        }
        return f;
    }

    private static int[] currentNodeTypes(SchedulingProblem p) {
        int[] types = new int[p.cluster().nodeCount()];
        for (int n = 0; n < types.length; n++) types[n] = p.currentNodeType(n);
        return types;
    }
}
