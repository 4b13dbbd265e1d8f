package org.gpusched.workloads;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.gpusched.core.model.Job;
import org.gpusched.core.model.NodeType;
import org.gpusched.formats.FormatException;
import org.gpusched.formats.TraceJob;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code generate --scenario gpuscheduler}: their instance folder from the hierarchical protocol, read back by the converter. */
class GpuSchedulerInstanceWriterTest {
    static final List<String> FILES =
            List.of(GpuSchedulerConverter.JOBS, GpuSchedulerConverter.TIMES, GpuSchedulerConverter.NODES);

    @TempDir
    Path tmp;

    static Scenario scenario(int nodes, String vmCatalog, String dueRule) {
        return Scenarios.create(
                "gpuscheduler", nodes, null, null, null, vmCatalog, dueRule, ApplicationCatalog.defaults());
    }

    Path write(Scenario sc, long seed, String name) {
        Path dir = tmp.resolve(name);
        GpuSchedulerInstanceWriter.write(sc.cluster(), sc.jobs(sc.defaultJobs(), seed), dir, null);
        return dir;
    }

    static List<TraceJob> jobs(Scenario sc, long seed) {
        List<TraceJob> out = new ArrayList<>();
        sc.jobs(sc.defaultJobs(), seed).forEachRemaining(out::add);
        return out;
    }

    /** Values checked against Python 3's repr (CPython 3.11): the shortest round trip, positional in [1e-4, 1e16). */
    @Test
    void numbersAreWrittenAsPythonWritesAFloat() {
        assertEquals("0.1", GpuSchedulerInstanceWriter.pythonRepr(0.1));
        assertEquals("0.3333333333333333", GpuSchedulerInstanceWriter.pythonRepr(1.0 / 3));
        assertEquals("1e-05", GpuSchedulerInstanceWriter.pythonRepr(1e-5));
        assertEquals("0.0001", GpuSchedulerInstanceWriter.pythonRepr(1e-4));
        // the least weight of the protocol per second: just below 1e-4, so in exponent form
        assertEquals("9.999999999999999e-05", GpuSchedulerInstanceWriter.pythonRepr(0.36 / 3600));
        assertEquals("0.00030000000000000003", GpuSchedulerInstanceWriter.pythonRepr(1.08 / 3600));
        assertEquals("1e+16", GpuSchedulerInstanceWriter.pythonRepr(1e16));
        assertEquals("1000000000000000.0", GpuSchedulerInstanceWriter.pythonRepr(1e15));
        assertEquals("1.2345678901234568e+17", GpuSchedulerInstanceWriter.pythonRepr(123456789012345680.0));
        assertEquals("1.152921504606847e+18", GpuSchedulerInstanceWriter.pythonRepr(0x1p60));
        assertEquals("5e-324", GpuSchedulerInstanceWriter.pythonRepr(Double.MIN_VALUE));
        assertEquals("1.5e-323", GpuSchedulerInstanceWriter.pythonRepr(3 * Double.MIN_VALUE));
        assertEquals("1.7976931348623157e+308", GpuSchedulerInstanceWriter.pythonRepr(Double.MAX_VALUE));
        assertEquals("2.2250738585072014e-308", GpuSchedulerInstanceWriter.pythonRepr(Double.MIN_NORMAL));
        assertEquals("1e+22", GpuSchedulerInstanceWriter.pythonRepr(1e22));
        assertEquals("1e+23", GpuSchedulerInstanceWriter.pythonRepr(1e23));
        assertEquals("9007199254740992.0", GpuSchedulerInstanceWriter.pythonRepr(0x1p53));
        assertEquals("0.30000000000000004", GpuSchedulerInstanceWriter.pythonRepr(0.1 + 0.2));
        assertEquals("12345678.9", GpuSchedulerInstanceWriter.pythonRepr(12345678.9));
        assertEquals("1240303.68", GpuSchedulerInstanceWriter.pythonRepr(1240303.68));
        assertEquals("100.0", GpuSchedulerInstanceWriter.pythonRepr(100));
        assertEquals("-2.5", GpuSchedulerInstanceWriter.pythonRepr(-2.5));
        assertEquals("0.0", GpuSchedulerInstanceWriter.pythonRepr(0));
        assertThrows(IllegalArgumentException.class, () -> GpuSchedulerInstanceWriter.pythonRepr(Double.NaN));
    }

    /**
     * N = 1, seed 1, Table II, the protocol's due dates: the lines the earlier Python writer of
     * bin/compare-gpuscheduler produced from {@code generate --scenario hierarchical --nodes 1 --seed 1}.
     */
    @Test
    void theTableIiFolderIsTheOneThePythonWriterProduced() throws IOException {
        Path dir = write(scenario(1, "table2", null), 1, "g1");
        List<String> jobs = Files.readAllLines(dir.resolve(GpuSchedulerConverter.JOBS));
        assertEquals(11, jobs.size());
        assertEquals(
                "Application,Images,Epochs,Batchsize,Jobs,UniqueJobsID,SubmissionTime,Deadline,Tardinessweight,"
                        + "MinExecTime,MaxExecTime",
                jobs.get(0));
        assertEquals("AlexNet,-,46,128,AlexNet,j1,0.0,102418.29,0.00015068416666666668,51111.06,399613.5", jobs.get(1));
        assertEquals(
                "DeepSpeech,-,28,16,DeepSpeech,j2,72732.813,2024866.397,0.00018651805555555554,55370.7,1240303.68",
                jobs.get(2));
        List<String> times = Files.readAllLines(dir.resolve(GpuSchedulerConverter.TIMES));
        assertEquals(301, times.size());
        assertEquals(
                List.of(
                        "UniqueJobsID,VMtype,GPUtype,nGPUs,max_nGPUs,cost,ExecutionTime",
                        "j1,NC6,K80,1,1,0.56,183723.54",
                        "j1,NC12,K80,1,2,1.13,183723.54",
                        "j1,NC12,K80,2,2,1.13,114040.593"),
                times.subList(0, 4));
        assertEquals("Nodes\nvm-1\n", Files.readString(dir.resolve(GpuSchedulerConverter.NODES)));
    }

