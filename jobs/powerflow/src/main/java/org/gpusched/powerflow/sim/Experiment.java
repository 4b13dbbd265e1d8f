package org.gpusched.powerflow.sim;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.gpusched.powerflow.model.JobModel;
import org.gpusched.powerflow.policy.PowerFlowPolicy;
import org.gpusched.powerflow.policy.TimeSlicing;
import org.gpusched.powerflow.truth.GroundTruth;

/**
 * Runs every policy over one trace on one cluster and writes the run directory:
 * {@code summary.txt} (the table printed), {@code results.csv} and {@code results.json} (one row per run: mean JCT
 * against total energy), {@code equal-energy.csv} (each baseline run against PowerFlow's mean JCT at the same energy,
 * interpolated along its eta curve), {@code figure8.csv} (each family's run closest in energy to gandiva+zeus'),
 * {@code jobs-RUN.csv} (per-job JCT and energy), {@code decisions-RUN.csv} (every
 * change of a job's GPU count or power limit, at its exact time), {@link RunSetup}'s files (setup.json, powerflow.yaml
 * and trace.jsonl: what the audit needs to recompute the energy) and {@code power-RUN.csv} (power,
 * GPUs allocated and nodes on after each decision).
 */
public final class Experiment {
    /** One run's figures. */
    public record Row(
            String run,
            String family,
            double setting,
            int jobs,
            double meanJctSeconds,
            double energyKWh,
            double idleKWh,
            double makespanSeconds,
            int refits,
            boolean profiled,
            double preRunKWh) {}

    /**
     * A baseline run beside PowerFlow at its energy: PowerFlow's mean JCT interpolated along its Pareto front at the
     * baseline's energy ({@code inRange}: the energy lies between the front's ends; outside, the nearest end's JCT),
     * and the paper's sensitivity-section comparison, PowerFlow's best JCT among its runs within 5% of the baseline's
     * energy ({@code comparableRatio}, NaN when none is).
     */
    public record Versus(
            String baseline,
            double energyKWh,
            double baselineJct,
            double powerflowJct,
            double speedup,
            boolean inRange,
            double comparableRatio) {}

    /**
     * Figure 8's choice: for each family, the run whose energy is closest to gandiva+zeus' (the paper picks it for
     * the schedulers not combined with Zeus; PowerFlow's own is here too), with its ratio at equal energy.
     */
    public record Figure8(String family, String run, double energyKWh, double meanJct, double ratio) {}

    private Experiment() {}

    public static List<Row> run(
            GroundTruth truth,
            List<TraceJob> trace,
            int gpus,
            long seed,
            List<PolicySet.Run> runs,
            Path out,
            PrintWriter log)
            throws IOException {
        return run(truth, trace, gpus, seed, ModelSource.FITTED, runs, out, log);
    }

    /** {@code models}: what the policies that read models see ({@link ModelSource}). */
    public static List<Row> run(
            GroundTruth truth,
            List<TraceJob> trace,
            int gpus,
            long seed,
            ModelSource models,
            List<PolicySet.Run> runs,
            Path out,
            PrintWriter log)
            throws IOException {
        Files.createDirectories(out);
        Map<Long, JobModel> fits = new HashMap<>();
        Simulation sim = new Simulation(truth, gpus, seed, fits, models);
        Map<String, TimeSlicing> slicing = new TreeMap<>();
        String startLimit = null;
        for (PolicySet.Run r : runs) {
            if (r.policy().timeSlicing().on())
                slicing.put(runName(r), r.policy().timeSlicing());
            if (r.policy() instanceof PowerFlowPolicy p && startLimit == null)
                startLimit = p.startLimit().label();
        }
        RunSetup.write(out, RunSetup.of(gpus, seed, models, startLimit, slicing), truth.config(), trace);
        List<Row> rows = new ArrayList<>();
        for (PolicySet.Run r : runs) {
            String name = runName(r);
            long t0 = System.nanoTime();
            Simulation.Result res = sim.run(r.policy(), trace);
            Row row = new Row(
                    name,
                    r.family(),
                    r.setting(),
                    res.jobs().size(),
                    res.meanJct(),
                    res.totalEnergyJoules() / 3.6e6,
                    res.idleEnergyJoules() / 3.6e6,
                    res.makespan(),
                    res.refits(),
                    sim.profiles(r.policy()),
                    res.preRunJoules() / 3.6e6);
            rows.add(row);
            if (log != null) {
                log.printf(
                        Locale.ROOT,
                        "%-22s mean JCT %9.1f s  energy %9.1f kWh  (%.1f s)%n",
                        name,
                        row.meanJctSeconds(),
                        row.energyKWh(),
                        (System.nanoTime() - t0) / 1e9);
                log.flush();
            }
            writeJobs(out.resolve("jobs-" + name + ".csv"), res);
            writePower(out.resolve("power-" + name + ".csv"), res);
            writeChanges(out.resolve("decisions-" + name + ".csv"), res);
        }
        List<Versus> versus = versus(rows);
        writeResults(out, rows, versus);
        return rows;
    }

