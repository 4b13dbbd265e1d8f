package org.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** generate, convert, validate and report as a user runs them: exit codes, files, messages without stack traces. */
class WorkloadCommandsTest {
    @TempDir
    Path tmp;

    record Run(int exit, String out, String err) {}

    static Run gpusched(String... args) {
        CommandLine cl = GpuSched.commandLine();
        StringWriter out = new StringWriter(), err = new StringWriter();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int exit = cl.execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    /** {@code gpusched generate ARGS} for a test that needs an instance: it must succeed. */
    static void generate(String... args) {
        String[] command = new String[args.length + 1];
        command[0] = "generate";
        System.arraycopy(args, 0, command, 1, args.length);
        Run r = gpusched(command);
        assertEquals(0, r.exit(), r.err());
    }

    @Test
    void generateWritesTraceAndClusterAndASummary() throws Exception {
        Run r = gpusched(
                "generate",
                "--scenario",
                "hierarchical",
                "--nodes",
                "5",
                "--seed",
                "3",
                "--out",
                tmp.resolve("h").toString());
        assertEquals(0, r.exit(), r.err());
        assertEquals(50, Files.readAllLines(tmp.resolve("h/trace.jsonl")).size());
        assertTrue(Files.readString(tmp.resolve("h/cluster.yaml")).contains("Custom3"));
        assertTrue(r.out().contains("jobs") && r.out().contains("50") && r.out().contains("45,000 s / N"), r.out());
        Run again = gpusched(
                "generate",
                "--scenario",
                "hierarchical",
                "--nodes",
                "5",
                "--seed",
                "3",
                "--out",
                tmp.resolve("h2").toString());
        assertEquals(0, again.exit());
        assertEquals(Files.readString(tmp.resolve("h/trace.jsonl")), Files.readString(tmp.resolve("h2/trace.jsonl")));
        Run andreas = gpusched(
                "generate",
                "--scenario",
                "andreas",
                "--nodes",
                "4",
                "--shape",
                "large",
                "--jobs",
                "7",
                "--out",
                tmp.resolve("a").toString());
        assertEquals(0, andreas.exit(), andreas.err());
        assertEquals(7, Files.readAllLines(tmp.resolve("a/trace.jsonl")).size());
        assertTrue(Files.readString(tmp.resolve("a/cluster.yaml")).contains("V100x4"));
    }

    /** generate --scenario gpuscheduler writes their instance folder, which convert gpuscheduler reads back. */
    @Test
    void generateWritesTheirInstanceFolder() throws Exception {
        String[] base = {
            "generate", "--scenario", "gpuscheduler", "--nodes", "2", "--seed", "9", "--time-model", "amdahl"
        };
        Run r = gpusched(concat(
                base,
                "--catalog",
                "azure",
                "--due-rule",
                "their",
                "--out",
                tmp.resolve("g").toString()));
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("6 Azure VM types") && r.out().contains("their generator's rule"), r.out());
        assertTrue(r.out().contains("tNodes.csv"), r.out());
        assertEquals(21, Files.readAllLines(tmp.resolve("g/Lof_Selectjobs.csv")).size());
        assertEquals(List.of("Nodes", "vm-1", "vm-2"), Files.readAllLines(tmp.resolve("g/tNodes.csv")));
        assertTrue(!Files.readString(tmp.resolve("g/SelectJobs_times.csv")).contains("Custom"));
        Run convert = gpusched(
                "convert",
                "gpuscheduler",
                "--instance",
                tmp.resolve("g").toString(),
                "--out",
                tmp.resolve("c").toString());
        assertEquals(0, convert.exit(), convert.err());
        assertEquals("", convert.err(), "their layout exactly: no note");
        assertTrue(convert.out().contains("20") && convert.out().contains("6 VM types"), convert.out());

        Run table2 = gpusched(concat(base, "--out", tmp.resolve("t").toString()));
        assertEquals(0, table2.exit(), table2.err());
        assertTrue(Files.readString(tmp.resolve("t/SelectJobs_times.csv")).contains(",Custom2,1080Ti,8,8,1.13,"));
        Run misplaced = gpusched(
                "generate",
                "--scenario",
                "hierarchical",
                "--nodes",
                "2",
                "--catalog",
                "azure",
                "--out",
                tmp.resolve("x").toString());
        assertEquals(ExitCode.BAD_INPUT, misplaced.exit());
        assertEquals(
                "gpusched generate: --catalog applies to the gpuscheduler scenario only",
                misplaced.err().trim());
    }

