package org.gpusched.workloads;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.gpusched.core.model.Job;
import org.gpusched.formats.ClusterYaml;
import org.gpusched.formats.FormatException;
import org.gpusched.formats.TraceFile;
import org.gpusched.formats.TraceJob;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The instance folder under test/resources/gpuscheduler/instance-3-nodes is hand-written in exactly the layout of
 * their generator (script/py/generate_data_new.py: pandas' to_csv of the same columns); it was run through their
 * Greedy binary to check their code reads it.
 */
class GpuSchedulerConverterTest {
    static final Path SAMPLE = Path.of("src/test/resources/gpuscheduler/instance-3-nodes");
    final GpuSchedulerConverter converter = new GpuSchedulerConverter();

    @Test
    void convertsTheirInstanceFolder(@TempDir Path out) throws IOException {
        var r = converter.convert(SAMPLE);
        assertEquals(4, r.jobs().size());
        assertEquals(
                List.of("n1", "n2", "n3"),
                r.cluster().cluster().nodes().stream().map(n -> n.id()).toList());
        assertTrue(r.cluster().cluster().nodes().stream().allMatch(n -> n.isRightsizable()));
        var types = r.cluster().cluster().types();
        assertEquals(
                List.of("NC12", "NC6", "NV24"),
                types.stream().map(t -> t.name()).toList());
        var nv24 = types.get(2);
        assertEquals("M60", nv24.gpuModel());
        assertEquals(4, nv24.gpus());
        assertArrayEquals(new double[] {2.48, 2.48, 2.48, 2.48, 2.48}, nv24.costPerHour(), 0);

        Job jj1 = r.jobs().get(0).job();
        assertEquals("JJ1", jj1.id());
        assertEquals(5210.37614219523, jj1.dueSeconds(), 1e-9);
        assertEquals(0.011306337036935 * 3600, jj1.weightPerHour(), 1e-9);
        assertEquals(Map.of(1, 7120.3, 2, 3950.11, 4, 2405.512), jj1.times().get("NV24"));
        assertEquals(Map.of(1, 9846.02, 2, 5411.7), jj1.times().get("NC12"));
        assertEquals("alexnet", r.jobs().get(0).extras().get("application"));

        // written and read back in the product's formats
        WorkloadWriter.write(r.cluster(), r.jobs().iterator(), out, null);
        var cluster = ClusterYaml.read(out.resolve(WorkloadWriter.CLUSTER));
        assertEquals(3, cluster.cluster().nodes().size());
        List<TraceJob> back = TraceFile.read(out.resolve(WorkloadWriter.TRACE));
        assertEquals(
                List.of("JJ1", "JJ2", "JJ3", "JJ4"),
                back.stream().map(j -> j.job().id()).toList());
        assertEquals(jj1.times(), back.get(0).job().times());
    }

    @Test
    void submissionOrderIsRestoredStably(@TempDir Path dir) throws IOException {
        copySample(dir);
        List<String> lines = Files.readAllLines(dir.resolve(GpuSchedulerConverter.JOBS));
        // JJ3 and JJ4 share a submission time; JJ2 moved to the end
        Files.write(
                dir.resolve(GpuSchedulerConverter.JOBS),
                List.of(lines.get(0), lines.get(1), lines.get(3), lines.get(4), lines.get(2)));
        var ids = converter.convert(dir).jobs().stream().map(j -> j.job().id()).toList();
        assertEquals(List.of("JJ1", "JJ2", "JJ3", "JJ4"), ids);
    }

    @Test
    void hostileRowsNameFileAndLine(@TempDir Path dir) throws IOException {
        String times = GpuSchedulerConverter.TIMES,
                jobs = GpuSchedulerConverter.JOBS,
                nodes = GpuSchedulerConverter.NODES;
        assertBad(dir, times, 3, "JJ1,NC12,K80,1,2,1.13,abc", times + ":3: ExecutionTime must be a number, got 'abc'");
        assertBad(dir, times, 3, "JJ1,NC12,K80,1,2,1.13,-5", times + ":3: ExecutionTime must be > 0 seconds");
        assertBad(dir, times, 3, "JJ1,NC12,K80,1,2,1.13,NaN", times + ":3: ExecutionTime must be finite");
        assertBad(dir, times, 3, "JJ1,NC12,K80,3,2,1.13,100", times + ":3: nGPUs 3 exceeds the VM's max_nGPUs 2");
        assertBad(dir, times, 3, "JJ1,NC12,K80,0,2,1.13,100", times + ":3: nGPUs must be a whole number >= 1, got '0'");
        assertBad(
                dir,
                times,
                3,
                "JJ1,NC12,K80,1.5,2,1.13,100",
                times + ":3: nGPUs must be a whole number >= 1, got '1.5'");
        assertBad(dir, times, 3, "JJ9,NC12,K80,1,2,1.13,100", times + ":3: job 'JJ9' is not in " + jobs);
        assertBad(
                dir,
                times,
                4,
                "JJ1,NC12,K80,2,2,9.99,5411.7",
                times + ":4: VM type NC12 is (K80, 2 GPUs, 9.99 per hour) but " + dir.resolve(times) + ":3 says");
        assertBad(
                dir,
                times,
                4,
                "JJ1,NC12,K80,1,2,1.13,1",
                times + ":4: job JJ1 on NC12 with 1 GPUs already has ExecutionTime 9846.02");
        assertBad(
                dir,
                times,
                3,
                "JJ1,NC12,K80,1,2",
                times + ":3: 5 columns, but their code reads 7 by position (UniqueJobsID, VMtype, GPUtype, nGPUs, "
                        + "max_nGPUs, cost, ExecutionTime)");
        assertBad(dir, times, 3, "JJ1,NC12,K80,1,2,1.13,100,7", times + ":3: 8 columns, but their code reads 7");
        assertBad(dir, times, 3, "JJ1,\"NC12,K80,1,2,1.13,100", times + ":3: bad CSV row");
        assertBad(dir, times, 3, "JJ1,,K80,1,2,1.13,100", times + ":3: VMtype is empty");
        assertBad(
                dir,
                jobs,
                2,
                "alexnet,1000,3,64,J5,JJ1,0.0,5210.3,x,2405.512,9846.02",
                jobs + ":2: Tardinessweight must be a number, got 'x'");
        assertBad(
                dir,
                jobs,
                3,
                "resnet,2000,2,32,J12,JJ2,1834.0,100.0,0.0049,3127.0,14020.7",
                jobs + ":3: Deadline 100.0 is before SubmissionTime 1834.0");
        assertBad(
                dir,
                jobs,
                3,
                "resnet,2000,2,32,J12,JJ2,-1,100.0,0.0049,3127.0,14020.7",
                jobs + ":3: SubmissionTime must be >= 0");
        assertBad(
                dir,
                jobs,
                3,
                "resnet,2000,2,32,J12,JJ1,1834.0,9180.2,0.0049,3127.0,14020.7",
                jobs + ":3: UniqueJobsID 'JJ1' repeats the job of " + dir.resolve(jobs) + ":2");
        assertBad(dir, nodes, 3, "n1", nodes + ":3: node 'n1' is listed twice");
        assertBad(dir, nodes, 2, "n1,n9", nodes + ":2: 2 columns, but their code reads 1 by position (Nodes)");
    }

    /**
     * Their code drops line 1 and reads every row by position (src/fileIO.cpp), so headers with other names, such as
     * their print_map's VMType/GpuType/GpuNumber, or the columns named in another order, change nothing: the same
     * instance, with a note per file.
     */
    @Test
    void headersWithOtherNamesAreReadByPositionAsTheirCodeReadsThem(@TempDir Path dir) throws IOException {
        copySample(dir);
        header(dir, GpuSchedulerConverter.TIMES, "UniqueJobsID,VMType,GpuType,GpuNumber,max_nGPUs,cost,ExecutionTime");
        header(dir, GpuSchedulerConverter.JOBS, "app,img,ep,bs,job,id,submit,due,weight,min,max");
        header(dir, GpuSchedulerConverter.NODES, "Node");
        var renamed = converter.convert(dir);
        var sample = converter.convert(SAMPLE);
        assertEquals(sample.jobs(), renamed.jobs());
        assertEquals(
                sample.cluster().cluster().types(), renamed.cluster().cluster().types());
        assertEquals(
                sample.cluster().cluster().nodes(), renamed.cluster().cluster().nodes());
        assertEquals(List.of(), sample.notes());
        assertEquals(3, renamed.notes().size(), renamed.notes().toString());
        assertTrue(
                renamed.notes().get(0).startsWith(dir.resolve(GpuSchedulerConverter.JOBS) + ":1: the header says app,"),
                renamed.notes().get(0));
        assertTrue(
                renamed.notes()
                        .get(1)
                        .endsWith("read by position as their code reads it: UniqueJobsID, VMtype, "
                                + "GPUtype, nGPUs, max_nGPUs, cost, ExecutionTime"),
                renamed.notes().get(1));

        // the times columns named in another order: still read by position (so VMtype is column 2), and said so
        header(dir, GpuSchedulerConverter.TIMES, "UniqueJobsID,GPUtype,VMtype,nGPUs,max_nGPUs,cost,ExecutionTime");
        var reordered = converter.convert(dir);
        assertEquals(sample.jobs(), reordered.jobs());
        assertTrue(
                reordered.notes().get(1).contains("the same columns in another order"),
                reordered.notes().get(1));
    }

    @Test
    void anotherFilesHeaderOrAnotherWidthIsAnErrorAtLineOne(@TempDir Path dir) throws IOException {
        String times = GpuSchedulerConverter.TIMES,
                jobs = GpuSchedulerConverter.JOBS,
                nodes = GpuSchedulerConverter.NODES;
        String jobsHeader = String.join(",", GpuSchedulerConverter.JOB_COLUMNS);
        String timesHeader = String.join(",", GpuSchedulerConverter.TIME_COLUMNS);
        assertBad(
                dir,
                times,
                1,
                jobsHeader,
                times + ":1: this is the header of " + jobs + " (" + jobsHeader + "), not of " + times
                        + ", whose 7 columns their code reads by position: UniqueJobsID, VMtype, GPUtype, nGPUs, "
                        + "max_nGPUs, cost, ExecutionTime");
        assertBad(dir, jobs, 1, timesHeader, jobs + ":1: this is the header of " + times);
        assertBad(
                dir,
                nodes,
                1,
                timesHeader.toLowerCase(java.util.Locale.ROOT),
                nodes + ":1: this is the header of " + times);
        // their own print_map writes this header (6 columns, no max_nGPUs); their create_map reads 7
        assertBad(
                dir,
                times,
                1,
                "UniqueJobsID,VMType,GpuType,GpuNumber,cost,ExecutionTime",
                times + ":1: the header has 6 columns (UniqueJobsID,VMType,GpuType,GpuNumber,cost,ExecutionTime), but"
                        + " their code reads " + times + "'s 7 by position");
        assertBad(dir, jobs, 1, "UniqueJobsID,SubmissionTime,Deadline,Tardinessweight", jobs + ":1: the header has 4");
    }

    private static void header(Path dir, String file, String header) throws IOException {
        List<String> lines = new java.util.ArrayList<>(Files.readAllLines(dir.resolve(file)));
        lines.set(0, header);
        Files.write(dir.resolve(file), lines);
    }

    @Test
    void aJobWithoutTimesIsRejectedByItsId(@TempDir Path dir) throws IOException {
        copySample(dir);
        Path times = dir.resolve(GpuSchedulerConverter.TIMES);
        Files.write(
                times,
                Files.readAllLines(times).stream()
                        .filter(l -> !l.startsWith("JJ2,") && !l.startsWith("JJ4,"))
                        .toList());
        var e = assertThrows(FormatException.class, () -> converter.convert(dir));
        assertEquals(
                times + ": no execution time for jobs JJ2, JJ4 of " + GpuSchedulerConverter.JOBS
                        + " (a job needs at least one VM type)",
                e.getMessage());
    }

    @Test
    void missingFilesAreNamed(@TempDir Path dir) throws IOException {
        copySample(dir);
        Files.delete(dir.resolve(GpuSchedulerConverter.NODES));
        var e = assertThrows(FormatException.class, () -> converter.convert(dir));
        assertEquals(dir.resolve(GpuSchedulerConverter.NODES) + ": no such file", e.getMessage());
    }

    private void assertBad(Path dir, String file, int line, String replacement, String expectedStart)
            throws IOException {
        copySample(dir);
        Path f = dir.resolve(file);
        List<String> lines = new java.util.ArrayList<>(Files.readAllLines(f));
        lines.set(line - 1, replacement);
        Files.write(f, lines);
        var e = assertThrows(FormatException.class, () -> converter.convert(dir), replacement);
        String expected = expectedStart.startsWith(file)
                ? dir.resolve(expectedStart.substring(0, expectedStart.indexOf(':')))
                        + expectedStart.substring(expectedStart.indexOf(':'))
                : expectedStart;
        assertTrue(e.getMessage().startsWith(expected), e.getMessage() + "\n  expected to start with\n" + expected);
        assertTrue(!e.getMessage().contains("\n"), "one line: " + e.getMessage());
    }

    private static void copySample(Path dir) throws IOException {
        for (String f :
                new String[] {GpuSchedulerConverter.JOBS, GpuSchedulerConverter.TIMES, GpuSchedulerConverter.NODES}) {
            Files.copy(SAMPLE.resolve(f), dir.resolve(f), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
    }
}