    /**
     * Writes the run directory of one run simulated elsewhere (the streaming replay) in the same files as {@link #run}:
     * the setup the audit needs, the run's jobs, power and decisions, and results.csv, results.json and summary.txt.
     */
    public static void write(
            Path out,
            RunSetup setup,
            org.gpusched.powerflow.truth.PowerflowConfig config,
            List<TraceJob> trace,
            Row row,
            Simulation.Result res)
            throws IOException {
        RunSetup.write(out, setup, config, trace);
        writeJobs(out.resolve("jobs-" + row.run() + ".csv"), res);
        writePower(out.resolve("power-" + row.run() + ".csv"), res);
        writeChanges(out.resolve("decisions-" + row.run() + ".csv"), res);
        writeResults(out, List.of(row), versus(List.of(row)));
    }

    /** The name of a PowerFlow run at {@code eta} in a run directory. */
    private static String runName(PolicySet.Run r) {
        return r.family().equals("powerflow")
                ? powerflowRun(r.setting())
                : r.policy().name();
    }

    public static String powerflowRun(double eta) {
        return String.format(Locale.ROOT, "powerflow@eta%.2f", eta);
    }

    /**
     * PowerFlow's mean JCT at each baseline run's energy, linear between its two nearest eta runs by energy on the
     * Pareto front of its runs (those no other run beats on both energy and JCT).
     */
    public static List<Versus> versus(List<Row> rows) {
        List<Row> pf = new ArrayList<>();
        for (Row r : rows) if (r.family().equals("powerflow")) pf.add(r);
        pf.sort((a, b) -> Double.compare(a.energyKWh(), b.energyKWh()));
        // a budget too small stretches the run until it costs more energy than a larger one: keep the Pareto front
        List<Row> front = new ArrayList<>();
        for (Row r : pf)
            if (front.isEmpty()
                    || r.meanJctSeconds() < front.get(front.size() - 1).meanJctSeconds()) front.add(r);
        pf = front;
        List<Versus> out = new ArrayList<>();
        if (pf.isEmpty()) return out;
        double low = pf.get(0).energyKWh(), high = pf.get(pf.size() - 1).energyKWh();
        for (Row b : rows) {
            if (b.family().equals("powerflow")) continue;
            double e = b.energyKWh();
            boolean in = e >= low && e <= high;
            double comparable = Double.POSITIVE_INFINITY;
            for (Row p : pf)
                if (Math.abs(p.energyKWh() - e) <= 0.05 * e) comparable = Math.min(comparable, p.meanJctSeconds());
            double jct;
            if (e <= low) jct = pf.get(0).meanJctSeconds();
            else if (e >= high) jct = pf.get(pf.size() - 1).meanJctSeconds();
            else {
                int i = 0;
                while (pf.get(i + 1).energyKWh() < e) i++;
                Row lo = pf.get(i), hi = pf.get(i + 1);
                double w = (e - lo.energyKWh()) / (hi.energyKWh() - lo.energyKWh());
                jct = lo.meanJctSeconds() * (1 - w) + hi.meanJctSeconds() * w;
            }
            out.add(new Versus(
                    b.run(),
                    e,
                    b.meanJctSeconds(),
                    jct,
                    b.meanJctSeconds() / jct,
                    in,
                    Double.isInfinite(comparable) ? Double.NaN : b.meanJctSeconds() / comparable));
        }
        return out;
    }

