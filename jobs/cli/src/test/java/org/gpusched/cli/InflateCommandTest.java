package org.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class InflateCommandTest {
    @TempDir
    Path dir;

    private Path nodes() throws Exception {
        return Files.writeString(
                dir.resolve("nodes.csv"),
                "sn,cpu_milli,memory_mib,gpu,model\n"
                        + "n0,96000,393216,8,G2\nn1,96000,393216,8,G2\nn2,104000,524288,2,T4\nn3,32000,131072,4,V100M16\n");
    }

    private Path pods(String rows) throws Exception {
        return Files.writeString(dir.resolve("pods.csv"), "name,cpu_milli,memory_mib,num_gpu,gpu_milli\n" + rows);
    }

    /** Runs the command, returning exit code and stderr; stdout goes to {@code out}. */
    private static int run(StringBuilder err, StringBuilder out, String... args) {
        PrintStream oldErr = System.err, oldOut = System.out;
        ByteArrayOutputStream e = new ByteArrayOutputStream(), o = new ByteArrayOutputStream();
        System.setErr(new PrintStream(e, true));
        System.setOut(new PrintStream(o, true));
        try {
            return GpuSched.commandLine().execute(args);
        } finally {
            System.setErr(oldErr);
            System.setOut(oldOut);
            err.append(e);
            out.append(o);
        }
    }

    @Test
    void writesCurveReportAndSummary() throws Exception {
        Path pods = pods(
                "a,4000,8192,1,500\nb,8000,16384,1,1000\nc,2000,4096,0,0\nd,16000,65536,4,1000\ne,1000,2048,1,250\n");
        Path out = dir.resolve("out");
        StringBuilder err = new StringBuilder(), stdout = new StringBuilder();
        int code = run(
                err,
                stdout,
                "inflate",
                "--pods",
                pods.toString(),
                "--nodes",
                nodes().toString(),
                "--policies",
                "fgd,pwr-fgd,bestfit",
                "--alpha",
                "0.05,0.2",
                "--seeds",
                "1-3",
                "--load",
                "1.2",
                "--step",
                "0.1",
                "--out",
                out.toString());
        assertEquals(0, code, err.toString());
        List<String> curve = Files.readAllLines(out.resolve("curve.csv"));
        // 4 policies (pwr-fgd twice) x 3 seeds x 11 or 12 grid points (the clones may stop just short of 1.2)
        assertTrue(curve.size() >= 1 + 4 * 3 * 11 && curve.size() <= 1 + 4 * 3 * 12, "rows: " + curve.size());
        assertTrue(Files.readString(out.resolve("report.html")).contains("<svg"));
        assertTrue(
                stdout.toString().contains("pwr-fgd a=0.05")
                        && stdout.toString().contains("bestfit"),
                stdout.toString());
        assertTrue(err.toString().contains("[ 12/12]"), "progress per run on stderr: " + err);
    }

    /** Expected curves for workload "pods": allocated = 0.9 x requested percent, fragmentation 5 (or 50) percent. */
    private Path expected(double frag) throws Exception {
        Path e = Files.createDirectories(dir.resolve("expected"));
        StringBuilder header = new StringBuilder("workload,sc_policy,tune,seed");
        for (int c = 0; c <= 130; c++) header.append(',').append(c);
        StringBuilder allo = new StringBuilder(header).append('\n'), fr = new StringBuilder(header).append('\n');
        for (String policy : List.of("06-FGD", "05-BestFit"))
            for (int seed = 1; seed <= 2; seed++) {
                allo.append("pods,").append(policy).append(",1.3,").append(seed);
                fr.append("pods,").append(policy).append(",1.3,").append(seed);
                for (int c = 0; c <= 130; c++) {
                    allo.append(',').append(0.9 * c);
                    fr.append(',').append(frag);
                }
                allo.append('\n');
                fr.append('\n');
            }
        Files.writeString(e.resolve("analysis_allo_discrete.csv"), allo);
        Files.writeString(e.resolve("analysis_frag_discrete.csv"), fr);
        return e;
    }

    @Test
    void comparesWithTheSimulatorsPublishedCurves() throws Exception {
        Path pods = pods(
                "a,4000,8192,1,500\nb,8000,16384,1,1000\nc,2000,4096,0,0\nd,16000,65536,4,1000\ne,1000,2048,1,250\n");
        Path out = dir.resolve("out");
        StringBuilder err = new StringBuilder(), stdout = new StringBuilder();
        int code = run(
                err,
                stdout,
                "inflate",
                "--pods",
                pods.toString(),
                "--nodes",
                nodes().toString(),
                "--policies",
                "fgd,bestfit,pwr",
                "--seeds",
                "1-3",
                "--load",
                "1.3",
                "--expected",
                expected(5).toString(),
                "--out",
                out.toString());
        assertEquals(0, code, err.toString());
        String table = Files.readString(out.resolve("simulator-comparison.md"));
        assertTrue(
                table.contains("| fgd | 50% | 2 | 1.0000 | 0.9000 | +0.1000 |"),
                "seeds 1 and 2 are on both sides: " + table);
        assertTrue(table.contains("| bestfit | 130% | 2 |"), table);
        assertFalse(table.contains("| pwr |"), "the simulator ran no pwr");
        assertTrue(stdout.toString().contains("| within goal |"), stdout.toString());
        Path other = Files.copy(pods, dir.resolve("other.csv"));
        StringBuilder err2 = new StringBuilder();
        assertEquals(
                ExitCode.BAD_INPUT,
                run(
                        err2,
                        stdout,
                        "inflate",
                        "--pods",
                        other.toString(),
                        "--nodes",
                        nodes().toString(),
                        "--policies",
                        "fgd",
                        "--seeds",
                        "1",
                        "--expected",
                        expected(5).toString(),
                        "--out",
                        out.toString()));
        assertTrue(err2.toString().contains("no rows for workload 'other'"), err2.toString());
    }

    @Test
    void badInputIsAMessageWithFileAndLineAndExitOne() throws Exception {
        Path pods = pods("a,4000,8192,1,500\nb,lots,16384,1,1000\n");
        StringBuilder err = new StringBuilder(), stdout = new StringBuilder();
        int code = run(
                err,
                stdout,
                "inflate",
                "--pods",
                pods.toString(),
                "--nodes",
                nodes().toString(),
                "--out",
                dir.resolve("o").toString());
        assertEquals(ExitCode.BAD_INPUT, code);
        assertTrue(err.toString().contains(pods + ":3: column 'cpu_milli'"), err.toString());
        assertFalse(err.toString().contains("\tat "), "no stack trace");
    }

    @Test
    void unknownPolicyOrBadSeedsAreUsageErrors() throws Exception {
        Path pods = pods("a,4000,8192,1,500\n");
        StringBuilder err = new StringBuilder(), stdout = new StringBuilder();
        assertEquals(
                2,
                run(
                        err,
                        stdout,
                        "inflate",
                        "--pods",
                        pods.toString(),
                        "--nodes",
                        nodes().toString(),
                        "--policies",
                        "tetris",
                        "--out",
                        dir.resolve("o").toString()));
        assertTrue(err.toString().contains("unknown placement policy 'tetris'"), err.toString());
        assertEquals(
                2,
                run(
                        err,
                        stdout,
                        "inflate",
                        "--pods",
                        pods.toString(),
                        "--nodes",
                        nodes().toString(),
                        "--seeds",
                        "9-3",
                        "--out",
                        dir.resolve("o").toString()));
    }
}
