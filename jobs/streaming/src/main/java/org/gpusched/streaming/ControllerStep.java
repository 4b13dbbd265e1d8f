package org.gpusched.streaming;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;
import org.gpusched.core.model.Cluster;
import org.gpusched.core.model.Placement;
import org.gpusched.core.model.Schedule;
import org.gpusched.core.model.SchedulingProblem;
import org.gpusched.core.objective.RealCost;
import org.gpusched.core.policy.FreeNodePolicy;
import org.gpusched.core.policy.PlanStabilizer;
import org.gpusched.core.policy.SchedulingPolicy;
import org.gpusched.core.random.RandomState;
import org.gpusched.streaming.avro.DecisionAction;
import org.gpusched.streaming.avro.PlacementDecision;
import org.gpusched.streaming.avro.SchedulingMetrics;
import org.gpusched.streaming.state.ControllerEvent;
import org.gpusched.streaming.state.JobRecord;

/**
 * One step of one controller key at one time, plain Java: advances the real costs to the step's time, completes the
 * jobs whose real end came (replay), applies the time's input events ({@link EventApplier}), reschedules when
 * something changed (the policy on the problem {@link ProblemBuilder} builds, the result turned into decisions by
 * {@link ScheduleDiff}), emits the scheduling metrics and sets the next periodic rescheduling.
 */
final class ControllerStep {
    /** Periodic ticks kept for a waiting job (with nothing running) after its due date; see {@link #waitingJobMayStart}. */
    static final long WAITING_TICKS_AFTER_DUE = 1000;
    /** Jobs of the queue handed to a queue baseline in its first slice at least; see {@link #startOnFreeNodes}. */
    static final int QUEUE_SLICE_FIRST = 4;

    private final ControllerFacts facts;
    private final ActiveJobs jobs;
    private final SchedulingPolicy scheduler;
    /** Carries out only the moves of running jobs that pay for themselves (null: plans as the policy gives them). */
    private final PlanStabilizer stabilizer;

    private final EventApplier events;
    private final ProblemBuilder problems;

    ControllerStep(ControllerFacts facts, SchedulingPolicy scheduler, PlanStabilizer stabilizer) {
        this.facts = facts;
        this.jobs = facts.jobs;
        this.scheduler = scheduler;
        this.stabilizer = stabilizer;
        this.events = new EventApplier(facts);
        this.problems = new ProblemBuilder(facts, scheduler.startsOnlyOnFreeNodes());
    }

    /** Runs the step on the input events of its time, in {@link EventOrder#ORDER}. */
    void run(List<ControllerEvent> inputs) throws Exception {
        advance();
        if (facts.config.mode() == SchedulerConfig.Mode.REPLAY) events.completeEnded();
        for (ControllerEvent e : inputs) events.apply(e);
        var s = facts.state;
        long now = facts.now;
        if (s.getNextPeriodMillis() >= 0 && now >= s.getNextPeriodMillis()) {
            if (!jobs.isEmpty()) events.triggers().add("PERIOD");
            s.setNextPeriodMillis(-1L);
        }
        if (!events.triggers().isEmpty()) reschedule();
        int running = jobs.runningCount();
        long nextEnd = jobs.nextEndMillis();
        // Periodic rescheduling while something runs, and while a job waits whose postponement penalty still grows: a
        // policy may postpone by choice (milp-relaxed) and only the passing of time makes it start the job. Otherwise a
        // tick would change nothing, and in replay it would keep the final watermark firing forever; nor for a policy
        // whose decisions a tick cannot change (the queue baselines).
        if (scheduler.decidesOnTicks()
                && !jobs.isEmpty()
                && (running > 0 || waitingJobMayStart())
                && s.getNextPeriodMillis() < 0) {
            long period = facts.config.periodMillis();
            long next = (now / period + 1) * period;
            s.setNextPeriodMillis(next);
            facts.timers.register(next);
        }
        if (jobs.isEmpty() && s.getNextPeriodMillis() >= 0) {
            // idle: no periodic rescheduling pending, so an idle key holds no timer. Timers are one per timestamp: keep
            // it when input events are buffered for that same time, or they would never be handled.
            if (!facts.timers.inputPendingAt(s.getNextPeriodMillis())) facts.timers.delete(s.getNextPeriodMillis());
            s.setNextPeriodMillis(-1L);
        }
        s.setNextEndMillis(facts.config.mode() == SchedulerConfig.Mode.REPLAY ? nextEnd : -1L);
    }

