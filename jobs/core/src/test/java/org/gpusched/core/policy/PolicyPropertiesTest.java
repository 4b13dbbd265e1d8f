package org.gpusched.core.policy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.gpusched.core.model.JobState;
import org.gpusched.core.model.Placement;
import org.gpusched.core.model.Schedule;
import org.gpusched.core.model.SchedulingProblem;
import org.gpusched.core.objective.ObjectiveFunction;
import org.gpusched.core.objective.WasteObjective;
import org.gpusched.core.random.RandomState;
import org.junit.jupiter.api.Test;

/** Invariants of every policy on random small instances (Instances.random: mixed fixed/rightsizable, running jobs). */
class PolicyPropertiesTest {
    private static final PolicyConfig SMALL = new PolicyConfig(200, true, 10, 5, 30);
    private static final List<String> POLICIES = List.of("greedy", "andreas-rg", "fifo", "edf", "priority");

    @Property(tries = 300)
    void everyPolicyProducesAValidSchedule(@ForAll long instanceSeed) {
        SchedulingProblem problem = Instances.random(instanceSeed);
        for (String name : POLICIES) {
            Schedule s = Policies.create(name, SMALL).schedule(problem, new RandomState(instanceSeed));
            ScheduleChecks.verify(problem, s);
        }
        Schedule firstFit = new AndreasRandomizedGreedyPolicy(new PolicyConfig(50, false, 10, 5, 30))
                .schedule(problem, new RandomState(3));
        ScheduleChecks.verify(problem, firstFit);
    }

    /** Each randomized greedy is never worse than the greedy by what it ranks by: f_OBJ, or f_W. */
    @Property(tries = 300)
    void randomizedGreedyIsNeverWorseThanGreedy(@ForAll long instanceSeed, @ForAll long seed) {
        SchedulingProblem problem = Instances.random(instanceSeed);
        for (boolean bestFit : new boolean[] {true, false}) {
            PolicyConfig config = new PolicyConfig(100, bestFit, 10, 5, 30);
            Schedule greedy = new GreedyPolicy(config).schedule(problem, new RandomState(seed));
            Schedule byFObj = AndreasRandomizedGreedyPolicy.byFObj(config).schedule(problem, new RandomState(seed));
            assertTrue(
                    byFObj.objective() <= greedy.objective(),
                    "andreas-rg-fobj " + byFObj.objective() + " > greedy " + greedy.objective());
            Schedule rg = new AndreasRandomizedGreedyPolicy(config).schedule(problem, new RandomState(seed));
            assertTrue(waste(problem, rg) <= waste(problem, greedy), "andreas-rg wastes more than greedy");
        }
    }

    static double waste(SchedulingProblem problem, Schedule s) {
        return WasteObjective.evaluate(problem, s.placements(), s.nodeTypes());
    }

    @Property(tries = 200)
    void sameSeedSameScheduleEvenWhenTheInstanceIsReused(
            @ForAll long instanceSeed, @ForAll long otherSeed, @ForAll long seed) {
        SchedulingProblem problem = Instances.random(instanceSeed);
        SchedulingProblem other = Instances.random(otherSeed);
        for (String name : POLICIES) {
            RandomState r1 = new RandomState(seed);
            Schedule fresh = Policies.create(name, SMALL).schedule(problem, r1);
            // a policy instance that served another problem first (scratch memory reused) decides the same
            SchedulingPolicy reused = Policies.create(name, SMALL);
            reused.schedule(other, new RandomState(seed + 1));
            RandomState r2 = new RandomState(seed);
            Schedule again = reused.schedule(problem, r2);
            assertEquals(fresh, again, name);
            assertEquals(fresh.objective(), again.objective(), name);
            assertEquals(r1.state(), r2.state(), name + ": random state advanced differently");
        }
    }

