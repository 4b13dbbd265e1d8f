package org.gpusched.streaming.file;

import static org.gpusched.streaming.file.PartFileMerger.fields;

import com.fasterxml.jackson.core.JsonParser;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import org.gpusched.rundir.JsonLines;
import org.gpusched.streaming.file.PartFileMerger.FieldReader;
import org.gpusched.streaming.file.PartFileMerger.Keyed;
import org.gpusched.streaming.file.PartFileMerger.Lines;
import org.gpusched.streaming.file.PartFileMerger.Ordered;
import org.gpusched.streaming.file.RunDirectoryWriter.Summary;

/**
 * A run's summary (metrics.json and the {@link Summary} the commands print) from its part files: the job metrics
 * folded in (time, job) order, so the totals do not depend on how the sinks split them, and the policy's
 * reschedulings (execution cost accrued per controller, optimizer times).
 */
final class RunSummary {
    private RunSummary() {}

    /** The job metrics of {@code policy} in the part files, folded in (time, job) order. */
    static JobsTally jobs(Path parts, String policy) throws IOException {
        return PartFileMerger.inOrder(
                PartFileMerger.partFiles(parts, FileJobSinks.JOB_METRICS),
                line -> {
                    JobLine m = new JobLine();
                    fields(line, m);
                    if (!policy.equals(m.policy)) return null;
                    return new Keyed(m.time, 0, 0, m.job, line, m);
                },
                JobsTally::new);
    }

    /** The scheduling metrics of {@code policy} in the part files. */
    static SchedulingTally scheduling(Path parts, String policy) throws IOException {
        SchedulingTally scheduling = new SchedulingTally(policy);
        for (Path f : PartFileMerger.partFiles(parts, FileJobSinks.SCHEDULING_METRICS))
            JsonLines.forEachLine(f, (line, number) -> scheduling.add(line));
        return scheduling;
    }

    /** What the run summary needs from the job metrics, folded in (time, job) order. */
    static final class JobsTally implements Ordered<JobsTally> {
        long completed, tardy, preemptions, migrations, resizes;
        /** Most moves (preemptions + migrations + resizes) of one completed job. */
        long maxMoves;

        double tardiness, jct;
        double lastCompletion = Double.NEGATIVE_INFINITY;

        @Override
        public void accept(Keyed k) {
            JobLine j = (JobLine) k.parsed();
            completed++;
            tardiness += j.tardinessCost;
            if (j.tardinessSeconds > 0) tardy++;
            jct += j.jctSeconds;
            lastCompletion = Math.max(lastCompletion, j.time);
            preemptions += j.preemptions;
            migrations += j.migrations;
            resizes += j.resizes;
            maxMoves = Math.max(maxMoves, (long) j.preemptions + j.migrations + j.resizes);
        }

        @Override
        public JobsTally result() {
            return this;
        }
    }

    /** The policy's reschedulings: execution cost accrued per controller and optimizer times. */
    static final class SchedulingTally implements FieldReader {
        final String policy;
        final Map<Integer, Double> executionByController = new HashMap<>();
        long reschedulings;
        /** Reschedulings whose optimizer call was under deadline pressure (SchedulingMetrics.deadlinePressure). */
        long callsUnderPressure;

        long[] nanos = new long[1024];
        int nanosCount;
        private String linePolicy;
        private int controller;
        private double accruedExecutionCost;
        private long optimizerNanos;
        private boolean deadlinePressure;

        SchedulingTally(String policy) {
            this.policy = policy;
        }

        void add(String line) throws IOException {
            linePolicy = null;
            deadlinePressure = false; // absent in records written before the field
            fields(line, this);
            if (!policy.equals(linePolicy)) return;
            reschedulings++;
            executionByController.merge(controller, accruedExecutionCost, Math::max);
            if (deadlinePressure) callsUnderPressure++;
            if (optimizerNanos <= 0) return;
            if (nanosCount == nanos.length) nanos = Arrays.copyOf(nanos, nanosCount * 2);
            nanos[nanosCount++] = optimizerNanos;
        }

