package org.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The PowerFlow commands end to end through the command line: {@code generate --scenario powerflow-random}, {@code
 * compare} with the PowerFlow policies, {@code report} and {@code validate} on their directories, and bad input.
 */
class PowerflowCommandsIT {
    @TempDir
    static Path tmp;

    static Path trace;

    @BeforeAll
    static void generate() throws Exception {
        Path dir = tmp.resolve("trace");
        var g = WorkloadCommandsTest.gpusched(
                "generate",
                "--scenario",
                "powerflow-random",
                "--jobs",
                "10",
                "--mean-gap",
                "300",
                "--job-size",
                "small",
                "--seed",
                "3",
                "--out",
                dir.toString());
        assertEquals(0, g.exit(), g.err());
        trace = dir.resolve("trace.jsonl");
        List<String> lines = nonBlank(trace);
        assertEquals(10, lines.size());
        for (String l : lines)
            assertTrue(
                    l.matches("\\{\"id\":\\d+,\"submit\":[0-9.E]+,\"workload\":\"[a-z0-9_-]+\",\"batch\":[0-9.]+,"
                            + "\"gpus\":[12],\"iterations\":[0-9.]+}"),
                    l);
        assertTrue(g.out().contains("powerflow-random") && g.out().contains("GPU-hours at full clock"), g.out());
    }

    @Test
    void compareTakesTheLeastEnergyStartAndTheTimeSlicedGandivaAndSaysSoInTheSetup() throws Exception {
        Path out = tmp.resolve("compare-readings");
        var r = WorkloadCommandsTest.gpusched(
                "compare",
                "--trace",
                trace.toString(),
                "--policies",
                "powerflow,gandiva",
                "--gpus",
                "8",
                "--eta",
                "0.3",
                "--limits",
                "250",
                "--start-limit",
                "least-energy",
                "--gandiva-quantum",
                "60",
                "--gandiva-resume",
                "5",
                "--out",
                out.toString());
        assertEquals(0, r.exit(), r.out() + r.err());
        String setup = Files.readString(out.resolve("setup.json"));
        assertTrue(setup.contains("\"startLimit\":\"least-energy\""), setup);
        assertTrue(setup.contains("\"gandiva@250\":{\"quantumSeconds\":60.0,\"resumeSeconds\":5.0}"), setup);

        var bad = WorkloadCommandsTest.gpusched(
                "compare",
                "--trace",
                trace.toString(),
                "--policies",
                "gandiva",
                "--gandiva-quantum",
                "60",
                "--gandiva-resume",
                "60",
                "--out",
                tmp.resolve("compare-bad").toString());
        assertEquals(2, bad.exit(), bad.out() + bad.err());
        assertTrue(bad.err().contains("shorter than the quantum"), bad.err());
    }