    @Test
    void timeModelIsChosenOnTheCommandLine() throws Exception {
        String[] base = {"generate", "--scenario", "hierarchical", "--nodes", "3", "--jobs", "12", "--seed", "4"};
        Run profiled = gpusched(concat(base, "--out", tmp.resolve("p").toString()));
        Run explicit = gpusched(concat(
                base, "--time-model", "profiled", "--out", tmp.resolve("p2").toString()));
        Run amdahl = gpusched(
                concat(base, "--time-model", "amdahl", "--out", tmp.resolve("a").toString()));
        assertEquals(0, profiled.exit(), profiled.err());
        assertEquals(0, amdahl.exit(), amdahl.err());
        assertTrue(profiled.out().contains("time model") && profiled.out().contains("profiled"), profiled.out());
        assertTrue(amdahl.out().contains("amdahl"), amdahl.out());
        String p = Files.readString(tmp.resolve("p/trace.jsonl"));
        assertEquals(p, Files.readString(tmp.resolve("p2/trace.jsonl")), "profiled is the default");
        String a = Files.readString(tmp.resolve("a/trace.jsonl"));
        assertTrue(!p.equals(a), "the two models give other times");
        assertEquals(
                Files.readString(tmp.resolve("p/cluster.yaml")),
                Files.readString(tmp.resolve("a/cluster.yaml")),
                "the same cluster");
        Run bad = gpusched(concat(
                base, "--time-model", "guessed", "--out", tmp.resolve("x").toString()));
        assertEquals(ExitCode.BAD_INPUT, bad.exit());
        assertTrue(
                bad.err().contains("unknown time model 'guessed'") && !bad.err().contains("\tat "), bad.err());
    }

    private static String[] concat(String[] head, String... tail) {
        String[] all = java.util.Arrays.copyOf(head, head.length + tail.length);
        System.arraycopy(tail, 0, all, head.length, tail.length);
        return all;
    }

    @Test
    void badArgumentsGiveAMessageAndNonZeroExit() {
        Run r = gpusched(
                "generate", "--scenario", "andreas", "--out", tmp.resolve("x").toString());
        assertEquals(ExitCode.BAD_INPUT, r.exit());
        assertTrue(r.err().contains("--nodes N is required"), r.err());
        r = gpusched(
                "generate",
                "--scenario",
                "armida",
                "--jobs",
                "0",
                "--out",
                tmp.resolve("x").toString());
        assertEquals(ExitCode.BAD_INPUT, r.exit());
        assertTrue(r.err().contains("--jobs must be >= 1"));
        r = gpusched(
                "generate",
                "--scenario",
                "andreas",
                "--nodes",
                "4",
                "--shape",
                "medium",
                "--out",
                tmp.resolve("x").toString());
        assertEquals(ExitCode.BAD_INPUT, r.exit());
        assertTrue(r.err().contains("--shape must be small"));
        r = gpusched(
                "convert",
                "alibaba-2022",
                "--pods",
                "p.csv",
                "--nodes",
                "n.csv",
                "--out",
                tmp.resolve("x").toString());
        assertEquals(ExitCode.BAD_INPUT, r.exit());
        assertTrue(r.err().contains("unknown trace format 'alibaba-2022'"));
        for (Run any : new Run[] {r}) assertFalse(any.err().contains("\tat "), "no stack trace");
    }