    /**
     * Real node cost from the controller's clock to now, at the rate of the placements that held meanwhile. Progress
     * needs no update: a running job's done fractions are linear in time from its progressMillis (see {@link
     * ControllerFacts#modelDone}), and are written down only when its placement changes.
     */
    private void advance() {
        var s = facts.state;
        long from = s.getNowMillis();
        long now = facts.now;
        s.setNowMillis(now);
        if (from == Long.MIN_VALUE || now <= from) return;
        Topology topology = jobs.isEmpty() ? null : facts.topology();
        double rate = topology == null ? 0 : topology.load.costPerSecond();
        s.setAccruedExecutionCost(s.getAccruedExecutionCost() + rate * ((now - from) / 1000.0));
    }

    /**
     * Whether a waiting job's postponement penalty (rho x weight x worst-case tardiness) can still grow enough to make
     * the policy start it: weight > 0, and not more than {@value #WAITING_TICKS_AFTER_DUE} periods past its due date (a
     * safety stop, so a policy that never starts a job cannot keep a replay's final watermark firing).
     */
    private boolean waitingJobMayStart() {
        long horizon = WAITING_TICKS_AFTER_DUE * facts.config.periodMillis();
        for (ActiveJobs.Entry e : jobs.inOrder()) {
            JobRecord j = e.record;
            if (j.getNode() == null
                    && j.getSpec().getWeight() > 0
                    && facts.now < (long) (j.getSpec().getDue() * 1000) + horizon) return true;
        }
        return false;
    }