    @Test
    void compareRunsPowerflowAndTheBaselinesOnOneTraceWithReportAndACleanAudit() throws Exception {
        Path out = tmp.resolve("compare");
        List<String> args = List.of(
                "--trace",
                trace.toString(),
                "--policies",
                "powerflow,tiresias,afs,gandiva+zeus",
                "--gpus",
                "16",
                "--eta",
                "0.3,1.0",
                "--limits",
                "150,250");
        var r = WorkloadCommandsTest.gpusched(concat(List.of("compare"), args, List.of("--out", out.toString())));
        assertEquals(0, r.exit(), r.out() + r.err());
        List<String> results = nonBlank(out.resolve("results.csv"));
        List<String> runs = results.stream().skip(1).map(l -> l.split(",")[0]).toList();
        assertEquals(
                List.of(
                        "powerflow@eta0.30",
                        "powerflow@eta1.00",
                        "tiresias@150",
                        "tiresias@250",
                        "afs@150",
                        "afs@250",
                        "gandiva+zeus"),
                runs);
        for (String line : results.subList(1, results.size())) {
            String[] f = line.split(",");
            List<String> jobs = nonBlank(out.resolve("jobs-" + f[0] + ".csv"));
            assertEquals(11, jobs.size(), f[0] + ": every job finished");
            double jct = jobs.stream()
                    .skip(1)
                    .mapToDouble(l -> Double.parseDouble(l.split(",")[4]))
                    .average()
                    .orElseThrow();
            assertEquals(jct, Double.parseDouble(f[4]), 1e-3, f[0] + ": mean JCT is the mean of its jobs'");
        }

        String html = Files.readString(out.resolve("report.html"));
        assertEquals(3, html.split("<svg", -1).length - 1, "three charts");
        for (String title : List.of("Mean JCT against total energy", "GPUs allocated over time", "Cluster power"))
            assertTrue(html.contains(title), title);
        for (String run : runs) assertTrue(html.contains("<td>" + run + "</td>"), run + " in the run table");
        String audit = Files.readString(out.resolve("audit.txt"));
        for (String run : runs) assertTrue(audit.contains("== " + run + "\n"), run + " audited");
        assertFalse(r.out().contains("violations"), r.out());
        assertEquals(runs.size(), r.out().split(" clean", -1).length - 1, r.out());

        // The same stream as `gpusched powerflow` with the same seed: identical runs.
        Path direct = tmp.resolve("direct");
        var p = WorkloadCommandsTest.gpusched(concat(List.of("powerflow"), args, List.of("--out", direct.toString())));
        assertEquals(0, p.exit(), p.err());
        assertEquals(nonBlank(direct.resolve("results.csv")), results);
        assertEquals(
                Files.readString(direct.resolve("decisions-afs@150.csv")),
                Files.readString(out.resolve("decisions-afs@150.csv")));

        // validate and report read the compare directory as a PowerFlow run directory.
        var v = WorkloadCommandsTest.gpusched("validate", out.toString());
        assertEquals(0, v.exit(), v.out() + v.err());
        assertEquals(runs.size(), v.out().split("== ", -1).length - 1, v.out());
        var rep = WorkloadCommandsTest.gpusched(
                "report", out.toString(), "--out", tmp.resolve("report").toString());
        assertEquals(0, rep.exit(), rep.err());
        assertTrue(rep.out().contains("(7 PowerFlow runs)"), rep.out());
    }

    @Test
    void compareWithSeveralSeedsWritesADirectoryPerSeedThatDiffer() throws Exception {
        Path out = tmp.resolve("seeds");
        var r = WorkloadCommandsTest.gpusched(
                "compare",
                "--trace",
                trace.toString(),
                "--policies",
                "powerflow,gandiva",
                "--gpus",
                "16",
                "--eta",
                "0.5",
                "--limits",
                "250",
                "--seeds",
                "1,2",
                "--out",
                out.toString());
        assertEquals(0, r.exit(), r.out() + r.err());
        for (String s : List.of("seed-1", "seed-2")) {
            assertTrue(Files.isRegularFile(out.resolve(s).resolve("report.html")), s);
            assertTrue(Files.isRegularFile(out.resolve(s).resolve("audit.txt")), s);
        }
        assertFalse(
                Files.readString(out.resolve("seed-1/results.csv"))
                        .equals(Files.readString(out.resolve("seed-2/results.csv"))),
                "the seed draws the telemetry noise, so the fitted models and the JCTs differ");
    }

    @Test
    void compareRefusesAMixOfPowerflowAndSchedulingPoliciesAndABadTraceLine() throws Exception {
        var mixed = WorkloadCommandsTest.gpusched(
                "compare",
                "--trace",
                trace.toString(),
                "--policies",
                "powerflow,fifo",
                "--out",
                tmp.resolve("mixed").toString());
        assertEquals(ExitCode.BAD_INPUT, mixed.exit());
        assertTrue(
                mixed.err().contains("powerflow: PowerFlow policies")
                        && mixed.err().contains("fifo"),
                mixed.err());
        assertFalse(mixed.err().contains("Exception"), mixed.err());
        assertFalse(Files.exists(tmp.resolve("mixed")));

        Path bad = tmp.resolve("bad.jsonl");
        List<String> lines = new ArrayList<>(nonBlank(trace));
        lines.set(2, lines.get(2).replaceFirst("\"gpus\":\\d+", "\"gpus\":\"two\""));
        Files.write(bad, lines);
        var b = WorkloadCommandsTest.gpusched(
                "compare",
                "--trace",
                bad.toString(),
                "--policies",
                "powerflow",
                "--gpus",
                "16",
                "--out",
                tmp.resolve("bad").toString());
        assertEquals(ExitCode.BAD_INPUT, b.exit(), b.err());
        assertTrue(b.err().startsWith("gpusched compare: " + bad + ":3: "), b.err());
        assertEquals(1, b.err().strip().lines().count(), "one line: " + b.err());
        assertFalse(Files.exists(tmp.resolve("bad")));

        var unknown = WorkloadCommandsTest.gpusched(
                "compare",
                "--trace",
                trace.toString(),
                "--policies",
                "powerflow",
                "--gpus",
                "12",
                "--out",
                tmp.resolve("g").toString());
        assertEquals(ExitCode.BAD_INPUT, unknown.exit());
        assertTrue(unknown.err().contains("--gpus must be a positive multiple of 8, got 12"), unknown.err());
    }

