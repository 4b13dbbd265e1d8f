package org.gpusched.streaming;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.gpusched.core.model.Cluster;
import org.gpusched.core.model.Job;
import org.gpusched.core.model.JobTimes;
import org.gpusched.streaming.avro.ExecutionTime;
import org.gpusched.streaming.state.JobRecord;

/**
 * One controller key's active jobs as working memory: a cache of the key's {@code JobRecord} map state, kept equal to
 * it by {@link ControllerFacts} (every change to one is made to the other in the same step) and rebuilt from state
 * when missing, so after a restore too. It spares each event a copy of the whole map out of state and a write of
 * every running job back. Records in it are the objects held by state, so they are never changed in place: a change
 * replaces the record (see {@link ControllerFacts#writable}), which keeps an asynchronous snapshot consistent.
 * Also held, derived from the records: each job's core model and time table, and an index of the running jobs (how
 * many, and those with an end time by that time), so that an event finds the jobs ending and the next end without a
 * walk over every job. The index follows a record's node and end time when told with {@link #reindex}. Asked for
 * them, it keeps the running jobs' f_OBJ terms too ({@link #runningTerms}), told of each entry that changes.
 */
final class ActiveJobs {
    /**
     * Submission order, the order the optimizer sees jobs in: (submit, id) of the entries' specs, read off the entries
     * ({@link Entry#submitSeconds}, {@link Entry#id}) so that the binary searches and trees ordered by it load no record.
     */
    static final Comparator<Entry> ORDER = (a, b) -> {
        int bySubmit = Double.compare(a.submitSeconds, b.submitSeconds);
        return bySubmit != 0 ? bySubmit : a.id.compareTo(b.id);
    };

    /** One job: its current record and what follows from its immutable spec. */
    static final class Entry {
        JobRecord record;
        Job model;
        JobTimes times;
        /** The jobs this entry is one of, told of its changes while they keep {@link RunningTerms}. */
        private ActiveJobs owner;
        /** Whether the entry waits in its owner's {@link #touched} list. */
        private boolean touched;

        /** The spec's submit time and id, the {@link #ORDER} key: no change of the record alters them. */
        final double submitSeconds;

        final String id;

        Entry(JobRecord record) {
            this.record = record;
            this.submitSeconds = record.getSpec().getSubmit();
            this.id = record.getSpec().getId();
        }

        /** Indices of the placement in {@link #indexedIn}, valid while node and type are these very strings. */
        private Cluster indexedIn;

        private String indexedNode;
        private String indexedType;
        private int nodeIndex = -1;
        private int typeIndex = -1;
        /** What {@link ActiveJobs}' running index holds for this entry: whether it runs, and its end (-1: none). */
        private boolean indexedRunning;

        private long indexedEnd = -1;

        boolean running() {
            return record.getNode() != null;
        }

        /** {@link #running()} as of the last {@link ActiveJobs#reindex}, read off the entry alone. */
        boolean indexedAsRunning() {
            return indexedRunning;
        }

        /** The index in {@code cluster} of the node the job runs on (-1 when waiting), without a lookup per event. */
        int nodeIndex(Cluster cluster) {
            index(cluster);
            return nodeIndex;
        }

        /** The catalog index of the type the job runs as (-1 when waiting). */
        int typeIndex(Cluster cluster) {
            index(cluster);
            return typeIndex;
        }

        /**
         * Figures derived from the record for pricing it at every event, valid until the record changes ({@link
         * #changed}): the predicted full seconds on its placement (NaN: not derived yet), and, for the cluster {@code
         * pricedIn} (null: not derived yet), whether some node of it can run the job, its weight and due date, and its
         * slowest full time there.
         */
        double predictedSeconds = Double.NaN;

        Cluster pricedIn;
        boolean runnable;
        double weightPerHour, dueSeconds, slowestSeconds;

        /**
         * While the job waits and some node of the ranked cluster can run it ({@link #queued}): its place in the
         * waiting order (ascending: considered first) and its postponement term, as {@link WaitingFigures} gave them.
         */
        double waitRank, penaltyWeight, penaltyOffset;

        private boolean queued;
        private PostponedPenalty.Term penalty;