    /** Calls the policy (unless its schedule would be the current one), applies it and emits the scheduling metrics. */
    private void reschedule() {
        long nanos = 0;
        double objective = 0;
        boolean pressed = false;
        List<PlacementDecision> changes = new ArrayList<>();
        Topology topology = jobs.isEmpty() ? null : facts.topology();
        if (topology != null) problems.rankWaiting(topology, scheduler);
        if (topology != null
                && (scheduler.startsOnlyOnFreeNodes() && problems.nothingToStart(topology)
                        || stabilizer != null && quietPeriod(topology))) {
            // the placements are kept without a call: a queue baseline's schedule would be them, or the period is quiet
            objective = problems.keptObjective(topology);
            facts.updateNodeTypes(topology, n -> topology.currentType[n]);
        } else if (topology != null && scheduler instanceof FreeNodePolicy free) {
            Call call = startOnFreeNodes(topology, free, changes);
            objective = call.objective;
            nanos = call.nanos;
        } else if (topology != null) {
            boolean scoped = RoomScope.scoped(facts.config.optimizerScope(), topology);
            ProblemBuilder.Asked asked = problems.ask(topology, scoped);
            List<ActiveJobs.Entry> candidates = asked.candidates();
            RoomScope scope = scoped
                    ? RoomScope.of(
                            topology,
                            asked.byNode().fewest(),
                            asked.waiting(),
                            facts.nowSeconds(),
                            facts.nowSeconds() + facts.config.objective().horizonSeconds(),
                            asked.byNode().rescue(),
                            asked.byNode().slack(),
                            asked.byNode().demand())
                    : null;
            Cluster cluster = scope == null ? topology.cluster : scope.cluster;
            double keptRunning = 0;
            if (scope != null) {
                ProblemBuilder.InScope inScope = problems.within(topology, scope, asked);
                candidates = inScope.candidates();
                keptRunning = inScope.keptRunning();
            } else if (scoped) {
                candidates = List.of();
            }
            if (scoped && candidates.isEmpty()) {
                objective = problems.keptObjective(topology);
            } else if (!candidates.isEmpty()) {
                SchedulingProblem problem = scope == null
                        ? problems.problem(topology, candidates)
                        : problems.problem(topology, scope, candidates);
                pressed = problem.deadlinePressure();
                double beyondWindow = problems.postponedBeyond(topology, candidates) + keptRunning;
                RandomState random = new RandomState(facts.state.getRandomState());
                long start = System.nanoTime();
                Schedule schedule = scheduler.schedule(problem, random);
                if (stabilizer != null)
                    schedule = stabilizer.stabilize(problem, schedule, ProblemBuilder.movesSoFar(candidates));
                nanos = System.nanoTime() - start;
                facts.state.setRandomState(random.state());
                objective = schedule.objective() + beyondWindow;
                changes.addAll(carryOut(cluster, candidates, schedule::placement));
                if (scope == null || scope.whole()) {
                    facts.updateNodeTypes(topology, schedule::nodeType);
                } else {
                    Schedule carried = schedule;
                    facts.updateNodeTypes(
                            topology,
                            n -> scope.scopeNode[n] < 0 ? topology.load.type(n) : carried.nodeType(scope.scopeNode[n]));
                }
            }
        }
        changes.forEach(facts::emit);
        int running = jobs.runningCount();
        Topology placed = running == 0 ? null : facts.topology();
        var s = facts.state;
        facts.output.schedulingMetrics(SchedulingMetrics.newBuilder()
                .setTime(facts.nowSeconds())
                .setPolicy(facts.policy)
                .setController(facts.controller)
                .setTrigger(String.join("+", events.triggers()))
                .setFObj(objective)
                .setOptimizerNanos(nanos)
                .setQueueLength(jobs.size() - running)
                .setRunning(running)
                .setDecisions(changes.size())
                .setAccruedExecutionCost(s.getAccruedExecutionCost())
                .setAccruedTardinessCost(s.getAccruedTardinessCost())
                .setCompletedJobs(s.getCompletedJobs())
                .setBusyGpus(placed == null ? 0 : placed.load.busyGpus())
                .setCostRatePerHour(placed == null ? 0 : placed.load.costPerSecond() * 3600.0)
                .setDeadlinePressure(pressed)
                .build());
    }

    /**
     * Whether this step is a periodic rescheduling with no event since the last call, no job waiting and no running
     * job on course to end past its due date. The period exists for the waiting jobs, whose pressure grows with time;
     * with none, a call could only re-decide jobs that the last call, on the same jobs, chose to leave where they run,
     * and under {@link SchedulerConfig.Stability#STABLE} a move must also pay for its overhead. That is no proof that
     * such a call changes nothing (another random draw may find a consolidation), so it is measured: with 200
     * controllers of 5 nodes these periods were 63 % of the calls, and not making them halved the 100,000-job replay
     * for -0.05 % of its cost (docs/benchmarks-scale.md). The random state then advances by one draw fewer; the
     * decisions stay deterministic and the same after a restore.
     */
    private boolean quietPeriod(Topology topology) {
        return events.triggers().size() == 1
                && events.triggers().contains("PERIOD")
                && jobs.size() == jobs.runningCount()
                && !problems.someRunningJobLate(topology);
    }

    /** A policy call's f_OBJ and wall time. */
    private record Call(double objective, long nanos) {}

