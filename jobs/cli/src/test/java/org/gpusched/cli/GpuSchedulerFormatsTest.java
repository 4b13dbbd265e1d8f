package org.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code export gpuscheduler} and {@code cost} on a hand-built run directory whose costs are known by hand, on a
 * schedule CSV written by their Greedy (their SMALL_SYSTEM build on the converter's sample instance, test resource),
 * and on hostile input; the lower bound beside the cost in {@code cost} and {@code report}.
 */
class GpuSchedulerFormatsTest {
    static final Path THEIR_GREEDY = Path.of("src/test/resources/gpuscheduler/instance-3-nodes-Greedy_schedule.csv");

    @TempDir
    Path tmp;

    /**
     * One node n1 of type V (2 GPUs, 2 $/h whole). A (submit 0, due 3000, 3.6 $/h late, 3600 s on 1 GPU) starts at 0;
     * B (submit 1800, due 9000) starts at 1800 beside it; A completes at 3600 (600 s late: 0.6 $), B at 5400.
     * n1 hosts a job from 0 to 5400 s: 1.5 h x 2 $/h = 3 $.
     */
    Path handBuiltRun() throws Exception {
        Path run = Files.createDirectories(tmp.resolve("run"));
        Files.writeString(
                run.resolve("run.json"),
                "{\"nodes\":[{\"id\":\"n1\",\"type\":null}],\"nodeTypes\":{\"V\":{\"gpuModel\":\"M60\",\"gpus\":2,\"costPerHour\":[2,2,2]}}}");
        Files.writeString(run.resolve("jobs.jsonl"), """
                {"id":"A","submit":0,"due":3000,"weight":3.6,"times":{"V":{"1":3600,"2":2000}},"application":"alexnet","actualFactor":1.0}
                {"id":"B","submit":1800,"due":9000,"weight":1.0,"times":{"V":{"1":3600}}}
                """);
        Files.writeString(run.resolve("decisions.jsonl"), """
                {"time":0.0,"job":"A","action":"START","node":"n1","type":"V","gpus":1}
                {"time":1800.0,"job":"B","action":"START","node":"n1","type":"V","gpus":1}
                {"time":3600.0,"job":"A","action":"COMPLETE","node":"n1","type":"V","gpus":1}
                {"time":5400.0,"job":"B","action":"COMPLETE","node":"n1","type":"V","gpus":1}
                """);
        Files.writeString(run.resolve("metrics.json"), "{}");
        return run;
    }

    @Test
    void exportWritesOneRowPerJobPerStepInTheirLayout() throws Exception {
        Path csv = tmp.resolve("out/schedule.csv");
        var r = WorkloadCommandsTest.gpusched(
                "export", "gpuscheduler", "--run", handBuiltRun().toString(), "--out", csv.toString());
        assertEquals(0, r.exit(), r.err());
        List<String> lines = Files.readAllLines(csv);
        assertEquals(String.join(",", GpuSchedulerScheduleCsv.COLUMNS), lines.get(0));
        List<GpuSchedulerScheduleCsv.Row> rows = GpuSchedulerScheduleCsv.readAll(csv);
        List<String> steps = new ArrayList<>();
        for (var row : rows)
            steps.add(row.iteration() + ":" + row.job() + "@" + row.simTime() + " " + row.completionPercent() + "% "
                    + row.node() + " " + row.vmType() + "x" + row.gpus());
        assertEquals(
                List.of(
                        "1:A@1800.0 50.0% n1 Vx1",
                        "2:A@3600.0 100.0% n1 Vx1", "2:B@3600.0 50.0% n1 Vx1", "3:B@5400.0 100.0% n1 Vx1"),
                steps);
        var aDone = rows.get(1);
        assertEquals(3600, aDone.finishTime());
        assertEquals(600, aDone.tardiness(), 1e-9);
        assertEquals(0.6, aDone.tardinessCost(), 1e-12);
        assertEquals(1.0 / 3600 * 3.6, aDone.weightPerSecond(), 1e-15);
        // two jobs share n1 in step 2: each row carries half the VM's cost for the 1800 s
        assertEquals(0.5, rows.get(2).vmCost(), 1e-12);
        assertEquals("alexnet", aDone.application());
        assertEquals("M60", aDone.gpuType());
        assertTrue(r.out().contains("common-rule cost 3.6000"), r.out());
    }

    @Test
    void costPricesARunAndItsExportAlikeUnderTheCommonRule() throws Exception {
        Path run = handBuiltRun();
        Path csv = tmp.resolve("schedule.csv");
        assertEquals(
                0,
                WorkloadCommandsTest.gpusched(
                                "export", "gpuscheduler", "--run", run.toString(), "--out", csv.toString())
                        .exit());
        var r = WorkloadCommandsTest.gpusched("cost", "--csv", run.toString(), csv.toString());
        assertEquals(0, r.exit(), r.err());
        List<String> lines = r.out().lines().toList();
        assertEquals(
                "schedule,total,nodeCost,tardinessCost,nodeHours,jobs,tardyJobs,unfinishedJobs,steps,lowerBound,overBoundPercent",
                lines.get(0));
        // lower bound: V costs 1 $ per busy GPU-hour. A's cheapest share, 1 GPU for 1 h (1 $), ends 600 s after its
        // due date (+0.6 $); on 2 GPUs it takes 2000 s (1.11 $). Run 5/8 of its work on 1 GPU and 3/8 on 2, it ends
        // at 3000 s, on time, for 1.11 - 0.625 x 0.11 = 1.0417 $. B's is 1 GPU for 1 h, on time: 2.0417 $ in all,
        // and 3.6 is 76.33% above it. The CSV's bound needs --instance: blank.
        assertEquals(run + ",3.600000,3.000000,0.600000,1.500000,2,1,0,3,2.041667,76.3265", lines.get(1));
        assertEquals(csv + ",3.600000,3.000000,0.600000,1.500000,2,1,0,3,,", lines.get(2));

        var mix = WorkloadCommandsTest.gpusched("cost", "--csv", "--by-vm", THEIR_GREEDY.toString());
        assertEquals(0, mix.exit(), mix.err());
        // their Greedy leased NC6 for one step (JJ1 at iteration 2) and NV24 otherwise; the per-VM costs sum to the
        // total
        var vmRows = mix.out().lines().filter(l -> l.contains("#")).toList();
        assertEquals(2, vmRows.size(), mix.out());
        double sum = 0;
        for (String l : vmRows) sum += Double.parseDouble(l.split(",")[2]);
        assertEquals(CommonRuleCost.of(THEIR_GREEDY).nodeCost(), sum, 1e-5);
        assertTrue(vmRows.get(0).contains("#NC6,") && vmRows.get(1).contains("#NV24,"), mix.out());
    }

    /**
     * Moves charged (snapshots every 300 s, 100 s to restore): nodes n1 and n2 of type V (2 GPUs, 2 $/h whole). A
     * (due 1000, 3.6 $/h late, 1000 s on 1 GPU) starts on n1 at 0 and migrates to n2 at 500, losing the 200 s since
     * its snapshot at 300 (30% done) and restoring until 600; it completes at 600 + 700 = 1300, 300 s late (0.3 $).
     * B (submit 1100, 3600 s on 1 GPU) runs on n1 from 1100 to 4700. Node cost: n1 0..500 and 1100..4700, n2
     * 500..1300, 4900 s at 2 $/h. Free-move bookkeeping would have A done (110%) at 1100 and its lateness dropped.
     */
    @Test
    void movesChargedKeepAJobUnfinishedUntilItsCompleteAndItsLatenessPriced() throws Exception {
        Path run = Files.createDirectories(tmp.resolve("charged"));
        Files.writeString(
                run.resolve("run.json"),
                "{\"moveCost\":{\"snapshotIntervalSeconds\":300.0,\"restartOverheadSeconds\":100.0},"
                        + "\"nodes\":[{\"id\":\"n1\",\"type\":null},{\"id\":\"n2\",\"type\":null}],"
                        + "\"nodeTypes\":{\"V\":{\"gpuModel\":\"M60\",\"gpus\":2,\"costPerHour\":[2,2,2]}}}");
        Files.writeString(run.resolve("jobs.jsonl"), """
                {"id":"A","submit":0,"due":1000,"weight":3.6,"times":{"V":{"1":1000}}}
                {"id":"B","submit":1100,"due":9000,"weight":1.0,"times":{"V":{"1":3600}}}
                """);
        Files.writeString(run.resolve("decisions.jsonl"), """
                {"time":0.0,"job":"A","action":"START","node":"n1","type":"V","gpus":1}
                {"time":500.0,"job":"A","action":"MIGRATE","node":"n2","type":"V","gpus":1}
                {"time":1100.0,"job":"B","action":"START","node":"n1","type":"V","gpus":1}
                {"time":1300.0,"job":"A","action":"COMPLETE","node":"n2","type":"V","gpus":1}
                {"time":4700.0,"job":"B","action":"COMPLETE","node":"n1","type":"V","gpus":1}
                """);
        Files.writeString(run.resolve("metrics.json"), "{}");
        Path csv = tmp.resolve("charged.csv");
        var e = WorkloadCommandsTest.gpusched(
                "export", "gpuscheduler", "--run", run.toString(), "--out", csv.toString());
        assertEquals(0, e.exit(), e.err());
        List<String> a = new ArrayList<>();
        for (var row : GpuSchedulerScheduleCsv.readAll(csv))
            if (row.job().equals("A"))
                a.add(row.simTime() + " " + Math.round(row.completionPercent() * 1e6) / 1e6 + "% " + row.node() + " "
                        + row.finishTime());
        assertEquals(List.of("500.0 50.0% n1 0.0", "1100.0 80.0% n2 0.0", "1300.0 100.0% n2 1300.0"), a);
        for (Path schedule : List.of(run, csv)) {
            var t = CommonRuleCost.of(schedule);
            assertEquals(0, t.unfinishedJobs(), schedule.toString());
            assertEquals(1, t.tardyJobs(), schedule.toString());
            assertEquals(0.3, t.tardinessCost(), 1e-12, schedule.toString());
            assertEquals(4900.0 / 3600 * 2, t.nodeCost(), 1e-12, schedule.toString());
        }
    }

    /**
     * Their Greedy's schedule of the sample instance against the instance's lower bound: every job's cheapest share is
     * one of NV24's 4 GPUs (2.48 $/h, 0.62 per GPU-hour; K80 is cheaper per GPU-hour but slower by more), which would
     * be (2 x 7120.3 + 10001.9 + 12030.0) s / 3600 x 0.62 = 6.246931 $ if due dates did not count. On one GPU each
     * job ends late (JJ4 by 9.3 s, the others by 1,900-3,500 s) at 18-51 $ per hour late, so each pays less by
     * running part of its work on two GPUs (JJ1: 3950.11 s, 1.3606 $) to end at its due date: JJ1 5210.38 s after
     * its submission, 39.75% of its work on one GPU, 1.3606 - 0.3975 x (1.3606 - 1.2262) = 1.3072 $; JJ2 1.8267,
     * JJ3 2.2516, JJ4 1.2266. The bound is 6.612078 $ and their 8.11165 is 22.68% above it.
     */
    @Test
    void costPrintsEachScheduleBesideItsInstancesLowerBound() {
        var r = WorkloadCommandsTest.gpusched(
                "cost", "--csv", "--instance", GpuSchedulerRoundTripIT.SAMPLE.toString(), THEIR_GREEDY.toString());
        assertEquals(0, r.exit(), r.err());
        String[] f = r.out().lines().toList().get(1).split(",");
        assertEquals(6.612078, Double.parseDouble(f[9]), 1e-6, r.out());
        assertEquals(22.68, Double.parseDouble(f[10]), 0.01, r.out());

        var text = WorkloadCommandsTest.gpusched("cost", THEIR_GREEDY.toString());
        assertEquals(0, text.exit(), text.err());
        assertTrue(text.out().contains("lower bound") && text.out().contains("over bound"), text.out());
        assertTrue(text.out().contains("a schedule CSV needs --instance DIR"), text.out());
        var withBound = WorkloadCommandsTest.gpusched(
                "cost", "--instance", GpuSchedulerRoundTripIT.SAMPLE.toString(), THEIR_GREEDY.toString());
        assertTrue(withBound.out().contains("6.6121") && withBound.out().contains("+22.68%"), withBound.out());
        assertTrue(!withBound.out().contains("needs --instance"), withBound.out());

        var missing = WorkloadCommandsTest.gpusched(
                "cost", "--instance", tmp.resolve("nowhere").toString(), THEIR_GREEDY.toString());
        assertEquals(2, missing.exit());
        assertTrue(missing.err().startsWith("gpusched cost: " + tmp.resolve("nowhere")), missing.err());
    }

    @Test
    void reportShowsEachRunBesideItsLowerBound() throws Exception {
        Path run = handBuiltRun();
        Files.writeString(run.resolve("metrics.json"), """
                {"totalCost": 3.6, "executionCost": 3.0, "tardinessCost": 0.6, "tardyJobs": 1, "completedJobs": 2}
                """);
        Files.writeString(
                run.resolve("run.json"),
                Files.readString(run.resolve("run.json"))
                        .replace("{\"nodes\"", "{\"policy\":\"greedy\",\"seed\":1,\"nodes\""));
        Path out = tmp.resolve("report");
        var r = WorkloadCommandsTest.gpusched("report", run.toString(), "--out", out.toString());
        assertEquals(0, r.exit(), r.err());
        // the bound of costPricesARunAndItsExportAlikeUnderTheCommonRule: 2.0417 $, the run's 3.6 76.3% above it
        assertTrue(r.out().contains("2.0417") && r.out().contains("+76.3%"), r.out());
        assertTrue(r.out().contains("lower bound: no schedule of the run's jobs costs less"), r.out());
        List<String> csv = Files.readAllLines(out.resolve("comparison.csv"));
        List<String> header = List.of(csv.get(0).split(","));
        String[] row = csv.get(1).split(",", -1);
        assertEquals("2.041667", row[header.indexOf("lowerBound")], csv.get(1));
        assertEquals("76.326531", row[header.indexOf("overBoundPercent")], csv.get(1));
        String html = Files.readString(out.resolve("report.html"));
        assertTrue(html.contains("<th>lower bound</th><th>over bound</th>"), "report.html table header");
        assertTrue(html.contains("<td>3.6000</td><td>2.0417</td><td>+76.3%</td>"), "report.html row");
    }

    private static WorkloadCommandsTest.Run convert(Path instance, Path out) {
        return WorkloadCommandsTest.gpusched(
                "convert", "gpuscheduler", "--instance", instance.toString(), "--out", out.toString());
    }

    /** convert gpuscheduler reads their files by position: another header's names are a note, another file's an error. */
    @Test
    void convertReadsTheirColumnsByPositionAndRefusesAnotherFilesHeader() throws Exception {
        Path instance = Files.createDirectories(tmp.resolve("instance"));
        for (String f : List.of("Lof_Selectjobs.csv", "SelectJobs_times.csv", "tNodes.csv"))
            Files.copy(GpuSchedulerRoundTripIT.SAMPLE.resolve(f), instance.resolve(f));
        Path times = instance.resolve("SelectJobs_times.csv");
        List<String> lines = new ArrayList<>(Files.readAllLines(times));
        lines.set(0, "UniqueJobsID,VMType,GpuType,GpuNumber,max_nGPUs,cost,ExecutionTime");
        Files.write(times, lines);
        var renamed = convert(instance, tmp.resolve("a"));
        assertEquals(0, renamed.exit(), renamed.err());
        assertTrue(renamed.err().startsWith("convert: note: " + times + ":1: the header says"), renamed.err());
        var original = convert(GpuSchedulerRoundTripIT.SAMPLE, tmp.resolve("b"));
        assertEquals(0, original.exit(), original.err());
        assertEquals("", original.err());
        assertEquals(Files.readString(tmp.resolve("b/trace.jsonl")), Files.readString(tmp.resolve("a/trace.jsonl")));
        assertEquals(Files.readString(tmp.resolve("b/cluster.yaml")), Files.readString(tmp.resolve("a/cluster.yaml")));

        lines.set(0, Files.readAllLines(instance.resolve("Lof_Selectjobs.csv")).get(0));
        Files.write(times, lines);
        var wrong = convert(instance, tmp.resolve("c"));
        assertEquals(2, wrong.exit(), wrong.err());
        assertTrue(
                wrong.err().startsWith("gpusched convert: " + times + ":1: this is the header of Lof_Selectjobs.csv"),
                wrong.err());
        assertEquals(1, wrong.err().lines().count(), wrong.err());
    }

    @Test
    void costOfTheirScheduleIsTheTotalTheirCodeReports() {
        // their Greedy printed "total cost: 8.11165; tardiness: 0" for this schedule (sum of VMcost rows)
        var t = CommonRuleCost.of(THEIR_GREEDY);
        assertEquals(8.11165, t.total(), 5e-4);
        assertEquals(0, t.tardinessCost());
        assertEquals(4, t.jobs());
        assertEquals(0, t.unfinishedJobs());
    }

    @Test
    void unfinishedJobsAreCountedNotPriced() throws Exception {
        Path run = handBuiltRun();
        List<String> decisions = Files.readAllLines(run.resolve("decisions.jsonl"));
        Files.write(run.resolve("decisions.jsonl"), decisions.subList(0, 3));
        var t = CommonRuleCost.of(run);
        assertEquals(1, t.unfinishedJobs());
        assertEquals(2 * 1.0, t.nodeCost(), 1e-12); // n1 busy 0..3600 only: B's run is cut at the last event
    }

    @Test
    void hostileInputExitsTwoWithFileAndLine() throws Exception {
        Path run = handBuiltRun();
        Path decisions = run.resolve("decisions.jsonl");
        List<String> good = Files.readAllLines(decisions);
        expectBad(
                decisions,
                good,
                2,
                "{\"time\":1800.0,\"job\":\"Z\",\"action\":\"START\",\"node\":\"n1\",\"type\":\"V\",\"gpus\":1}",
                decisions + ":2: job 'Z' is not in jobs.jsonl",
                run);
        expectBad(
                decisions,
                good,
                2,
                "{\"time\":1800.0,\"job\":\"B\",\"action\":\"START\",\"node\":\"n1\",\"type\":\"V\",\"gpus\":2}",
                decisions + ":2: START of job B needs a node and a (type, gpus) of its times",
                run);
        expectBad(
                decisions,
                good,
                2,
                "{\"time\":1800.0,\"job\":\"B\",\"action\":\"JUMP\"}",
                decisions + ":2: unknown action 'JUMP'",
                run);
        expectBad(
                decisions,
                good,
                3,
                "{\"time\":100.0,\"job\":\"A\",\"action\":\"COMPLETE\"}",
                decisions + ":3: time goes back from 1800.0",
                run);
        expectBad(decisions, good, 2, "{not json", decisions + ":2: not valid JSON", run);
        Files.write(decisions, good);

        Path csv = tmp.resolve("their.csv");
        List<String> theirs = Files.readAllLines(THEIR_GREEDY);
        expectBad(
                csv,
                theirs,
                3,
                theirs.get(2).replace(",74.8085,", ",lots,"),
                csv + ":3: CompletionPercent must be a finite number, got 'lots'",
                csv);
        expectBad(csv, theirs, 3, "1,2,3", csv + ":3: bad CSV row", csv);
        expectBad(
                csv,
                theirs,
                1,
                theirs.get(0).replace("Tardinessweight", "Weight"),
                csv + ":1: missing column 'Tardinessweight'",
                csv);
        expectBad(
                csv,
                theirs,
                5,
                theirs.get(4).replace(",236.74,", ",-236.74,"),
                csv + ":5: ExecutionTime must be >= 0",
                csv);
    }

    private void expectBad(
            Path file, List<String> good, int line, String replacement, String expectedStart, Path schedule)
            throws Exception {
        List<String> lines = new ArrayList<>(good);
        lines.set(line - 1, replacement);
        Files.write(file, lines);
        var r = WorkloadCommandsTest.gpusched("cost", schedule.toString());
        assertEquals(2, r.exit(), r.out() + r.err());
        assertTrue(r.err().startsWith("gpusched cost: " + expectedStart), r.err());
        assertEquals(1, r.err().lines().count(), r.err());
    }

    @Test
    void helpDescribesBothCommands() {
        var export = WorkloadCommandsTest.gpusched("export", "--help");
        assertEquals(0, export.exit());
        assertTrue(export.out().contains("n_iterate") && export.out().contains("--run"), export.out());
        var cost = WorkloadCommandsTest.gpusched("cost", "--help");
        assertEquals(0, cost.exit());
        assertTrue(cost.out().contains("every second it hosts a running job"), cost.out());
        var unknown = WorkloadCommandsTest.gpusched("export", "slurm", "--run", "x", "--out", "y");
        assertEquals(2, unknown.exit());
        assertTrue(unknown.err().contains("unknown export format 'slurm'"), unknown.err());
    }
}