    @Property(tries = 200)
    void baselinesNeverTouchRunningJobsAndUseOneJobPerFreeNode(@ForAll long instanceSeed) {
        SchedulingProblem problem = Instances.random(instanceSeed);
        for (String name : List.of("fifo", "edf", "priority")) {
            Schedule s = Policies.create(name, SMALL).schedule(problem, new RandomState(1));
            int[] newJobsOn = new int[problem.cluster().nodeCount()];
            boolean[] hostsRunning = new boolean[problem.cluster().nodeCount()];
            for (int j = 0; j < problem.jobCount(); j++) {
                Placement current = problem.job(j).current();
                if (current != null) {
                    assertEquals(current, s.placement(j), name + ": running job moved");
                    hostsRunning[current.node()] = true;
                } else if (s.placement(j) != null) {
                    newJobsOn[s.placement(j).node()]++;
                }
            }
            for (int n = 0; n < newJobsOn.length; n++) {
                assertTrue(
                        newJobsOn[n] <= 1 && !(hostsRunning[n] && newJobsOn[n] > 0), name + ": node " + n + " shared");
            }
        }
    }

    /** The contract controllers rely on to skip the call ({@link SchedulingPolicy#startsOnlyOnFreeNodes}). */
    @Property(tries = 300)
    void baselinesKeepThePlacementsWhenNoJobWaitsOrNoNodeIsFree(@ForAll long instanceSeed) {
        SchedulingProblem instance = Instances.random(instanceSeed);
        boolean[] used = new boolean[instance.cluster().nodeCount()];
        List<JobState> running = new ArrayList<>();
        for (JobState j : instance.jobs()) {
            if (j.current() == null) continue;
            running.add(j);
            used[j.current().node()] = true;
        }
        boolean noneFree = true;
        for (boolean u : used) noneFree &= u;
        int[] currentTypes = new int[used.length];
        for (int n = 0; n < used.length; n++) currentTypes[n] = instance.currentNodeType(n);
        List<SchedulingProblem> kept = new ArrayList<>();
        kept.add(new SchedulingProblem(
                instance.now(), instance.cluster(), running, currentTypes, instance.parameters()));
        if (noneFree) kept.add(instance);
        for (SchedulingProblem problem : kept) {
            Placement[] current = new Placement[problem.jobCount()];
            for (int j = 0; j < current.length; j++) current[j] = problem.job(j).current();
            for (String name : List.of("fifo", "edf", "priority")) {
                SchedulingPolicy policy = Policies.create(name, SMALL);
                assertTrue(policy.startsOnlyOnFreeNodes(), name);
                Schedule s = policy.schedule(problem, new RandomState(1));
                for (int j = 0; j < current.length; j++) assertEquals(current[j], s.placement(j), name + ": job " + j);
                assertEquals(
                        ObjectiveFunction.evaluate(problem, current, currentTypes),
                        s.objective(),
                        name + ": objective of the kept placements");
            }
        }
    }

    /** The queue alone, with the running jobs' nodes held ({@link FreeNodePolicy}), starts what the whole problem starts. */
    @Property(tries = 300)
    void baselinesStartTheSameJobsFromTheQueueAloneAsFromTheWholeProblem(@ForAll long instanceSeed) {
        SchedulingProblem instance = Instances.random(instanceSeed);
        int[] held = new int[instance.cluster().nodeCount()];
        java.util.Arrays.fill(held, -1);
        List<JobState> waiting = new ArrayList<>();
        List<Integer> waitingIndex = new ArrayList<>();
        for (int j = 0; j < instance.jobCount(); j++) {
            Placement p = instance.job(j).current();
            if (p != null) {
                held[p.node()] = p.type();
            } else {
                waiting.add(instance.job(j));
                waitingIndex.add(j);
            }
        }
        int[] currentTypes = new int[held.length];
        for (int n = 0; n < held.length; n++) currentTypes[n] = instance.currentNodeType(n);
        SchedulingProblem queue =
                new SchedulingProblem(instance.now(), instance.cluster(), waiting, currentTypes, instance.parameters());
        for (String name : List.of("fifo", "edf", "priority")) {
            FreeNodePolicy policy = (FreeNodePolicy) Policies.create(name, SMALL);
            Schedule whole = policy.schedule(instance, new RandomState(1));
            int[] taken = held.clone();
            Placement[] started = policy.startOnFreeNodes(queue, taken);
            assertEquals(waiting.size(), started.length, name);
            int[] expectedTaken = held.clone();
            for (int w = 0; w < started.length; w++) {
                assertEquals(whole.placement(waitingIndex.get(w)), started[w], name + ": waiting job " + w);
                if (started[w] != null) expectedTaken[started[w].node()] = started[w].type();
            }
            assertArrayEquals(expectedTaken, taken, name + ": the nodes it started jobs on are marked taken");
            assertThrows(
                    IllegalArgumentException.class,
                    () -> policy.startOnFreeNodes(queue, held.clone(), new int[] {held.length}),
                    name + ": an empty node that is not a node is refused");
            if (waiting.size() < instance.jobCount()) {
                assertThrows(
                        IllegalArgumentException.class,
                        () -> policy.startOnFreeNodes(instance, held),
                        name + ": a running job is refused");
            }
        }
    }

