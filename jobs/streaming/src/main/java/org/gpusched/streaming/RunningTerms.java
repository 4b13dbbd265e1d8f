package org.gpusched.streaming;

import java.util.Arrays;
import java.util.BitSet;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.TreeSet;
import org.gpusched.core.model.Cluster;
import org.gpusched.core.model.NodeType;

/**
 * The f_OBJ terms of a key's running jobs where they run, for a cluster where each used node holds one job (a
 * whole-node policy's), kept as jobs start, change and stop so that pricing the kept placements at every event costs
 * no walk over the running jobs. With one job to a node, a node's cost is its job's, and each job's share of f_OBJ
 * (weight x tardiness, remaining hours x the rate of its GPUs, mu x its node's idle GPUs) is a continuous
 * piecewise-linear function of now ({@link #piece}): its remaining time is constant until it starts progressing,
 * then falls one second a second, so that its tardiness stays constant (now + remaining is its expected end), until
 * its done fraction reaches the optimizer's cap, from which its remaining time is constant again and its tardiness
 * grows. The sum keeps each job's current piece and when the piece ends, moving a job to its next piece as time
 * passes; the pieces' slopes and intercepts are summed exactly ({@link ExactSum}), so the total depends neither on the
 * order jobs came in nor on when they entered a piece, and is the same after a restore. It is the walk's sum
 * ({@link ProblemBuilder#keptObjective}) to rounding. Derived working memory of {@link ActiveJobs}, never state.
 */
final class RunningTerms {
    /** One job's figures, read off its entry when it was put, and its current piece: value = intercept + slope x now. */
    private static final class Term {
        final double weightPerSecond;
        final double due;
        final double predicted;
        final double modelDone;
        final double progressSeconds;
        final double ratePerSecond;
        final double idleCharge;
        final int node;
        final long order;
        double slope;
        double intercept;
        /** When the piece ends: the next piece holds from then on (+infinity: it holds for good). */
        double until;

        Term(ActiveJobs.Entry e, Cluster cluster, double mu, long order) {
            NodeType type = cluster.type(e.walkType);
            weightPerSecond = e.weightPerHour / 3600.0;
            due = e.dueSeconds;
            predicted = e.predictedSeconds;
            modelDone = e.walkModelDone;
            progressSeconds = e.walkProgressMillis / 1000.0;
            ratePerSecond = type.costPerHour(e.walkGpus) / 3600.0;
            idleCharge = mu * (type.gpus() - e.walkGpus);
            node = e.walkNode;
            this.order = order;
        }
    }

    private static final Comparator<Term> BY_END =
            Comparator.<Term>comparingDouble(t -> t.until).thenComparingLong(t -> t.order);

    final Cluster cluster;
    private final Map<String, Integer> catalogIndex;
    private final double mu;
    private final Map<ActiveJobs.Entry, Term> terms = new IdentityHashMap<>();
    /** Per node of the cluster, the catalog type a counted job runs it as (-1: none). */
    private final int[] typeOnNode;
    /** The nodes no counted job runs on ({@link #typeOnNode} -1), so that finding them costs a word per 64 nodes. */
    private final BitSet emptyNodes = new BitSet();
    /** The copy {@link #typesOnNodes} hands out. */
    private int[] typesCopy;
    /** Terms whose piece ends some time, the first to end first. */
    private final TreeSet<Term> ending = new TreeSet<>(BY_END);

    private final ExactSum slopes = new ExactSum();
    private final ExactSum intercepts = new ExactSum();
    private double now = Double.NEGATIVE_INFINITY;
    private long nextOrder;

    /** @param mu the charge per idle GPU of a used node; {@code catalogIndex} as for {@link ActiveJobs.Entry#walked} */
    RunningTerms(Cluster cluster, Map<String, Integer> catalogIndex, double mu) {
        this.cluster = cluster;
        this.catalogIndex = catalogIndex;
        this.mu = mu;
        typeOnNode = new int[cluster.nodeCount()];
        Arrays.fill(typeOnNode, -1);
        emptyNodes.set(0, cluster.nodeCount());
    }

    /** Jobs counted: the running jobs put that some node of the cluster can run. */
    int size() {
        return terms.size();
    }