    @Test
    void sameSeedSameBytesAnotherSeedOthers() throws IOException {
        Path a = write(scenario(3, null, "their"), 5, "a"),
                b = write(scenario(3, null, "their"), 5, "b"),
                c = write(scenario(3, null, "their"), 6, "c");
        for (String f : FILES) assertEquals(Files.readString(a.resolve(f)), Files.readString(b.resolve(f)), f);
        assertNotEquals(
                Files.readString(a.resolve(GpuSchedulerConverter.JOBS)),
                Files.readString(c.resolve(GpuSchedulerConverter.JOBS)));
    }

    /** The converter reads the folder back to the protocol's jobs and cluster (weights through / 3600 x 3600). */
    @Test
    void theConverterReadsTheFolderBackToTheSameInstance() {
        for (String vms : List.of("table2", "azure")) {
            Scenario sc = scenario(4, vms, null);
            var back = new GpuSchedulerConverter().convert(write(sc, 7, vms));
            assertEquals(List.of(), back.notes());
            List<TraceJob> written = jobs(sc, 7);
            assertEquals(written.size(), back.jobs().size());
            for (int i = 0; i < written.size(); i++) {
                Job w = written.get(i).job(), r = back.jobs().get(i).job();
                assertEquals(w.id(), r.id());
                assertEquals(w.submitSeconds(), r.submitSeconds());
                assertEquals(w.dueSeconds(), r.dueSeconds());
                assertEquals(w.weightPerHour(), r.weightPerHour(), 1e-12 * w.weightPerHour());
                assertEquals(w.times(), r.times(), w.id());
            }
            Set<NodeType> writtenTypes =
                    new java.util.HashSet<>(sc.cluster().cluster().types());
            // every VM type of the catalog has a time for some job, so the converter finds them all
            assertEquals(
                    writtenTypes,
                    new java.util.HashSet<>(back.cluster().cluster().types()),
                    vms);
            assertEquals(4, back.cluster().cluster().nodeCount());
        }
    }

    /** The Azure catalog: the six K80 and M60 VMs of Table II, and the same draws as on Table II. */
    @Test
    void theAzureCatalogLeavesOutP600And1080Ti() throws IOException {
        Scenario azure = scenario(5, "azure", null), table2 = scenario(5, "table2", null);
        assertEquals(
                new TreeSet<>(List.of("NC6", "NC12", "NC24", "NV6", "NV12", "NV24")),
                new TreeSet<>(azure.cluster().cluster().types().stream()
                        .map(NodeType::name)
                        .toList()));
        Path dir = write(azure, 2, "azure");
        Set<String> models = new TreeSet<>();
        for (String line : Files.readAllLines(dir.resolve(GpuSchedulerConverter.TIMES)))
            if (!line.startsWith("UniqueJobsID")) models.add(line.split(",")[2]);
        assertEquals(Set.of("K80", "M60"), models);
        List<TraceJob> a = jobs(azure, 2), t = jobs(table2, 2);
        for (int i = 0; i < a.size(); i++) {
            assertEquals(t.get(i).job().submitSeconds(), a.get(i).job().submitSeconds());
            assertEquals(t.get(i).extras(), a.get(i).extras());
            assertEquals(
                    t.get(i).job().times().get("NC24"), a.get(i).job().times().get("NC24"));
        }
    }

    /** Their rule: due = submission + U[min t, 3 min t], 2 x U[0.0015, 0.0075] per second; the rest the protocol's. */
    @Test
    void theirDueRuleRedrawsOnlyDueDatesAndWeights() {
        List<TraceJob> theirs = jobs(scenario(10, null, "their"), 3), protocol = jobs(scenario(10, null, null), 3);
        int above2min = 0;
        for (int i = 0; i < theirs.size(); i++) {
            Job j = theirs.get(i).job(), p = protocol.get(i).job();
            assertEquals(p.submitSeconds(), j.submitSeconds());
            assertEquals(p.times(), j.times());
            double min = j.times().values().stream()
                    .flatMap(m -> m.values().stream())
                    .mapToDouble(Double::doubleValue)
                    .min()
                    .orElseThrow();
            double slack = j.dueSeconds() - j.submitSeconds();
            assertTrue(slack >= min - 1e-3 && slack <= 3 * min + 1e-3, j.id() + ": " + slack + " vs " + min);
            if (slack > 2 * min) above2min++;
            double perSecond = j.weightPerHour() / 3600;
            assertTrue(perSecond >= 0.003 && perSecond <= 0.015, j.id() + ": " + perSecond);
        }
        assertTrue(above2min > 20 && above2min < 80, "half the slacks above 2 min t: " + above2min);
    }

    @Test
    void optionsOfOtherScenariosAreRefused() {
        var e = assertThrows(
                FormatException.class,
                () -> Scenarios.create(
                        "hierarchical", 3, null, null, null, "azure", null, ApplicationCatalog.defaults()));
        assertEquals("--catalog applies to the gpuscheduler scenario only", e.getMessage());
        e = assertThrows(FormatException.class, () -> scenario(3, "gcp", null));
        assertEquals("--catalog must be table2 or azure, got 'gcp'", e.getMessage());
        e = assertThrows(FormatException.class, () -> scenario(3, null, "mine"));
        assertEquals("--due-rule must be hierarchical or their, got 'mine'", e.getMessage());
    }
}