        /**
         * What the walks over every running job at every event read ({@link #walked}), copied from the record so that
         * such a walk touches the entry alone, not its record, spec and strings: valid for the cluster {@code walkedIn}
         * (null: not copied yet) until the record changes. The node and type indices in that cluster, the GPUs held,
         * the fewest GPUs the job could run on as the type it runs as (at most those it holds), the spec's due date, its
         * fastest full time on the cluster and the progress figures ({@link ControllerFacts#walkedOptimizerDone}).
         */
        private Cluster walkedIn;

        int walkNode, walkType, walkGpus, walkFewest;
        double walkDue, walkFastest, walkModelDone;
        long walkProgressMillis;

        /** The record is about to change, or was replaced: figures derived from it are derived again when next asked. */
        void changed() {
            predictedSeconds = Double.NaN;
            pricedIn = null;
            walkedIn = null;
            if (owner != null) owner.touch(this);
        }

        /**
         * This running entry, its walk figures and pricing figures ({@link #priced}) derived for {@code cluster} and
         * its predicted seconds for {@code catalogIndex} (see {@link #predictedSeconds}).
         */
        Entry walked(Cluster cluster, Map<String, Integer> catalogIndex) {
            if (walkedIn == cluster) return this;
            priced(cluster);
            predictedSeconds(catalogIndex);
            walkNode = nodeIndex(cluster);
            walkType = typeIndex(cluster);
            walkGpus = record.getGpus();
            int least = times(cluster).fewestGpus(walkType);
            walkFewest = least == 0 ? walkGpus : Math.min(least, walkGpus);
            walkDue = record.getSpec().getDue();
            walkFastest = times(cluster).fastest(cluster);
            walkModelDone = record.getModelDone();
            walkProgressMillis = record.getProgressMillis();
            walkedIn = cluster;
            return this;
        }

        /** The core model's job of the record's spec, derived once. */
        Job model() {
            if (model == null) model = JobCodec.toJob(record.getSpec());
            return model;
        }

        /**
         * Full predicted time of the running job on its placement: from its time table when it has one ({@code
         * catalogIndex}: type name to the catalog index the table's rows use), else from the model.
         */
        double predictedSeconds(Map<String, Integer> catalogIndex) {
            if (!Double.isNaN(predictedSeconds)) return predictedSeconds;
            Integer t = times == null ? null : catalogIndex.get(record.getType());
            predictedSeconds =
                    t == null ? model().timeOn(record.getType(), record.getGpus()) : times.seconds(t, record.getGpus());
            return predictedSeconds;
        }

        /** This entry, its pricing figures derived for {@code cluster} (see {@link #pricedIn}). */
        Entry priced(Cluster cluster) {
            if (pricedIn == cluster) return this;
            JobTimes table = times(cluster);
            Job job = model();
            runnable = table.runsOn(cluster);
            weightPerHour = job.weightPerHour();
            dueSeconds = job.dueSeconds();
            slowestSeconds = table.slowest(cluster);
            pricedIn = cluster;
            return this;
        }

        /** The job's time table on {@code cluster}, derived again when the cached one does not fit it. */
        JobTimes times(Cluster cluster) {
            if (times == null || !times.fits(cluster)) times = JobTimes.of(model(), cluster);
            return times;
        }

        /** Real duration / predicted duration (replay): the spec's actualFactor, 1 when it has none. */
        double actualFactor() {
            Double f = record.getSpec().getActualFactor();
            return f == null ? 1.0 : f;
        }

        private void index(Cluster cluster) {
            String node = record.getNode();
            String type = record.getType();
            if (cluster == indexedIn && node == indexedNode && type == indexedType) return;
            nodeIndex = node == null ? -1 : cluster.nodeIndex(node);
            typeIndex = type == null ? -1 : cluster.typeIndex(type);
            indexedIn = cluster;
            indexedNode = node;
            indexedType = type;
        }
    }

    private static final Comparator<Entry> WAIT_ORDER =
            Comparator.<Entry>comparingDouble(e -> e.waitRank).thenComparing(ORDER);
    private static final Comparator<Entry> END_ORDER =
            Comparator.<Entry>comparingLong(e -> e.indexedEnd).thenComparing(ORDER);

    /** Touched entries kept for {@link #terms} beyond twice the running jobs before they are dropped. */
    private static final int RUNNING_TERMS_SLACK = 1024;

    private final Map<String, Entry> byId = new HashMap<>();
    /** The node type names the jobs' times name, each once. */
    private final Map<String, String> typeNames = new HashMap<>();
    /**
     * The entries in {@link #ORDER}: an array, not a tree, because each event walks all of them several times; jobs
     * mostly arrive in that order (added at the end), and an insertion or removal elsewhere moves references, a memmove.
     */
    private final ArrayList<Entry> ordered = new ArrayList<>();

