package org.gpusched.workloads;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.gpusched.core.model.Job;
import org.gpusched.formats.ClusterYaml;
import org.gpusched.formats.CsvFormatException;
import org.gpusched.formats.TraceFile;
import org.gpusched.formats.TraceJob;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AlibabaConverterTest {
    final AlibabaConverter converter = new AlibabaConverter(ApplicationCatalog.defaults());
    static final AlibabaConverter.Options DEFAULTS =
            new AlibabaConverter.Options(0, 2, 1, AlibabaConverter.Censored.KEEP);
    static final String HEADER =
            "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n";
    static final String NODES =
            "sn,cpu_milli,memory_mib,gpu,model\nn1,64000,262144,2,P100\nn2,96000,393216,8,G2\nn3,32000,100,0,\n";

    /** The shared trace folder beside the repository (../shared from the repo root; tests run in jobs/workloads). */
    static Path traceDir() {
        for (String p : new String[] {"../../../shared/traces/alibaba-gpu-2023", "../shared/traces/alibaba-gpu-2023"}) {
            Path d = Path.of(p);
            if (Files.isRegularFile(d.resolve("openb_pod_list_default.csv"))) return d;
        }
        assumeTrue(
                false,
                "skipped: the Alibaba 2023 trace is not at ../shared/traces/alibaba-gpu-2023 beside the repository");
        return null;
    }

    private static AlibabaConverter.Result defaultConversion;

    /** The default trace converted with the default options, once for the tests that only read it. */
    AlibabaConverter.Result defaultTrace() {
        Path dir = traceDir();
        if (defaultConversion == null) {
            defaultConversion = converter.convert(
                    dir.resolve("openb_pod_list_default.csv"), dir.resolve("openb_node_list_gpu_node.csv"), DEFAULTS);
        }
        return defaultConversion;
    }

    @Test
    void convertsTheDefaultTrace(@TempDir Path out) {
        var r = defaultTrace();
        var s = r.stats();
        // Counted from the CSV independently: 8152 rows, 1088 with num_gpu 0, 861 GPU tasks with no scheduled_time,
        // 32 GPU tasks (scheduled) with the cut-off deletion time, 2573 fractional GPU tasks among the kept ones.
        assertEquals(8152, s.rows());
        assertEquals(1088, s.cpuOnly());
        assertEquals(861, s.pending());
        assertEquals(8152 - 1088 - 861, s.kept());
        assertEquals(32, s.censoredKept());
        assertEquals(1213, s.nodes());
        assertEquals(12, s.nodeTypes());
        assertEquals(0, s.unplaceable());
        long censored = r.jobs().stream()
                .filter(t -> Boolean.TRUE.equals(t.extras().get("censored")))
                .count();
        assertEquals(32, censored);
        double last = -1;
        for (TraceJob tj : r.jobs()) {
            Job j = tj.job();
            assertTrue(j.submitSeconds() >= last);
            last = j.submitSeconds();
            int gpus = j.times().values().iterator().next().keySet().iterator().next();
            assertTrue(j.times().values().stream().allMatch(m -> m.keySet().equals(Set.of(gpus))), "fixed GPU count");
            long milli = ((Number) tj.extras().get("gpuMilli")).longValue();
            if (milli < 1000) assertEquals(1, gpus, "fractional tasks take one whole GPU");
            double trace = ((Number) tj.extras().get("traceSeconds")).doubleValue();
            if (Boolean.TRUE.equals(tj.extras().get("censored")))
                assertEquals(AlibabaConverter.CUTOFF - j.submitSeconds(), trace, 1e-6);
            double min = j.times().values().stream()
                    .flatMap(m -> m.values().stream())
                    .mapToDouble(Double::doubleValue)
                    .min()
                    .orElseThrow();
            double max = j.times().values().stream()
                    .flatMap(m -> m.values().stream())
                    .mapToDouble(Double::doubleValue)
                    .max()
                    .orElseThrow();
            if (gpus == 1 && trace > 1) {
                // Every model hosts a 1-GPU task, so the fleet-average duration lies between the fastest and slowest.
                assertTrue(
                        min < trace * 1.0001 && max > trace * 0.9999,
                        "the observed duration lies between the fastest and slowest model");
            }
            double slack = j.dueSeconds() - j.submitSeconds();
            assertTrue(slack >= min - 1e-3 && slack <= 2 * max + 1e-3);
            double perGpu = AlibabaConverter.QOS_WEIGHT.get((String) tj.extras().get("qos"));
            assertTrue(
                    j.weightPerHour() >= 0.5 * perGpu * gpus - 1e-6 && j.weightPerHour() <= 1.5 * perGpu * gpus + 1e-6);
            // A T4 is slower than a V100 for the same task.
            if (j.times().containsKey("T4x2") && j.times().containsKey("V100M32x8")) {
                assertTrue(j.timeOn("T4x2", gpus) > j.timeOn("V100M32x8", gpus));
            }
        }
        // The cluster file is the documented energy model: G2x8 busy 8 = (3 sockets x 67.5 + 8 x 150 W) x 0.172 x 1.33.
        var g2 = r.cluster().cluster().typesByName().get("G2x8");
        assertEquals((3 * 67.5 + 8 * 150) / 1000.0 * 0.172 * 1.33, g2.costPerHour(8), 1e-12);
        var summary = WorkloadWriter.write(r.cluster(), r.jobs().iterator(), out, null);
        assertEquals(s.kept(), summary.jobs());
        assertEquals(s.kept(), TraceFile.read(out.resolve("trace.jsonl")).size());
        assertEquals(
                1213, ClusterYaml.read(out.resolve("cluster.yaml")).cluster().nodeCount());
    }

    @Test
    void censoredDropAndLimit() {
        Path dir = traceDir();
        var drop = converter.convert(
                dir.resolve("openb_pod_list_default.csv"),
                dir.resolve("openb_node_list_gpu_node.csv"),
                new AlibabaConverter.Options(0, 2, 1, AlibabaConverter.Censored.DROP));
        assertEquals(32, drop.stats().censoredDropped());
        assertEquals(8152 - 1088 - 861 - 32, drop.jobs().size());
        assertTrue(drop.jobs().stream().noneMatch(t -> t.extras().containsKey("censored")));
        var limited = converter.convert(
                dir.resolve("openb_pod_list_default.csv"),
                dir.resolve("openb_node_list_gpu_node.csv"),
                new AlibabaConverter.Options(100, 3, 1, AlibabaConverter.Censored.KEEP));
        assertEquals(100, limited.jobs().size());
        assertEquals("openb-pod-0000", limited.jobs().get(0).job().id());
    }

    @Test
    void gpuSpecRestrictsTheNodeTypes() {
        Path dir = traceDir();
        var r = converter.convert(
                dir.resolve("openb_pod_list_gpuspec33.csv"), dir.resolve("openb_node_list_gpu_node.csv"), DEFAULTS);
        long constrained = 0;
        for (TraceJob tj : r.jobs()) {
            Object spec = tj.extras().get("gpuSpec");
            if (spec == null) continue;
            constrained++;
            Set<String> allowed = Set.copyOf(List.of(spec.toString().split("\\|")));
            for (String type : tj.job().times().keySet()) {
                String model = type.substring(0, type.lastIndexOf('x'));
                assertTrue(allowed.contains(model), tj.job().id() + " on " + type + " but spec " + spec);
            }
        }
        assertTrue(constrained > 1000, "gpuspec33 constrains about a third of the tasks, got " + constrained);
    }

    @Test
    void sameSeedSameJobs() {
        Path dir = traceDir();
        Path pods = dir.resolve("openb_pod_list_default.csv"), nodes = dir.resolve("openb_node_list_gpu_node.csv");
        var a = defaultTrace().jobs();
        var b = converter.convert(pods, nodes, DEFAULTS).jobs();
        var c = converter
                .convert(pods, nodes, new AlibabaConverter.Options(0, 2, 2, AlibabaConverter.Censored.KEEP))
                .jobs();
        assertEquals(a, b);
        assertTrue(!a.get(5).job().equals(c.get(5).job()), "another seed draws other due dates and weights");
        assertEquals(a.get(5).job().times(), c.get(5).job().times());
    }

    @Test
    void smallHandMadeTrace(@TempDir Path dir) throws Exception {
        Path nodes = dir.resolve("nodes.csv");
        Files.writeString(nodes, NODES);
        Path pods = dir.resolve("pods.csv");
        Files.writeString(
                pods,
                HEADER
                        + "p1,8000,1000,1,300,,LS,Running,100,700,100\n" // fractional -> 1 GPU, 600 s
                        + "p2,8000,1000,0,0,,BE,Running,150,900,150\n" // CPU only
                        + "p3,8000,1000,4,1000,P100,LS,Running,200,800,200\n" // 4 GPUs on P100 only: no P100 node has 4
                        + "p4,8000,1000,2,1000,,BE,Pending,300,900,\n" // never scheduled
                        + "p5,8000,1000,8,1000,,Guaranteed,Running,50,12902960,55\n"); // censored, listed out of order
        var r = converter.convert(pods, nodes, DEFAULTS);
        assertEquals(
                List.of("p5", "p1"), r.jobs().stream().map(t -> t.job().id()).toList());
        assertEquals(1, r.stats().unplaceable());
        assertEquals(1, r.stats().pending());
        assertEquals(1, r.stats().cpuOnly());
        assertEquals(2, r.cluster().cluster().nodeCount(), "GPU nodes only");
        Job p5 = r.jobs().get(0).job();
        assertEquals(Set.of("G2x8"), p5.times().keySet(), "8 GPUs fit the G2 node only");
        Job p1 = r.jobs().get(1).job();
        assertEquals(Set.of(1), p1.times().get("P100x2").keySet());
        // Fleet speed is the GPU-weighted mean: (2 x P100 + 8 x G2) / 10; time on model m = 600 x fleet / speed(m).
        var cat = ApplicationCatalog.defaults();
        var balanced = new ApplicationCatalog.Application("b", List.of(), 1, 1, 0, 0.5, 0, List.of(1, 1), List.of(1));
        double p100 = 1 / cat.slowdown(balanced, cat.gpu("P100")), g2 = 1 / cat.slowdown(balanced, cat.gpu("G2"));
        double fleet = (2 * p100 + 8 * g2) / 10;
        assertEquals(600 * fleet / p100, p1.timeOn("P100x2", 1), 1e-3);
        assertEquals(600 * fleet / g2, p1.timeOn("G2x8", 1), 1e-3);
    }

    @Test
    void badRowsNameFileAndLine(@TempDir Path dir) throws Exception {
        Path nodes = dir.resolve("nodes.csv");
        Files.writeString(nodes, NODES);
        Path pods = dir.resolve("pods.csv");
        Files.writeString(pods, HEADER + "p1,8000,1000,1,300,,LS,Running,100,700,100\np2,8000,1000,1\n");
        CsvFormatException e = assertThrows(CsvFormatException.class, () -> converter.convert(pods, nodes, DEFAULTS));
        assertTrue(e.getMessage().startsWith(pods + ":3:"), e.getMessage());
        Files.writeString(
                pods,
                HEADER + "p1,8000,1000,1,300,,LS,Running,100,700,100\np2,8000,1000,two,1000,,LS,Running,100,700,100\n");
        e = assertThrows(CsvFormatException.class, () -> converter.convert(pods, nodes, DEFAULTS));
        assertTrue(e.getMessage().startsWith(pods + ":3:") && e.getMessage().contains("num_gpu"), e.getMessage());
        Files.writeString(pods, HEADER + "p1,8000,1000,1,300,,LS,Running,900,700,900\n");
        e = assertThrows(CsvFormatException.class, () -> converter.convert(pods, nodes, DEFAULTS));
        assertTrue(
                e.getMessage().startsWith(pods + ":2:") && e.getMessage().contains("before creation"), e.getMessage());
        Files.writeString(pods, HEADER + "p1,8000,1000,1,300,,Premium,Running,100,700,100\n");
        e = assertThrows(CsvFormatException.class, () -> converter.convert(pods, nodes, DEFAULTS));
        assertTrue(e.getMessage().contains(":2:") && e.getMessage().contains("qos"), e.getMessage());
        Files.writeString(pods, "name,cpu_milli,memory_mib,num_gpu,gpu_milli\np1,1,1,1,1000\n");
        e = assertThrows(CsvFormatException.class, () -> converter.convert(pods, nodes, DEFAULTS));
        assertTrue(e.getMessage().contains("missing column 'gpu_spec'"), e.getMessage());
        Files.writeString(nodes, NODES + "n4,1000,1,2,H100\n");
        e = assertThrows(CsvFormatException.class, () -> converter.convert(pods, nodes, DEFAULTS));
        assertTrue(e.getMessage().startsWith(nodes + ":5:") && e.getMessage().contains("H100"), e.getMessage());
        Files.writeString(nodes, NODES);
        e = assertThrows(CsvFormatException.class, () -> converter.convert(dir.resolve("nope.csv"), nodes, DEFAULTS));
        assertTrue(e.getMessage().contains("nope.csv: no such file"), e.getMessage());
    }
}