    /**
     * For a {@link FreeNodePolicy}: the policy is given waiting jobs alone, with the nodes the running jobs hold, and
     * the running jobs keep their placements. The queue is handed over from its head in slices, each with the nodes
     * the slices before it took, until no node is free or the queue ends: the policy serves jobs in queue order one
     * whole free node each, so this starts exactly the jobs one call over the whole queue starts, and an event costs
     * the head it reads rather than the backlog. A slice is twice the free nodes, and at least twice the slice before
     * it: mostly the head job takes the node a completion frees, and a head that cannot run there is passed over in
     * a few slices. f_OBJ is summed over every job as {@link
     * ProblemBuilder#keptObjective} sums it, so it is the value the call over the whole problem returns.
     */
    private Call startOnFreeNodes(Topology topology, FreeNodePolicy policy, List<PlacementDecision> changes) {
        Cluster cluster = topology.cluster;
        ProblemBuilder.HeldNodes heldNodes = problems.heldNodes(topology);
        int[] held = heldNodes.types();
        int free = heldNodes.empty().length;
        Map<ActiveJobs.Entry, Placement> started = new IdentityHashMap<>();
        long nanos = 0;
        Iterator<ActiveJobs.Entry> queue = jobs.waitingInRankOrder().iterator();
        int lastSize = QUEUE_SLICE_FIRST / 2;
        while (free > 0 && queue.hasNext()) {
            List<ActiveJobs.Entry> slice = new ArrayList<>();
            int size = Math.max(2 * lastSize, 2 * free);
            lastSize = size;
            while (slice.size() < size && queue.hasNext()) slice.add(queue.next());
            SchedulingProblem problem = problems.problem(topology, slice);
            long start = System.nanoTime();
            // marks the nodes it takes in held
            Placement[] placed = policy.startOnFreeNodes(problem, held, heldNodes.empty());
            nanos += System.nanoTime() - start;
            for (int i = 0; i < placed.length; i++) {
                if (placed[i] == null) continue;
                started.put(slice.get(i), placed[i]);
                free--;
            }
        }
        if (jobs.runningCount() == 0 && jobs.queuedCount() == 0) return new Call(0, nanos);
        double objective = problems.objectiveWithStarted(cluster, started, held);
        List<ActiveJobs.Entry> startedInOrder = new ArrayList<>(started.keySet());
        startedInOrder.sort(ActiveJobs.ORDER);
        changes.addAll(carryOut(cluster, startedInOrder, i -> started.get(startedInOrder.get(i))));
        facts.updateNodeTypes(topology, n -> held[n]);
        return new Call(Double.isNaN(objective) ? problems.keptObjective(topology) : objective, nanos);
    }

    /**
     * Makes the changes of a schedule ({@code placements}: candidate i's placement in it, null when it waits) to the
     * candidates ({@link ScheduleDiff}) in candidate order and returns their decisions, with the expected completion
     * and cost of each placement, in the order they go out.
     */
    private List<PlacementDecision> carryOut(
            Cluster cluster, List<ActiveJobs.Entry> candidates, IntFunction<Placement> placements) {
        List<PlacementDecision> decisions = new ArrayList<>();
        for (ScheduleDiff.Change c : ScheduleDiff.of(cluster, candidates, placements)) {
            ActiveJobs.Entry e = candidates.get(c.candidate());
            JobRecord j = facts.writable(e);
            if (c.action() == DecisionAction.PREEMPT) {
                decisions.add(facts.decision(j, DecisionAction.PREEMPT, c.node(), c.type(), c.gpus(), null, null, null)
                        .build());
                facts.stop(e);
                continue;
            }
            long progressFrom = facts.place(e, c.action(), c.node(), c.type(), c.gpus());
            double remaining = e.model().timeOn(c.type(), c.gpus()) * (1 - facts.optimizerDone(e));
            double expectedEnd = progressFrom / 1000.0 + remaining;
            double expectedCost = remaining
                            / 3600.0
                            * facts.catalog.byName().get(c.type()).costPerHour(c.gpus())
                    + RealCost.tardinessCost(
                            j.getSpec().getWeight(), expectedEnd, j.getSpec().getDue());
            decisions.add(facts.decision(
                            j, c.action(), c.node(), c.type(), c.gpus(), c.previousNode(), expectedEnd, expectedCost)
                    .build());
        }
        return ScheduleDiff.inEmissionOrder(decisions);
    }
}
