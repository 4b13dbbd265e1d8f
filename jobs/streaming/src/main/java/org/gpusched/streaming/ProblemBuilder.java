package org.gpusched.streaming;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.gpusched.core.model.Cluster;
import org.gpusched.core.model.JobState;
import org.gpusched.core.model.JobTimes;
import org.gpusched.core.model.Placement;
import org.gpusched.core.model.SchedulingProblem;
import org.gpusched.core.objective.ObjectiveFunction;
import org.gpusched.core.policy.FreeNodePolicy;
import org.gpusched.core.policy.SchedulingPolicy;
import org.gpusched.streaming.state.JobRecord;

/**
 * Builds what a policy is asked, plain Java: the key's waiting jobs ranked for the policy, the jobs an optimizer sees
 * (all of them, or the running ones and the most urgent waiting ones), the {@link SchedulingProblem} of a list of
 * jobs, and f_OBJ of placements the step keeps or of jobs it leaves out, summed as the policy would sum them.
 */
final class ProblemBuilder {
    /** Waiting jobs up to which f_OBJ is summed job by job; see {@link #exactPricing}. */
    static final int EXACT_PRICING_QUEUE = 2048;

    private final ControllerFacts facts;
    private final ActiveJobs jobs;
    /**
     * Whether the policy runs one job to a node ({@link SchedulingPolicy#startsOnlyOnFreeNodes}), so that the running
     * jobs' share of f_OBJ can be kept as they change ({@link RunningTerms}) instead of summed at every event.
     */
    private final boolean oneJobPerNode;

    ProblemBuilder(ControllerFacts facts) {
        this(facts, false);
    }

    ProblemBuilder(ControllerFacts facts, boolean oneJobPerNode) {
        this.facts = facts;
        this.jobs = facts.jobs;
        this.oneJobPerNode = oneJobPerNode;
    }

    /** The problem of {@code jobsAsked} on the topology's cluster: their done fractions now and current placements. */
    SchedulingProblem problem(Topology topology, List<ActiveJobs.Entry> jobsAsked) {
        return problem(topology, topology.cluster, null, topology.currentType, jobsAsked);
    }

    /** The problem of {@code jobsAsked}, all on nodes of {@code scope} or waiting, on the scope's cluster. */
    SchedulingProblem problem(Topology topology, RoomScope scope, List<ActiveJobs.Entry> jobsAsked) {
        return problem(topology, scope.cluster, scope.scopeNode, scope.currentType, jobsAsked);
    }

    /** {@code nodeOf}: per topology node, its index in {@code cluster} (null: the same). */
    private SchedulingProblem problem(
            Topology topology, Cluster cluster, int[] nodeOf, int[] currentType, List<ActiveJobs.Entry> jobsAsked) {
        Cluster whole = topology.cluster;
        List<JobState> states = new ArrayList<>(jobsAsked.size());
        List<JobTimes> tables = new ArrayList<>(jobsAsked.size());
        for (ActiveJobs.Entry e : jobsAsked) {
            JobRecord j = e.record;
            Placement current = null;
            if (j.getNode() != null) {
                int n = e.nodeIndex(whole);
                current = new Placement(nodeOf == null ? n : nodeOf[n], e.typeIndex(whole), j.getGpus());
            }
            states.add(facts.jobState(e, current));
            tables.add(e.times);
        }
        return SchedulingProblem.ofDistinctJobsSharingNodeTypes(
                facts.nowSeconds(), cluster, states, tables, currentType, facts.config.optimizerObjective());
    }