    @Test
    void replayPowerflowWritesTheEnergyAccountingThatValidateRecomputesAndATamperedTotalIsAFinding() throws Exception {
        Path dir = tmp.resolve("replay");
        var r = WorkloadCommandsTest.gpusched(
                "replay",
                "--policy",
                "powerflow",
                "--trace",
                trace.toString(),
                "--gpus",
                "16",
                "--eta",
                "0.5",
                "--seed",
                "3",
                "--out",
                dir.toString());
        assertEquals(0, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains("10 jobs: mean JCT") && r.out().contains("audit: gpusched validate"), r.out());
        var clean = WorkloadCommandsTest.gpusched("validate", dir.toString());
        assertEquals(0, clean.exit(), clean.out() + clean.err());
        assertTrue(
                clean.out().contains("== powerflow@eta0.50") && clean.out().contains("OK: no violation"), clean.out());

        Path results = dir.resolve("results.csv");
        List<String> rows = new ArrayList<>(Files.readAllLines(results));
        String[] f = rows.get(1).split(",", -1);
        f[6] = String.valueOf(Double.parseDouble(f[6]) + 0.5); // idle_kwh
        rows.set(1, String.join(",", f));
        Files.write(results, rows);
        var tampered = WorkloadCommandsTest.gpusched("validate", dir.toString());
        assertEquals(ExitCode.FINDINGS, tampered.exit(), tampered.out() + tampered.err());
        assertTrue(tampered.out().contains("idleKWh: reported"), tampered.out());
    }

    @Test
    void validateAndReportOnAPowerflowDirectoryNameTheFileAndLineOfHostileInputAndFindAChangedDecision()
            throws Exception {
        Path dir = tmp.resolve("run");
        var p = WorkloadCommandsTest.gpusched(
                "powerflow",
                "--trace",
                trace.toString(),
                "--policies",
                "powerflow,afs",
                "--gpus",
                "16",
                "--eta",
                "0.5",
                "--limits",
                "250",
                "--out",
                dir.toString());
        assertEquals(0, p.exit(), p.err());
        var clean = WorkloadCommandsTest.gpusched("validate", dir.toString());
        assertEquals(0, clean.exit(), clean.out() + clean.err());

        Path decisions = dir.resolve("decisions-afs@250.csv");
        List<String> original = Files.readAllLines(decisions);
        List<String> lines = new ArrayList<>(original);
        String[] f = lines.get(2).split(",");
        lines.set(2, f[0] + "," + f[1] + ",two," + f[3]);
        Files.write(decisions, lines);
        var bad = WorkloadCommandsTest.gpusched("validate", dir.toString());
        assertEquals(ExitCode.BAD_INPUT, bad.exit(), bad.out() + bad.err());
        assertTrue(bad.err().contains("decisions-afs@250.csv:3: field 'gpus' is not a number: 'two'"), bad.err());
        assertFalse(bad.err().contains("Exception"), bad.err());

        // A valid but different GPU count: the energy replay no longer matches what the run reported.
        int gpus = Integer.parseInt(f[2]);
        lines.set(2, f[0] + "," + f[1] + "," + (gpus <= 1 ? gpus + 1 : gpus / 2) + "," + f[3]);
        Files.write(decisions, lines);
        var changed = WorkloadCommandsTest.gpusched("validate", dir.toString());
        assertEquals(ExitCode.FINDINGS, changed.exit(), changed.out() + changed.err());
        Files.write(decisions, original);

        Path results = dir.resolve("results.csv");
        List<String> rows = new ArrayList<>(Files.readAllLines(results));
        rows.set(1, rows.get(1).replaceFirst("^([^,]*,[^,]*,[^,]*,[^,]*,)[^,]*", "$1slow"));
        Files.write(results, rows);
        var report = WorkloadCommandsTest.gpusched(
                "report", dir.toString(), "--out", tmp.resolve("r2").toString());
        assertEquals(ExitCode.BAD_INPUT, report.exit(), report.out() + report.err());
        assertTrue(report.err().contains("results.csv:2"), report.err());
        assertTrue(report.err().contains("mean_jct_s"), report.err());
        assertEquals(1, report.err().strip().lines().count(), report.err());

        var size = WorkloadCommandsTest.gpusched(
                "generate",
                "--scenario",
                "powerflow-random",
                "--job-size",
                "huge",
                "--out",
                tmp.resolve("huge").toString());
        assertEquals(ExitCode.BAD_INPUT, size.exit());
        assertEquals(
                "gpusched generate: job size 'huge' is not small, medium or large",
                size.err().strip());
    }