        @Override
        public void field(String name, JsonParser p) throws IOException {
            switch (name) {
                case "policy" -> linePolicy = p.getValueAsString();
                case "controller" -> controller = p.getValueAsInt();
                case "accruedExecutionCost" -> accruedExecutionCost = p.getValueAsDouble();
                case "optimizerNanos" -> optimizerNanos = p.getValueAsLong();
                case "deadlinePressure" -> deadlinePressure = p.getValueAsBoolean();
                default -> {}
            }
        }
    }

    /** The fields of a job-metrics line that the summary reads. */
    private static final class JobLine implements FieldReader {
        String policy, job;
        double time, tardinessCost, tardinessSeconds, jctSeconds;
        long preemptions, migrations, resizes;

        @Override
        public void field(String name, JsonParser p) throws IOException {
            switch (name) {
                case "policy" -> policy = p.getValueAsString();
                case "job" -> job = p.getValueAsString();
                case "time" -> time = p.getValueAsDouble();
                case "tardinessCost" -> tardinessCost = p.getValueAsDouble();
                case "tardinessSeconds" -> tardinessSeconds = p.getValueAsDouble();
                case "jctSeconds" -> jctSeconds = p.getValueAsDouble();
                case "preemptions" -> preemptions = p.getValueAsLong();
                case "migrations" -> migrations = p.getValueAsLong();
                case "resizes" -> resizes = p.getValueAsLong();
                default -> {}
            }
        }
    }

    static Summary summarize(
            String policy, Lines accepted, JobsTally jobs, long decisions, SchedulingTally scheduling, long rejected) {
        double execution = scheduling.executionByController.values().stream()
                .mapToDouble(Double::doubleValue)
                .sum();
        double firstSubmit = accepted.count() == 0 ? 0 : accepted.firstTime(); // jobs.jsonl is in submission order
        long[] nanos = Arrays.copyOf(scheduling.nanos, scheduling.nanosCount);
        Arrays.sort(nanos);
        boolean none = jobs.completed == 0;
        return new Summary(
                policy,
                execution + jobs.tardiness,
                execution,
                jobs.tardiness,
                jobs.tardy,
                jobs.completed,
                accepted.count(),
                none ? 0 : jobs.jct / jobs.completed,
                none ? 0 : jobs.lastCompletion - firstSubmit,
                percentile(nanos, 0.5) / 1e6,
                percentile(nanos, 0.99) / 1e6,
                scheduling.reschedulings,
                scheduling.nanosCount,
                scheduling.callsUnderPressure,
                decisions,
                rejected);
    }

    /** Nearest-rank percentile of sorted values, 0 when empty. */
    static double percentile(long[] sorted, double q) {
        if (sorted.length == 0) return 0;
        int rank = (int) Math.ceil(q * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    static Map<String, Object> metricsJson(Summary s, JobsTally jobs) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("policy", s.policy());
        m.put("totalCost", s.totalCost());
        m.put("executionCost", s.executionCost());
        m.put("tardinessCost", s.tardinessCost());
        m.put("tardyJobs", s.tardyJobs());
        m.put("completedJobs", s.completedJobs());
        m.put("acceptedJobs", s.acceptedJobs());
        m.put("unfinishedJobs", s.acceptedJobs() - s.completedJobs());
        m.put("meanJctSeconds", s.meanJctSeconds());
        m.put("makespanSeconds", s.makespanSeconds());
        m.put("optimizerMedianMs", s.optimizerMedianMs());
        m.put("optimizerP99Ms", s.optimizerP99Ms());
        m.put("reschedulings", s.reschedulings());
        m.put("optimizerCalls", s.optimizerCalls());
        m.put("callsUnderPressure", s.callsUnderPressure());
        m.put("decisions", s.decisions());
        m.put("preemptions", jobs.preemptions);
        m.put("migrations", jobs.migrations);
        m.put("resizes", jobs.resizes);
        m.put(
                "movesPerJob",
                jobs.completed == 0
                        ? 0.0
                        : (double) (jobs.preemptions + jobs.migrations + jobs.resizes) / jobs.completed);
        m.put("maxMovesPerJob", jobs.maxMoves);
        m.put("rejected", s.rejected());
        return m;
    }
}