    /**
     * Of the optimizer's candidates ({@code asked}, for a scope), those within {@code scope}: the running ones on its
     * nodes and the waiting ones some node of it can run; and f_OBJ's terms of the running ones left where they run,
     * on the nodes outside it. The waiting ones left out are priced by {@link #postponedBeyond}. The running
     * candidates are read off what {@link #ask} kept of them: this touches none of their entries.
     */
    InScope within(Topology topology, RoomScope scope, Asked asked) {
        List<ActiveJobs.Entry> all = asked.candidates();
        if (scope.whole()) return new InScope(all, 0);
        Cluster whole = topology.cluster;
        List<ActiveJobs.Entry> within = new ArrayList<>();
        int[] node = asked.candidateNode();
        for (int i = 0; i < node.length; i++) {
            boolean in = node[i] >= 0
                    ? scope.scopeNode[node[i]] >= 0
                    : all.get(i).times(whole).runsOn(scope.cluster);
            if (in) within.add(all.get(i));
        }
        int[] types = new int[whole.nodeCount()];
        for (int n = 0; n < types.length; n++) types[n] = topology.load.used(n) ? topology.load.type(n) : -1;
        return new InScope(within, asked.running().totalOutside(scope.scopeNode, types));
    }

    /**
     * What {@link #within} gives: the candidates within the scope, and f_OBJ's terms of the running jobs outside it,
     * where they run.
     */
    record InScope(List<ActiveJobs.Entry> candidates, double keptRunning) {}

    /**
     * Per node of the topology, what {@link RoomScope} reads off its running jobs: {@code fewest}, the fewest GPUs they
     * could run on, each on the type it runs as (at most the GPUs it holds); {@code rescue}, whether one of them will
     * end past its due date where it runs but would not on its fastest configuration (growing or moving it may still
     * bring it in on time); {@code slack}, the most time one of them has to spare (due date less predicted end; null
     * unless GPU models are bound to nodes); and {@code demand}, the GPUs the rescued jobs want per model.
     */
    record RunningByNode(int[] fewest, boolean[] rescue, double[] slack, ModelDemand demand) {}

    /** Whether some running job will end past its due date where it runs. */
    boolean someRunningJobLate(Topology topology) {
        double now = facts.nowSeconds();
        Map<String, Integer> catalogIndex = facts.catalog.index();
        for (ActiveJobs.Entry e : jobs.runningInOrder()) {
            e.walked(topology.cluster, catalogIndex);
            double left = 1 - facts.walkedOptimizerDone(e);
            if (now + e.predictedSeconds * left > e.walkDue) return true;
        }
        return false;
    }

    /**
     * Ranks the key's waiting jobs for the policy on the topology's cluster: a queue baseline's own queue order, else
     * the optimizers' pressure (ANDREAS eq. 2, most urgent first; the order among waiting jobs does not change with
     * time), with each one's postponement term.
     */
    void rankWaiting(Topology topology, SchedulingPolicy scheduler) {
        Cluster cluster = topology.cluster;
        double horizon = facts.config.objective().horizonSeconds();
        FreeNodePolicy queue = scheduler instanceof FreeNodePolicy free ? free : null;
        jobs.rankFor(
                cluster,
                e -> {
                    if (!e.priced(cluster).runnable) return false;
                    double left = ControllerFacts.leftWhileWaiting(e);
                    e.waitRank =
                            queue != null ? queue.queueKey(e.model()) : e.dueSeconds - e.times.fastest(cluster) * left;
                    e.penaltyWeight = e.weightPerHour;
                    e.penaltyOffset = horizon + e.slowestSeconds * left - e.dueSeconds;
                    return true;
                },
                facts.config.objective().rho());
    }