    private final List<Entry> orderedView = Collections.unmodifiableList(ordered);
    /** Running entries that have an end time, by (end, {@link #ORDER}). */
    private final TreeSet<Entry> byEnd = new TreeSet<>(END_ORDER);

    /**
     * Running entries in {@link #ORDER}: an array for the same reason as {@link #ordered} (each event walks them), and
     * a start or stop is a binary search and a memmove of references.
     */
    private final ArrayList<Entry> runningOrdered = new ArrayList<>();

    private final List<Entry> runningView = Collections.unmodifiableList(runningOrdered);

    /** The running jobs' f_OBJ terms, from the first {@link #runningTerms} call for their cluster on (null: none). */
    private RunningTerms terms;
    /** Entries started, stopped, changed or removed since {@link #terms} last heard of them. */
    private final List<Entry> touched = new ArrayList<>();
    /**
     * Waiting entries that some node of the ranked cluster can run, in the policy's waiting order, and their summed
     * postponement terms: kept from {@link #rankFor} on, so that an event reads the head of a long queue and its f_OBJ
     * share without a walk over it.
     */
    private final TreeSet<Entry> waiting = new TreeSet<>(WAIT_ORDER);

    private Object rankedFor;
    private WaitingFigures figures;
    private PostponedPenalty penalties;

    /**
     * A policy's view of a waiting job on one cluster: whether some node of it can run the job and, if so, its
     * {@link Entry#waitRank}, {@link Entry#penaltyWeight} (rho x weight per hour is charged) and {@link
     * Entry#penaltyOffset} (H + slowest remaining - due, seconds), set on the entry.
     */
    interface WaitingFigures {
        boolean figure(Entry e);
    }

    /**
     * The running jobs' share of f_OBJ on {@code cluster} kept as they come, change and go ({@link RunningTerms}),
     * brought up to {@code nowSeconds}: built from the running jobs on the first call for a cluster, then told only of
     * the entries touched since the last call. Between calls only those entries are listed; a list grown past twice
     * the running jobs (calls stopped: the queue got short) drops the terms, to be built again when next asked.
     */
    RunningTerms runningTerms(Cluster cluster, Map<String, Integer> catalogIndex, double mu, double nowSeconds) {
        if (terms == null || terms.cluster != cluster) {
            dropRunningTerms();
            terms = new RunningTerms(cluster, catalogIndex, mu);
            terms.advance(nowSeconds);
            for (Entry e : runningOrdered) terms.put(e);
            return terms;
        }
        terms.advance(nowSeconds);
        for (Entry e : touched) {
            e.touched = false;
            terms.remove(e);
            if (e.indexedRunning && byId.get(e.id) == e) terms.put(e);
        }
        touched.clear();
        return terms;
    }

    private void touch(Entry e) {
        if (terms == null || e.touched) return;
        e.touched = true;
        touched.add(e);
        if (touched.size() > 2 * runningOrdered.size() + RUNNING_TERMS_SLACK) dropRunningTerms();
    }

    private void dropRunningTerms() {
        for (Entry e : touched) e.touched = false;
        touched.clear();
        terms = null;
    }

    Entry get(String id) {
        return byId.get(id);
    }

    boolean contains(String id) {
        return byId.containsKey(id);
    }

    int size() {
        return byId.size();
    }

    boolean isEmpty() {
        return byId.isEmpty();
    }

    /** The active jobs in {@link #ORDER}. */
    Collection<Entry> inOrder() {
        return orderedView;
    }

    /** Jobs running now (a node set on their record, as last {@link #reindex reindexed}). */
    int runningCount() {
        return runningOrdered.size();
    }

    /** The earliest end time among the running jobs, Long.MAX_VALUE when none has one. */
    long nextEndMillis() {
        return byEnd.isEmpty() ? Long.MAX_VALUE : byEnd.first().indexedEnd;
    }

    /** The running jobs whose end time is at or before {@code millis}, in {@link #ORDER}. */
    List<Entry> endingBy(long millis) {
        List<Entry> ending = new ArrayList<>();
        for (Entry e : byEnd) {
            if (e.indexedEnd > millis) break;
            ending.add(e);
        }
        if (ending.size() > 1) ending.sort(ORDER);
        return ending;
    }