    @Test
    void convertReportsBadRowsWithFileAndLine() throws Exception {
        Path pods = tmp.resolve("pods.csv"), nodes = tmp.resolve("nodes.csv");
        Files.writeString(nodes, "sn,cpu_milli,memory_mib,gpu,model\nn1,64000,1,2,T4\n");
        Files.writeString(
                pods,
                "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n"
                        + "p1,1,1,1,1000,,LS,Running,0,100,0\np2,1,1,1,1000,,LS,Running,x,100,0\n");
        Run r = gpusched(
                "convert",
                "alibaba-2023",
                "--pods",
                pods.toString(),
                "--nodes",
                nodes.toString(),
                "--out",
                tmp.resolve("c").toString());
        assertEquals(ExitCode.BAD_INPUT, r.exit());
        assertTrue(r.err().contains(pods + ":3: column 'creation_time': not an integer: 'x'"), r.err());
        assertFalse(r.err().contains("\tat "));
        Files.writeString(
                pods,
                "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n"
                        + "p1,1,1,1,1000,,LS,Running,0,100,0\np2,1,1,2,1000,,BE,Running,50,12902960,50\n");
        r = gpusched(
                "convert",
                "alibaba-2023",
                "--pods",
                pods.toString(),
                "--nodes",
                nodes.toString(),
                "--censored",
                "drop",
                "--out",
                tmp.resolve("c").toString());
        assertEquals(0, r.exit(), r.err());
        assertEquals(1, Files.readAllLines(tmp.resolve("c/trace.jsonl")).size());
        assertTrue(r.out().lines().anyMatch(l -> l.matches("skipped: censored \\(dropped\\) +1")), r.out());
    }

    @Test
    void validateExitsNonZeroOnViolationsAndOnUnreadableDirectories() throws Exception {
        Path run = tmp.resolve("run");
        Files.createDirectories(run);
        Files.writeString(
                run.resolve("run.json"),
                "{\"nodes\": [{\"id\": \"n1\", \"type\": \"A\", \"gpus\": 1}], \"nodeTypes\": {\"A\": {\"gpus\": 1, \"costPerHour\": [0, 2.0]}}}");
        Files.writeString(
                run.resolve("jobs.jsonl"),
                "{\"id\": \"j1\", \"submit\": 0, \"due\": 100, \"weight\": 1, \"times\": {\"A\": {\"1\": 1800}}}\n");
        Files.writeString(
                run.resolve("decisions.jsonl"),
                "{\"time\": 0, \"job\": \"j1\", \"action\": \"START\", \"node\": \"n1\", \"type\": \"A\", \"gpus\": 1}\n"
                        + "{\"time\": 1800, \"job\": \"j1\", \"action\": \"COMPLETE\", \"node\": \"n1\", \"type\": \"A\", \"gpus\": 1}\n");
        // execution 2.0 x 0.5 h = 1.0; tardiness 1 x 1700/3600.
        String metrics =
                "{\"totalCost\": %s, \"executionCost\": 1.0, \"tardinessCost\": 0.4722222222, \"tardyJobs\": 1, \"completedJobs\": 1,"
                        + " \"meanJctSeconds\": 1800, \"makespanSeconds\": 1800}";
        Files.writeString(run.resolve("metrics.json"), metrics.formatted("1.4722222222"));
        Run ok = gpusched("validate", run.toString());
        assertEquals(0, ok.exit(), ok.out());
        assertTrue(ok.out().contains("OK: no violation"));
        Files.writeString(run.resolve("metrics.json"), metrics.formatted("1.2"));
        Run bad = gpusched("validate", run.toString());
        assertEquals(ExitCode.FINDINGS, bad.exit());
        assertTrue(
                bad.out().contains("METRICS")
                        && bad.out().contains("totalCost = 1.200000 but the decisions give 1.472222"),
                bad.out());
        Run missing = gpusched("validate", tmp.resolve("nope").toString());
        assertEquals(2, missing.exit());
        assertTrue(missing.err().contains("not a run directory"));
        Run report =
                gpusched("report", run.toString(), "--out", tmp.resolve("rep").toString());
        assertEquals(0, report.exit(), report.err());
        assertTrue(Files.readString(tmp.resolve("rep/report.html")).contains("<svg"));
        assertTrue(Files.readString(tmp.resolve("rep/comparison.csv")).startsWith("policy,seed,totalCost"));
    }

    @Test
    void everyCommandHasHelp() {
        for (String cmd : new String[] {"generate", "convert", "validate", "report"}) {
            Run r = gpusched(cmd, "--help");
            assertEquals(0, r.exit(), cmd);
            assertTrue(r.out().contains("Usage: gpusched " + cmd), r.out());
        }
    }
}