    /**
     * The jobs an optimizer is asked about: every runnable job in submission order while at most the window's count of
     * jobs wait ({@link Topology#optimizerWindow}), else the running jobs and the window's most urgent waiting ones. A
     * schedule places at most one job per GPU, so jobs further down a longer queue could only take what the urgent
     * ones leave; they stay postponed and are priced by {@link #postponedBeyond}. With {@code scoped}, the same walk
     * also gives what a scope is chosen by ({@link RunningByNode}) and what the running jobs it leaves out add to
     * f_OBJ: every call walks every running job, and each walk over them was a tenth of a large replay.
     */
    Asked ask(Topology topology, boolean scoped) {
        Cluster cluster = topology.cluster;
        Map<String, Integer> catalogIndex = facts.catalog.index();
        RunningFigures running = scoped ? new RunningFigures(topology, catalogIndex) : null;
        List<ActiveJobs.Entry> candidates = new ArrayList<>();
        List<ActiveJobs.Entry> waiting = new ArrayList<>();
        int[] candidateNode;
        if (jobs.queuedCount() <= topology.optimizerWindow) {
            candidateNode = new int[jobs.size()];
            for (ActiveJobs.Entry e : jobs.inOrder()) {
                if (e.indexedAsRunning()) {
                    if (running != null) running.add(e);
                    if (!e.walked(cluster, catalogIndex).runnable) continue;
                    candidateNode[candidates.size()] = e.walkNode;
                    candidates.add(e);
                } else if (e.priced(cluster).runnable) {
                    // else it waits until a node that can run it comes (back)
                    candidateNode[candidates.size()] = -1;
                    candidates.add(e);
                    waiting.add(e);
                }
            }
            candidateNode = Arrays.copyOf(candidateNode, candidates.size());
        } else {
            for (ActiveJobs.Entry e : jobs.runningInOrder()) {
                if (running != null) running.add(e);
                if (e.walked(cluster, catalogIndex).runnable) candidates.add(e);
            }
            for (ActiveJobs.Entry e : jobs.waitingInRankOrder()) {
                if (candidates.size() >= jobs.runningCount() + topology.optimizerWindow) break;
                candidates.add(e);
                waiting.add(e);
            }
            candidates.sort(ActiveJobs.ORDER);
            candidateNode = new int[candidates.size()];
            for (int i = 0; i < candidateNode.length; i++) {
                ActiveJobs.Entry e = candidates.get(i);
                candidateNode[i] = e.indexedAsRunning() ? e.walkNode : -1;
            }
        }
        return new Asked(
                candidates,
                waiting,
                candidateNode,
                running == null ? null : running.byNode(),
                running == null ? null : running.kept);
    }

    /**
     * What {@link #ask} gives: the candidates in {@link ActiveJobs#ORDER}, the waiting ones among them, per candidate
     * the node it runs on (-1: waiting), and, when asked for a scope (else null), the running jobs' {@link
     * RunningByNode} and the runnable ones' f_OBJ terms where they run.
     */
    record Asked(
            List<ActiveJobs.Entry> candidates,
            List<ActiveJobs.Entry> waiting,
            int[] candidateNode,
            RunningByNode byNode,
            ObjectiveFunction.ByNode running) {}

    /** {@link RunningByNode} and the runnable running jobs' f_OBJ terms, job by job. */
    private final class RunningFigures {
        private final Cluster whole;
        private final double now = facts.nowSeconds();
        private final Map<String, Integer> catalogIndex;
        private final int[] fewest;
        private final boolean[] rescue;
        private final ModelDemand demand;
        private final double[] slack;
        final ObjectiveFunction.ByNode kept;

        RunningFigures(Topology topology, Map<String, Integer> catalogIndex) {
            Cluster whole = topology.cluster;
            this.whole = whole;
            this.catalogIndex = catalogIndex;
            fewest = new int[whole.nodeCount()];
            rescue = new boolean[whole.nodeCount()];
            demand = new ModelDemand(topology);
            slack = topology.models().boundToNodes() ? new double[whole.nodeCount()] : null;
            if (slack != null) Arrays.fill(slack, Double.NEGATIVE_INFINITY);
            kept = new ObjectiveFunction.ByNode(facts.config.objective(), whole, now);
        }

        void add(ActiveJobs.Entry e) {
            e.walked(whole, catalogIndex);
            int n = e.walkNode;
            fewest[n] += e.walkFewest;
            double left = 1 - facts.walkedOptimizerDone(e);
            double due = e.walkDue;
            if (slack != null) slack[n] = Math.max(slack[n], due - now - e.predictedSeconds * left);
            if (now + e.predictedSeconds * left > due && now + e.walkFastest * left <= due) {
                rescue[n] = true;
                demand.add(e.times(whole), now, left, due);
            }
            if (e.runnable) priceWalked(kept, e, left);
        }