    /** Figure 8's runs ({@link Figure8}); empty without a gandiva+zeus run. */
    public static List<Figure8> figure8(List<Row> rows, List<Versus> versus) {
        Row anchor = rows.stream()
                .filter(r -> r.family().equals("gandiva+zeus"))
                .findFirst()
                .orElse(null);
        List<Figure8> out = new ArrayList<>();
        if (anchor == null) return out;
        Map<String, Row> closest = new LinkedHashMap<>();
        for (Row r : rows) {
            Row c = closest.get(r.family());
            if (c == null
                    || Math.abs(r.energyKWh() - anchor.energyKWh()) < Math.abs(c.energyKWh() - anchor.energyKWh()))
                closest.put(r.family(), r);
        }
        for (Row r : closest.values()) {
            double ratio = Double.NaN;
            for (Versus v : versus) if (v.baseline().equals(r.run())) ratio = v.speedup();
            out.add(new Figure8(r.family(), r.run(), r.energyKWh(), r.meanJctSeconds(), ratio));
        }
        return out;
    }

    public static String table(List<Row> rows, List<Versus> versus) {
        StringBuilder s = new StringBuilder(String.format(
                Locale.ROOT,
                "%-22s %6s %12s %12s %10s %12s %7s%n",
                "run",
                "jobs",
                "mean JCT h",
                "energy kWh",
                "idle kWh",
                "makespan h",
                "refits"));
        for (Row r : rows)
            s.append(String.format(
                    Locale.ROOT,
                    "%-22s %6d %12.3f %12.1f %10.1f %12.2f %7d%n",
                    r.run(),
                    r.jobs(),
                    r.meanJctSeconds() / 3600,
                    r.energyKWh(),
                    r.idleKWh(),
                    r.makespanSeconds() / 3600,
                    r.refits()));
        if (!versus.isEmpty()) {
            s.append(String.format(
                    Locale.ROOT, "%nequal energy: baseline mean JCT / PowerFlow mean JCT at the baseline's energy%n"));
            s.append(String.format(
                    Locale.ROOT,
                    "%-22s %12s %14s %14s %8s %-26s %s%n",
                    "baseline",
                    "energy kWh",
                    "baseline JCT h",
                    "powerflow JCT h",
                    "ratio",
                    "within PowerFlow's range",
                    "ratio to the best run within 5% energy"));
            for (Versus v : versus)
                s.append(String.format(
                        Locale.ROOT,
                        "%-22s %12.1f %14.3f %14.3f %8.2f %-26s %s%n",
                        v.baseline(),
                        v.energyKWh(),
                        v.baselineJct() / 3600,
                        v.powerflowJct() / 3600,
                        v.speedup(),
                        v.inRange() ? "yes" : "no (nearest end's JCT)",
                        Double.isNaN(v.comparableRatio())
                                ? "-"
                                : String.format(Locale.ROOT, "%.2f", v.comparableRatio())));
        }
        return s.toString();
    }