    static List<String> nonBlank(Path file) throws Exception {
        return Files.readAllLines(file).stream().filter(l -> !l.isBlank()).toList();
    }

    @SafeVarargs
    static String[] concat(List<String>... parts) {
        List<String> all = new ArrayList<>();
        for (List<String> p : parts) all.addAll(p);
        return all.toArray(String[]::new);
    }

    /**
     * {@code --models truth-profiled}: profiled as a fitted run (the pre-run's energy booked) with the ground truth
     * decided on; the directory says so and validates. Unknown sources and two truth flags are refused in one line.
     */
    @Test
    void theModelSourcesSplitProfilingFromModelErrorAndBadOnesAreRefused() throws Exception {
        Map<String, List<String>> results = new HashMap<>();
        for (String models : List.of("fitted", "truth", "truth-profiled")) {
            Path out = tmp.resolve("models-" + models);
            var r = WorkloadCommandsTest.gpusched(
                    "powerflow",
                    "--trace",
                    trace.toString(),
                    "--gpus",
                    "16",
                    "--eta",
                    "0.5",
                    "--policies",
                    "powerflow",
                    "--models",
                    models,
                    "--out",
                    out.toString());
            assertEquals(0, r.exit(), r.out() + r.err());
            assertTrue(Files.readString(out.resolve("setup.json")).contains("\"models\":\"" + models + "\""));
            var v = WorkloadCommandsTest.gpusched("validate", out.toString());
            assertEquals(0, v.exit(), v.out() + v.err());
            results.put(
                    models, List.of(nonBlank(out.resolve("results.csv")).get(1).split(",")));
        }
        // columns: run, family, setting, jobs, mean_jct_s, energy_kwh, idle_kwh, makespan_s, refits, profiled,
        // prerun_kwh
        assertEquals("false", results.get("truth").get(9));
        assertEquals("true", results.get("truth-profiled").get(9));
        assertEquals(
                results.get("fitted").get(10), results.get("truth-profiled").get(10), "the same pre-run booked");
        assertTrue(
                Double.parseDouble(results.get("truth-profiled").get(4))
                        > Double.parseDouble(results.get("truth").get(4)),
                "profiling costs JCT");

        var unknown = WorkloadCommandsTest.gpusched(
                "powerflow",
                "--trace",
                trace.toString(),
                "--models",
                "oracle",
                "--out",
                tmp.resolve("u").toString());
        assertEquals(ExitCode.BAD_INPUT, unknown.exit());
        assertEquals(
                "gpusched powerflow: --models: not a model source: oracle (fitted, truth or truth-profiled)",
                unknown.err().strip());
        var both = WorkloadCommandsTest.gpusched(
                "powerflow",
                "--trace",
                trace.toString(),
                "--truth-models",
                "--models",
                "truth-profiled",
                "--out",
                tmp.resolve("b").toString());
        assertEquals(ExitCode.BAD_INPUT, both.exit());
        assertTrue(both.err().contains("--truth-models is --models truth; give one of them"), both.err());
        assertFalse(Files.exists(tmp.resolve("u")) || Files.exists(tmp.resolve("b")));
    }
}