        RunningByNode byNode() {
            return new RunningByNode(fewest, rescue, slack, demand);
        }
    }

    /** Per candidate, how often it was moved already (preempted, migrated or resized). */
    static int[] movesSoFar(List<ActiveJobs.Entry> candidates) {
        int[] moves = new int[candidates.size()];
        for (int i = 0; i < moves.length; i++) {
            JobRecord j = candidates.get(i).record;
            moves[i] = j.getPreemptions() + j.getMigrations() + j.getResizes();
        }
        return moves;
    }

    /** f_OBJ's postponement terms of the runnable waiting jobs not among {@code candidates} (0 when none is left out). */
    double postponedBeyond(Topology topology, List<ActiveJobs.Entry> candidates) {
        int waitingCandidates = 0;
        for (ActiveJobs.Entry e : candidates) if (!e.running()) waitingCandidates++;
        if (waitingCandidates == jobs.queuedCount()) return 0;
        Cluster cluster = topology.cluster;
        ObjectiveFunction.Sum inWindow =
                new ObjectiveFunction.Sum(facts.config.objective(), cluster, facts.nowSeconds(), 1);
        for (ActiveJobs.Entry e : candidates) if (!e.running()) price(inWindow, cluster, e, null);
        return Math.max(0, jobs.postponedPenalty(facts.nowSeconds()) - inWindow.total(new int[0]));
    }

    /**
     * Adds job {@code e} to f_OBJ with the figures a problem would give it: where it runs (then {@code started} is not
     * read), else at {@code started} (a waiting job the policy starts), else as postponed.
     */
    void price(ObjectiveFunction.Sum sum, Cluster cluster, ActiveJobs.Entry e, Placement started) {
        if (e.running()) {
            priceWalked(sum, e.walked(cluster, facts.catalog.index()));
            return;
        }
        double left = 1 - facts.optimizerDone(e);
        if (started == null) {
            sum.postponed(e.weightPerHour, e.dueSeconds, e.slowestSeconds * left);
        } else {
            sum.scheduled(
                    e.weightPerHour,
                    e.dueSeconds,
                    e.times.seconds(started.type(), started.gpus()) * left + facts.restartSeconds(e),
                    started);
        }
    }

    /**
     * A running job's terms of f_OBJ where it runs, from its walk figures ({@link ActiveJobs.Entry#walked} for the
     * sum's cluster), read off the entry alone.
     */
    private void priceWalked(ObjectiveFunction.PlacedJobs sum, ActiveJobs.Entry e) {
        priceWalked(sum, e, 1 - facts.walkedOptimizerDone(e));
    }

    /** {@link #priceWalked(ObjectiveFunction.PlacedJobs, ActiveJobs.Entry)}, the share of its work left known. */
    private static void priceWalked(ObjectiveFunction.PlacedJobs sum, ActiveJobs.Entry e, double left) {
        // its time table's time on its placement: the cluster's type indices are the catalog's
        sum.scheduled(e.weightPerHour, e.dueSeconds, e.predictedSeconds * left, e.walkNode, e.walkType, e.walkGpus);
    }

    /**
     * For a policy that only starts waiting jobs on free nodes: whether no job that some up node can run waits, or no
     * up node is free, so that its schedule would be the current placements. False with no such job at all, which the
     * general path handles (it calls no policy then either).
     */
    boolean nothingToStart(Topology topology) {
        int usedNodes = topology.load.usedNodes();
        if (usedNodes == topology.cluster.nodeCount()) return true;
        if (jobs.queuedCount() > 0) return false;
        return usedNodes > 0;
    }