    /**
     * Counts running entry {@code e} as its record is now, from the clock's time on (a job no node of the cluster can
     * run is not counted).
     */
    void put(ActiveJobs.Entry e) {
        if (!e.walked(cluster, catalogIndex).runnable) return;
        Term t = new Term(e, cluster, mu, nextOrder++);
        terms.put(e, t);
        typeOnNode[t.node] = e.walkType;
        emptyNodes.clear(t.node);
        enter(t, now);
    }

    /** Stops counting {@code e} (nothing when it is not counted). */
    void remove(ActiveJobs.Entry e) {
        Term t = terms.remove(e);
        if (t == null) return;
        typeOnNode[t.node] = -1;
        emptyNodes.set(t.node);
        leave(t);
    }

    /**
     * Per node of the cluster, the catalog type a counted job runs it as (-1: none); a copy for the caller to change,
     * the same array at each call (a queue baseline asks at every completion, and a fresh copy as large as the
     * cluster each time was a tenth of its allocation on 2,000 nodes), so it holds until the next call only.
     */
    int[] typesOnNodes() {
        if (typesCopy == null) typesCopy = new int[typeOnNode.length];
        System.arraycopy(typeOnNode, 0, typesCopy, 0, typeOnNode.length);
        return typesCopy;
    }

    /** The nodes no counted job runs on, ascending: those {@link #typesOnNodes} gives -1. */
    int[] emptyNodes() {
        return emptyNodes.stream().toArray();
    }

    /** Moves the clock to {@code nowSeconds}, which never goes back: jobs whose piece ended enter their next one. */
    void advance(double nowSeconds) {
        now = nowSeconds;
        while (!ending.isEmpty() && ending.first().until <= nowSeconds) {
            Term t = ending.pollFirst();
            leave(t);
            enter(t, nowSeconds);
        }
    }

    /**
     * The counted jobs' share of f_OBJ at the clock's time ({@link #advance}): the tardiness and node cost of each, and
     * mu x its node's idle GPUs.
     */
    double total() {
        return slopes.timesPlus(now, intercepts);
    }

    private void enter(Term t, double at) {
        piece(t, at);
        slopes.add(t.slope);
        intercepts.add(t.intercept);
        if (t.until != Double.POSITIVE_INFINITY) ending.add(t);
    }

    private void leave(Term t) {
        ending.remove(t);
        slopes.subtract(t.slope);
        intercepts.subtract(t.intercept);
    }

    /**
     * Sets the piece of job t's terms that holds at time {@code at} (seconds), a function of the job's figures and
     * {@code at} alone. Done fraction: modelDone until progressSeconds, then rising by 1 / predicted a second, capped
     * at {@link ControllerFacts#MAX_MODEL_DONE} (as {@link ControllerFacts#walkedOptimizerDone} has it); remaining =
     * predicted x (1 - done). Each piece ends where the next begins, at a time after {@code at}.
     */
    static void piece(Term t, double at) {
        double cap = ControllerFacts.MAX_MODEL_DONE;
        double flatUntil = Double.POSITIVE_INFINITY;
        double remaining;
        if (t.modelDone < cap && at >= t.progressSeconds) {
            double capAt = t.progressSeconds + (cap - t.modelDone) * t.predicted;
            if (at < capAt) {
                // progressing: the expected end is fixed, the node's remaining cost falls
                double end = t.progressSeconds + t.predicted * (1 - t.modelDone);
                t.slope = -t.ratePerSecond;
                t.intercept = t.weightPerSecond * Math.max(0, end - t.due) + t.ratePerSecond * end + t.idleCharge;
                t.until = capAt;
                return;
            }
            remaining = t.predicted * (1 - cap);
        } else if (t.modelDone < cap) {
            // waiting to progress (restoring a snapshot)
            remaining = t.predicted * (1 - t.modelDone);
            flatUntil = t.progressSeconds;
        } else {
            remaining = t.predicted * (1 - cap);
        }
        // remaining is constant: the tardiness grows from the time it begins, the node cost does not change
        double lateFrom = t.due - remaining;
        double nodeCost = t.ratePerSecond * remaining + t.idleCharge;
        if (at < lateFrom) {
            t.slope = 0;
            t.intercept = nodeCost;
            t.until = Math.min(lateFrom, flatUntil);
        } else {
            t.slope = t.weightPerSecond;
            t.intercept = nodeCost + t.weightPerSecond * (remaining - t.due);
            t.until = flatUntil;
        }
    }
}