    @Property(tries = 100)
    void bestSolutionsAreDistinctSortedAndStartWithTheScheduleResult(@ForAll long instanceSeed, @ForAll long seed) {
        SchedulingProblem problem = Instances.random(instanceSeed);
        for (AndreasRandomizedGreedyPolicy policy :
                List.of(new AndreasRandomizedGreedyPolicy(SMALL), AndreasRandomizedGreedyPolicy.byFObj(SMALL))) {
            boolean byFObj = policy.name().equals(AndreasRandomizedGreedyPolicy.FOBJ_NAME);
            List<Schedule> best = policy.bestSolutions(problem, new RandomState(seed), 4);
            Schedule single = policy.schedule(problem, new RandomState(seed));
            assertTrue(!best.isEmpty() && best.size() <= 4);
            assertEquals(single, best.get(0));
            for (int i = 0; i < best.size(); i++) {
                ScheduleChecks.verify(problem, best.get(i));
                for (int k = 0; k < i; k++) assertTrue(!best.get(k).equals(best.get(i)), "duplicate solution " + i);
                // ranked in fixed point (1e-6 per term): exact values may invert by at most that rounding
                double rounding =
                        1e-6 * (2 * problem.jobCount() + problem.cluster().nodeCount());
                if (i == 0) continue;
                double previous = byFObj ? best.get(i - 1).objective() : waste(problem, best.get(i - 1));
                double value = byFObj ? best.get(i).objective() : waste(problem, best.get(i));
                assertTrue(previous <= value + rounding, policy.name() + ": not sorted at " + i);
            }
        }
    }

    /** Clusters above 64 nodes use several bitset words; queues longer than the cluster exercise the early exit. */
    @Property(tries = 25)
    void largerInstancesStayValidDeterministicAndNeverWorseThanGreedy(@ForAll long instanceSeed, @ForAll long seed) {
        SchedulingProblem problem = Instances.random(instanceSeed, 150, 400);
        PolicyConfig config = new PolicyConfig(30, true, 10, 5, 30);
        Schedule greedy = new GreedyPolicy(config).schedule(problem, new RandomState(seed));
        Schedule rg = new AndreasRandomizedGreedyPolicy(config).schedule(problem, new RandomState(seed));
        Schedule again = new AndreasRandomizedGreedyPolicy(config).schedule(problem, new RandomState(seed));
        Schedule byFObj = AndreasRandomizedGreedyPolicy.byFObj(config).schedule(problem, new RandomState(seed));
        ScheduleChecks.verify(problem, greedy);
        ScheduleChecks.verify(problem, rg);
        ScheduleChecks.verify(problem, byFObj);
        assertEquals(rg, again);
        assertTrue(waste(problem, rg) <= waste(problem, greedy), "andreas-rg wastes more than greedy");
        assertTrue(
                byFObj.objective() <= greedy.objective(),
                "andreas-rg-fobj " + byFObj.objective() + " > greedy " + greedy.objective());
        for (String name : List.of("fifo", "edf", "priority"))
            ScheduleChecks.verify(problem, Policies.create(name, config).schedule(problem, new RandomState(seed)));
    }

    @Test
    void randomizationFindsStrictlyBetterSchedulesThanGreedyOnSomeInstances() {
        int better = 0;
        for (long seed = 0; seed < 300; seed++) {
            SchedulingProblem problem = Instances.random(seed);
            double greedy = new GreedyPolicy(SMALL)
                    .schedule(problem, new RandomState(seed))
                    .objective();
            double rg = AndreasRandomizedGreedyPolicy.byFObj(SMALL)
                    .schedule(problem, new RandomState(seed))
                    .objective();
            if (rg < greedy - 1e-9) better++;
        }
        assertTrue(better > 0, "the randomized iterations never improved on the greedy in 300 instances");
    }
}