    /**
     * f_OBJ of the current placements, summed over the jobs as the policy is handed them (same jobs, order and
     * figures), so it is the value the policy would have returned for keeping them. Past {@value #EXACT_PRICING_QUEUE}
     * waiting jobs ({@link #exactPricing}) it agrees to rounding, and with one job to a node the running jobs' share
     * is kept as they change ({@link RunningTerms}) rather than summed over them.
     */
    double keptObjective(Topology topology) {
        Cluster cluster = topology.cluster;
        double now = facts.nowSeconds();
        if (!exactPricing()) {
            RunningTerms terms = oneJobPerNodeTerms(topology);
            if (terms != null) return terms.total() + jobs.postponedPenalty(now);
            Map<String, Integer> catalogIndex = facts.catalog.index();
            ObjectiveFunction.Sum sum =
                    new ObjectiveFunction.Sum(facts.config.objective(), cluster, now, jobs.runningCount());
            for (ActiveJobs.Entry e : jobs.runningInOrder()) {
                if (e.walked(cluster, catalogIndex).runnable) priceWalked(sum, e);
            }
            return sum.total(topology.currentType) + jobs.postponedPenalty(now);
        }
        ObjectiveFunction.Sum sum = new ObjectiveFunction.Sum(facts.config.objective(), cluster, now, jobs.size());
        for (ActiveJobs.Entry e : jobs.inOrder()) {
            if (e.priced(cluster).runnable) price(sum, cluster, e, null);
        }
        return sum.total(topology.currentType);
    }

    /**
     * {@code types}: per node of the topology's cluster, the catalog type a running job some node can run runs it as
     * (-1: none), the nodes a queue baseline cannot start a job on; the caller may change it, and it holds until the
     * next call. {@code empty}: the nodes it gives -1, ascending.
     */
    record HeldNodes(int[] types, int[] empty) {}

    /** The nodes the running jobs hold, and those they leave empty. */
    HeldNodes heldNodes(Topology topology) {
        RunningTerms terms = oneJobPerNodeTerms(topology);
        if (terms != null) return new HeldNodes(terms.typesOnNodes(), terms.emptyNodes());
        Cluster cluster = topology.cluster;
        Map<String, Integer> catalogIndex = facts.catalog.index();
        int[] held = new int[cluster.nodeCount()];
        Arrays.fill(held, -1);
        for (ActiveJobs.Entry e : jobs.runningInOrder()) {
            if (e.walked(cluster, catalogIndex).runnable) held[e.walkNode] = e.walkType;
        }
        return new HeldNodes(held, FreeNodePolicy.emptyNodes(held));
    }

    /**
     * The running jobs' kept terms ({@link ActiveJobs#runningTerms}) when the policy runs one job to a node and they
     * count every running job, each on a node of its own, so that a node's cost is its job's; else null.
     */
    private RunningTerms oneJobPerNodeTerms(Topology topology) {
        if (!oneJobPerNode) return null;
        RunningTerms terms = jobs.runningTerms(
                topology.cluster,
                facts.catalog.index(),
                facts.config.objective().mu(),
                facts.nowSeconds());
        int counted = terms.size();
        return counted == jobs.runningCount() && counted == topology.load.usedNodes() ? terms : null;
    }

    /**
     * f_OBJ of every runnable job after a queue baseline's call: the running ones where they are, the started ones
     * where {@code started} puts them, the others postponed; NaN when the queue is too long to sum job by job.
     */
    double objectiveWithStarted(Cluster cluster, Map<ActiveJobs.Entry, Placement> started, int[] held) {
        if (!exactPricing()) return Double.NaN;
        ObjectiveFunction.Sum sum =
                new ObjectiveFunction.Sum(facts.config.objective(), cluster, facts.nowSeconds(), jobs.size());
        for (ActiveJobs.Entry e : jobs.inOrder()) {
            if (e.priced(cluster).runnable) price(sum, cluster, e, e.running() ? null : started.get(e));
        }
        return sum.total(held);
    }

    /**
     * Whether f_OBJ is summed job by job in submission order, the order a policy sums it in (to the bit), or, with
     * more than {@value #EXACT_PRICING_QUEUE} jobs waiting, as the running jobs' terms plus the queue's summed
     * postponement terms ({@link ActiveJobs#postponedPenalty}), which agree to rounding and cost no walk over the queue.
     */
    boolean exactPricing() {
        return jobs.size() - jobs.runningCount() <= EXACT_PRICING_QUEUE;
    }
}
