package org.gpusched.placement.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.gpusched.formats.CsvFormatException;
import org.gpusched.placement.model.NodeSpec;
import org.gpusched.placement.model.Task;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AlibabaTraceCsvTest {
    @TempDir
    Path dir;

    private Path file(String name, String text) throws IOException {
        Path p = dir.resolve(name);
        Files.writeString(p, text);
        return p;
    }

    @Test
    void readsNodesWithThePapersPowerFigures() throws IOException {
        List<NodeSpec> nodes = AlibabaTraceCsv.readNodes(
                file(
                        "n.csv",
                        "sn,cpu_milli,memory_mib,gpu,model\nopenb-node-0000,64000,262144,2,P100\nopenb-node-1,96000,393216,8,G2\n"));
        assertEquals(2, nodes.size());
        assertEquals(250, nodes.get(0).gpuModel().maxWatts());
        assertEquals(8, nodes.get(1).gpuCount());
        assertEquals(96000, nodes.get(1).cpuMilli());
    }

    @Test
    void readsFullAndFiveColumnPodLists() throws IOException {
        List<Task> full = AlibabaTraceCsv.readPods(file(
                "p.csv",
                "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n"
                        + "a,12000,16384,1,1000,,LS,Running,0,12537496,0\n"
                        + "b,6000,12288,1,460,V100M16|V100M32,LS,Running,427061,12902960,427061\n"
                        + "c,88000,327680,8,1000,,LS,Running,1,2,1\n"
                        + "d,4000,8192,0,0,,BE,Failed,1,2,1\n"));
        assertEquals(Task.GpuKind.WHOLE, full.get(0).kind());
        assertEquals(Task.GpuKind.SHARED, full.get(1).kind());
        assertEquals(Set.of("V100M16", "V100M32"), full.get(1).gpuModels());
        assertEquals(8000, full.get(2).gpuMilliTotal());
        assertEquals(Task.GpuKind.NONE, full.get(3).kind());
        List<Task> five = AlibabaTraceCsv.readPods(
                file("m.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli\nx,1000,10,2,1000\n"));
        assertEquals(2, five.get(0).gpuCount());
        assertTrue(five.get(0).gpuModels().isEmpty());
    }

    @Test
    void aBadValueNamesFileLineAndColumn() throws IOException {
        Path p = file("bad.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli\nok,1000,10,1,1000\nbad,12x,10,1,1000\n");
        CsvFormatException e = assertThrows(CsvFormatException.class, () -> AlibabaTraceCsv.readPods(p));
        assertTrue(e.getMessage().startsWith(p + ":3: column 'cpu_milli'"), e.getMessage());
    }

    @Test
    void sharingAndWholeGpusAtOnceIsRejectedWithItsLine() throws IOException {
        Path p = file("both.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli\na,1,1,1,500\nb,1,1,2,500\n");
        CsvFormatException e = assertThrows(CsvFormatException.class, () -> AlibabaTraceCsv.readPods(p));
        assertTrue(e.getMessage().startsWith(p + ":3: column 'gpu_milli'"), e.getMessage());
    }

    @Test
    void missingColumnsUnknownModelsAndTooManyFieldsAreLocated() throws IOException {
        Path noGpu = file("cols.csv", "name,cpu_milli,memory_mib,gpu_milli\na,1,1,1000\n");
        assertTrue(assertThrows(CsvFormatException.class, () -> AlibabaTraceCsv.readPods(noGpu))
                .getMessage()
                .startsWith(noGpu + ":1: missing column 'num_gpu'"));
        Path model = file("model.csv", "sn,cpu_milli,memory_mib,gpu,model\nn1,1000,10,1,T4\nn2,1000,10,1,H100\n");
        String msg = assertThrows(CsvFormatException.class, () -> AlibabaTraceCsv.readNodes(model))
                .getMessage();
        assertTrue(msg.startsWith(model + ":3: column 'model': unknown GPU model 'H100'"), msg);
        Path extra = file("extra.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli\na,1,1,1,1000,7\n");
        assertTrue(assertThrows(CsvFormatException.class, () -> AlibabaTraceCsv.readPods(extra))
                .getMessage()
                .startsWith(extra + ":2:"));
    }

    @Test
    void readsTheRealTraceWhenPresent() {
        Path dir = Path.of("../../../shared/traces/alibaba-gpu-2023");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isDirectory(dir), "shared traces not beside the repository");
        List<NodeSpec> nodes = AlibabaTraceCsv.readNodes(dir.resolve("openb_node_list_gpu_node.csv"));
        assertEquals(1213, nodes.size());
        assertEquals(6212, nodes.stream().mapToInt(NodeSpec::gpuCount).sum());
        assertEquals(
                8152,
                AlibabaTraceCsv.readPods(dir.resolve("openb_pod_list_default.csv"))
                        .size());
    }
}