    /**
     * Ranks the waiting jobs with {@code f} for {@code cluster} and keeps them ranked as jobs come, start, stop and
     * leave. The same cluster again (an identity) keeps the index as it is: {@code f} must depend on the cluster alone.
     */
    void rankFor(Object cluster, WaitingFigures f, double rho) {
        if (cluster == rankedFor) return;
        rankedFor = cluster;
        figures = f;
        penalties = new PostponedPenalty(rho);
        for (Entry e : waiting) e.queued = false;
        waiting.clear();
        for (Entry e : ordered) if (!e.indexedRunning) enqueue(e);
    }

    /** The waiting jobs some node can run, in the waiting order given to {@link #rankFor}. */
    Collection<Entry> waitingInRankOrder() {
        return Collections.unmodifiableSet(waiting);
    }

    /** How many jobs {@link #waitingInRankOrder} holds. */
    int queuedCount() {
        return waiting.size();
    }

    /** The running jobs in {@link #ORDER}. */
    List<Entry> runningInOrder() {
        return runningView;
    }

    /** rho x weight x worst-case tardiness summed over the queued jobs at {@code nowSeconds} (never decreasing). */
    double postponedPenalty(double nowSeconds) {
        return penalties == null ? 0 : penalties.total(nowSeconds);
    }

    /** A waiting job's figures changed (its done fraction was corrected): it is ranked and priced again. */
    void refigure(Entry e) {
        dequeue(e);
        if (!e.indexedRunning) enqueue(e);
    }

    private void enqueue(Entry e) {
        if (figures == null || !figures.figure(e)) return;
        e.queued = true;
        e.penalty = penalties.add(e.penaltyWeight, e.penaltyOffset);
        waiting.add(e);
    }

    private void dequeue(Entry e) {
        if (!e.queued) return;
        waiting.remove(e);
        penalties.remove(e.penalty);
        e.penalty = null;
        e.queued = false;
    }

    Entry add(JobRecord record) {
        // one String per type name for all the jobs held, not one per time of each job (the record stays equal)
        for (ExecutionTime time : record.getSpec().getTimes())
            time.setType(typeNames.computeIfAbsent(time.getType(), name -> name));
        Entry e = new Entry(record);
        e.owner = this;
        Entry previous = byId.put(record.getSpec().getId(), e);
        if (previous != null) removeOrdered(previous);
        // never found: an equal key has the same id, whose entry went above
        ordered.add(-Collections.binarySearch(ordered, e, ORDER) - 1, e);
        reindex(e);
        if (!e.indexedRunning) enqueue(e);
        return e;
    }

    /** Brings the running index up to the entry's record: call after changing its node or end time. */
    void reindex(Entry e) {
        touch(e);
        boolean runs = e.record.getNode() != null;
        long end = runs && e.record.getEndMillis() >= 0 ? e.record.getEndMillis() : -1;
        if (runs != e.indexedRunning) {
            e.indexedRunning = runs;
            if (runs) {
                dequeue(e);
                // never found: the entry was not running
                runningOrdered.add(-Collections.binarySearch(runningOrdered, e, ORDER) - 1, e);
            } else {
                removeRunning(e);
                enqueue(e);
            }
        }
        if (end != e.indexedEnd) {
            if (e.indexedEnd >= 0) byEnd.remove(e);
            e.indexedEnd = end;
            if (end >= 0) byEnd.add(e);
        }
    }

    /** Replaces a job's record by a changed copy; the order key (submit, id) never changes. */
    void replace(Entry e, JobRecord changed) {
        assert changed.getSpec().getSubmit() == e.submitSeconds
                && changed.getSpec().getId().equals(e.id);
        e.record = changed;
        e.changed();
    }

    void remove(String id) {
        Entry e = byId.remove(id);
        if (e != null) removeOrdered(e);
    }

    private void removeOrdered(Entry e) {
        touch(e);
        if (e.indexedRunning) removeRunning(e);
        dequeue(e);
        if (e.indexedEnd >= 0) byEnd.remove(e);
        int at = Collections.binarySearch(ordered, e, ORDER);
        if (at >= 0) ordered.remove(at);
    }

    private void removeRunning(Entry e) {
        int at = Collections.binarySearch(runningOrdered, e, ORDER);
        if (at >= 0) runningOrdered.remove(at);
    }
}
