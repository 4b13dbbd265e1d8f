package org.gpusched.reports;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A run reduced to fixed-size aggregates, so that its charts stay small however many jobs it has: GPUs busy per node
 * type and jobs waiting, each averaged over {@link #BINS} equal time bins; job completion times and hours late as
 * histograms; and how many jobs were moved (migrated, resized, preempted) how many times. Read in one streaming pass
 * over jobs.jsonl and one over decisions.jsonl.
 */
public final class RunTimeline {
    static final int BINS = 240;
    static final int HISTOGRAM_BINS = 40;
    /** Moves per job are counted 0..MAX_MOVES-1, and MAX_MOVES stands for "that many or more". */
    static final int MAX_MOVES = 10;

    static final List<String> MOVES = List.of("MIGRATE", "RESIZE", "PREEMPT");
    private static final JsonFactory JSON = new JsonFactory();

    /** Start of the first bin and width of each, in seconds. */
    public final double start, binSeconds;
    /** Node type -> mean busy GPUs in each bin, in the order types were first used. */
    public final Map<String, double[]> busyGpus;
    /** Mean number of jobs waiting (submitted, not running, not finished) in each bin. */
    public final double[] waiting;
    /** Completion time (hours) of every completed job, and hours late of every tardy one. */
    public final double[] jctHours, lateHours;
    /** Kind (MIGRATE, RESIZE, PREEMPT) -> jobs by number of such moves: index k holds the jobs moved k times. */
    public final Map<String, long[]> jobsByMoves;

    public final long jobs;

    private RunTimeline(
            double start,
            double binSeconds,
            Map<String, double[]> busyGpus,
            double[] waiting,
            double[] jctHours,
            double[] lateHours,
            Map<String, long[]> jobsByMoves,
            long jobs) {
        this.start = start;
        this.binSeconds = binSeconds;
        this.busyGpus = busyGpus;
        this.waiting = waiting;
        this.jctHours = jctHours;
        this.lateHours = lateHours;
        this.jobsByMoves = jobsByMoves;
        this.jobs = jobs;
    }

    /** Middle of bin {@code b}, in hours. */
    public double binHours(int b) {
        return (start + (b + 0.5) * binSeconds) / 3600.0;
    }

    private static final class JobState {
        final double submit, due;
        String type;
        int gpus;
        double since; // start of the current running or waiting stretch
        boolean running, done;
        final int[] moves = new int[MOVES.size()];

        JobState(double submit, double due) {
            this.submit = submit;
            this.due = due;
            this.since = submit;
        }
    }

    /** Stretches of time, kept as parallel arrays, to be spread over the bins once the run's span is known. */
    private static final class Stretches {
        double[] from = new double[256], to = new double[256], weight = new double[256];
        int n;

        void add(double f, double t, double w) {
            if (!(t > f)) return;
            if (n == from.length) {
                from = Arrays.copyOf(from, n * 2);
                to = Arrays.copyOf(to, n * 2);
                weight = Arrays.copyOf(weight, n * 2);
            }
            from[n] = f;
            to[n] = t;
            weight[n++] = w;
        }

        /** Time-weighted mean of the weights in each bin. */
        double[] binned(double start, double binSeconds) {
            double[] sums = new double[BINS];
            for (int i = 0; i < n; i++) {
                int first = Math.max(0, (int) ((from[i] - start) / binSeconds));
                int last = Math.min(BINS - 1, (int) ((to[i] - start) / binSeconds));
                for (int b = first; b <= last; b++) {
                    double lo = Math.max(from[i], start + b * binSeconds),
                            hi = Math.min(to[i], start + (b + 1) * binSeconds);
                    if (hi > lo) sums[b] += weight[i] * (hi - lo);
                }
            }
            for (int b = 0; b < BINS; b++) sums[b] /= binSeconds;
            return sums;
        }
    }

    public static RunTimeline read(Path dir) {
        Map<String, JobState> jobs = readJobs(dir.resolve("jobs.jsonl"));
        double first = jobs.values().stream().mapToDouble(j -> j.submit).min().orElse(0);
        Map<String, Stretches> busy = new LinkedHashMap<>();
        Stretches waiting = new Stretches();
        double[] jct = new double[jobs.size()], late = new double[jobs.size()];
        int completed = 0, tardy = 0;
        double end = first;
        Path decisions = dir.resolve("decisions.jsonl");
        try (Lines in = new Lines(decisions)) {
            for (String line = in.next(); line != null; line = in.next()) {
                Decision d = decision(line, decisions, in.lineNo);
                JobState j = jobs.get(d.job);
                if (j == null)
                    continue; // the audit reports decisions of unknown jobs; a chart has nothing to draw for them
                end = Math.max(end, d.time);
                if (j.running)
                    busy.computeIfAbsent(j.type, k -> new Stretches()).add(j.since, d.time, j.gpus);
                else if (!j.done) waiting.add(j.since, d.time, 1);
                int move = MOVES.indexOf(d.action);
                if (move >= 0) j.moves[move]++;
                switch (d.action) {
                    case "START", "RESIZE", "MIGRATE" -> {
                        j.running = true;
                        if (d.type != null) j.type = d.type;
                        j.gpus = d.gpus;
                        busy.computeIfAbsent(j.type, k -> new Stretches()); // types in the order they were first used
                    }
                    case "COMPLETE" -> {
                        j.running = false;
                        j.done = true;
                        jct[completed++] = (d.time - j.submit) / 3600.0;
                        if (d.time > j.due) late[tardy++] = (d.time - j.due) / 3600.0;
                    }
                    default -> j.running = false; // PREEMPT: waits again
                }
                j.since = d.time;
            }
        }
        for (JobState j : jobs.values()) { // still running or waiting when the run ended
            if (j.running) busy.computeIfAbsent(j.type, k -> new Stretches()).add(j.since, end, j.gpus);
            else if (!j.done) waiting.add(j.since, end, 1);
        }
        double binSeconds = Math.max(end - first, 1e-3) / BINS;
        Map<String, double[]> busyGpus = new LinkedHashMap<>();
        busy.forEach((type, s) -> busyGpus.put(type == null ? "(no type)" : type, s.binned(first, binSeconds)));
        Map<String, long[]> byMoves = new LinkedHashMap<>();
        for (int k = 0; k < MOVES.size(); k++) {
            long[] counts = new long[MAX_MOVES + 1];
            for (JobState j : jobs.values()) counts[Math.min(MAX_MOVES, j.moves[k])]++;
            byMoves.put(MOVES.get(k), counts);
        }
        return new RunTimeline(
                first,
                binSeconds,
                busyGpus,
                waiting.binned(first, binSeconds),
                Arrays.copyOf(jct, completed),
                Arrays.copyOf(late, tardy),
                byMoves,
                jobs.size());
    }

    /** Equal-width histogram of {@code values} over [0, their max]: {lower edges..., counts...} as two arrays. */
    static double[][] histogram(double[] values) {
        double max = 0;
        for (double v : values) max = Math.max(max, v);
        return histogram(values, max);
    }

    /** Equal-width histogram of {@code values} over [0, max] (max: at least the largest value). */
    static double[][] histogram(double[] values, double max) {
        double width = max > 0 ? max / HISTOGRAM_BINS : 1;
        double[] edges = new double[HISTOGRAM_BINS], counts = new double[HISTOGRAM_BINS];
        for (int b = 0; b < HISTOGRAM_BINS; b++) edges[b] = b * width;
        for (double v : values) counts[Math.min(HISTOGRAM_BINS - 1, (int) (v / width))]++;
        return new double[][] {edges, counts};
    }

    private record Decision(double time, String job, String action, String type, int gpus) {}

    /** The fields a chart needs, streamed (a tree per line would cost several times more on large runs). */
    private static Decision decision(String line, Path file, long lineNo) {
        double time = 0;
        String job = null, action = null, type = null;
        int gpus = 1;
        try (JsonParser p = JSON.createParser(line)) {
            if (p.nextToken() != JsonToken.START_OBJECT) throw new IOException("not a JSON object");
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken v = p.nextToken();
                switch (field) {
                    case "time" -> time = p.getValueAsDouble();
                    case "job" -> job = p.getValueAsString();
                    case "action" -> action = p.getValueAsString();
                    case "type" -> type = v == JsonToken.VALUE_NULL ? null : p.getValueAsString();
                    case "gpus" -> gpus = p.getValueAsInt(1);
                    default -> p.skipChildren();
                }
            }
        } catch (IOException e) {
            throw new ReportInputException(file + ":" + lineNo + ": not valid JSON (" + e.getMessage() + ")");
        }
        return new Decision(time, job, action == null ? "" : action, type, gpus);
    }

    private static Map<String, JobState> readJobs(Path file) {
        Map<String, JobState> jobs = new HashMap<>();
        try (Lines in = new Lines(file)) {
            for (String line = in.next(); line != null; line = in.next()) {
                String id = null;
                double submit = 0, due = Double.POSITIVE_INFINITY;
                try (JsonParser p = JSON.createParser(line)) {
                    if (p.nextToken() != JsonToken.START_OBJECT) throw new IOException("not a JSON object");
                    while (p.nextToken() == JsonToken.FIELD_NAME) {
                        String field = p.currentName();
                        p.nextToken();
                        switch (field) {
                            case "id" -> id = p.getValueAsString();
                            case "submit" -> submit = p.getValueAsDouble();
                            case "due" -> due = p.getValueAsDouble();
                            default -> p.skipChildren();
                        }
                    }
                } catch (IOException e) {
                    throw new ReportInputException(
                            file + ":" + in.lineNo + ": not valid JSON (" + e.getMessage() + ")");
                }
                if (id != null) jobs.put(id, new JobState(submit, due));
            }
        }
        return jobs;
    }

    /** The non-blank lines of a file, with their line numbers; a missing or unreadable file is a {@link ReportInputException}. */
    private static final class Lines implements AutoCloseable {
        private final Path file;
        private final BufferedReader in;
        long lineNo;

        Lines(Path file) {
            this.file = file;
            try {
                in = Files.newBufferedReader(file, StandardCharsets.UTF_8);
            } catch (NoSuchFileException e) {
                throw new ReportInputException(file + ": missing");
            } catch (IOException e) {
                throw new ReportInputException(file + ": cannot read (" + e.getMessage() + ")");
            }
        }

        /** The next non-blank line, or null at the end. */
        String next() {
            try {
                String line;
                do {
                    line = in.readLine();
                    lineNo++;
                } while (line != null && line.isBlank());
                return line;
            } catch (IOException e) {
                throw new ReportInputException(file + ":" + lineNo + ": cannot read (" + e.getMessage() + ")");
            }
        }

        @Override
        public void close() {
            try {
                in.close();
            } catch (IOException e) {
                // read-only: nothing was lost
            }
        }
    }
}