    private static void writeResults(Path out, List<Row> rows, List<Versus> versus) throws IOException {
        Files.writeString(out.resolve("summary.txt"), table(rows, versus));
        try (BufferedWriter w = Files.newBufferedWriter(out.resolve("results.csv"))) {
            w.write("run,family,setting,jobs,mean_jct_s,energy_kwh,idle_kwh,makespan_s,refits,profiled,prerun_kwh\n");
            for (Row r : rows)
                w.write(String.format(
                        Locale.ROOT,
                        "%s,%s,%s,%d,%.3f,%.6f,%.6f,%.3f,%d,%s,%.6f%n",
                        r.run(),
                        r.family(),
                        Double.isNaN(r.setting()) ? "" : String.valueOf(r.setting()),
                        r.jobs(),
                        r.meanJctSeconds(),
                        r.energyKWh(),
                        r.idleKWh(),
                        r.makespanSeconds(),
                        r.refits(),
                        r.profiled(),
                        r.preRunKWh()));
        }
        try (BufferedWriter w = Files.newBufferedWriter(out.resolve("equal-energy.csv"))) {
            w.write("baseline,energy_kwh,baseline_mean_jct_s,powerflow_mean_jct_s,ratio,in_range,ratio_within_5pct\n");
            for (Versus v : versus)
                w.write(String.format(
                        Locale.ROOT,
                        "%s,%.4f,%.3f,%.3f,%.4f,%s,%s%n",
                        v.baseline(),
                        v.energyKWh(),
                        v.baselineJct(),
                        v.powerflowJct(),
                        v.speedup(),
                        v.inRange(),
                        Double.isNaN(v.comparableRatio())
                                ? ""
                                : String.format(Locale.ROOT, "%.4f", v.comparableRatio())));
        }
        List<Figure8> figure8 = figure8(rows, versus);
        if (!figure8.isEmpty())
            try (BufferedWriter w = Files.newBufferedWriter(out.resolve("figure8.csv"))) {
                w.write("family,run,energy_kwh,mean_jct_s,ratio\n");
                for (Figure8 f : figure8)
                    w.write(String.format(
                            Locale.ROOT,
                            "%s,%s,%.4f,%.3f,%s%n",
                            f.family(),
                            f.run(),
                            f.energyKWh(),
                            f.meanJct(),
                            Double.isNaN(f.ratio()) ? "" : String.format(Locale.ROOT, "%.4f", f.ratio())));
            }
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("runs", rows);
        json.put("equalEnergy", versus);
        json.put("figure8", figure8(rows, versus));
        new ObjectMapper()
                .enable(SerializationFeature.INDENT_OUTPUT)
                .writeValue(out.resolve("results.json").toFile(), json);
    }

    private static void writeJobs(Path file, Simulation.Result res) throws IOException {
        try (BufferedWriter w = Files.newBufferedWriter(file)) {
            w.write("id,workload,submit_s,finish_s,jct_s,energy_j\n");
            for (Simulation.JobResult j : res.jobs())
                w.write(String.format(
                        Locale.ROOT,
                        "%d,%s,%.3f,%.6f,%.3f,%.4f%n",
                        j.id(),
                        j.workload(),
                        j.submit(),
                        j.finish(),
                        j.jct(),
                        j.energyJoules()));
        }
    }

    private static void writeChanges(Path file, Simulation.Result res) throws IOException {
        try (BufferedWriter w = Files.newBufferedWriter(file)) {
            w.write("time_s,job,gpus,power_limit_w\n");
            for (Simulation.Change c : res.changes())
                w.write(String.format(
                        Locale.ROOT, "%s,%d,%d,%s%n", exact(c.time()), c.job(), c.gpus(), exact(c.powerLimit())));
        }
    }

    /** Shortest text that reads back as the same double: the audit replays the decisions at their exact times. */
    private static String exact(double v) {
        return Double.toString(v);
    }

    private static void writePower(Path file, Simulation.Result res) throws IOException {
        try (BufferedWriter w = Files.newBufferedWriter(file)) {
            w.write("time_s,watts,gpus_allocated,nodes_on\n");
            for (Simulation.PowerSample p : res.power())
                w.write(String.format(
                        Locale.ROOT, "%s,%.1f,%d,%d%n", exact(p.time()), p.watts(), p.gpusAllocated(), p.nodesOn()));
        }
    }
}
