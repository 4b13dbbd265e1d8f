package org.gpusched.formats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClusterYamlTest {
    private static final String YAML = """
            nodeTypes:
              V100x2: {gpuModel: V100, gpus: 2, energy: {gpuIdleWatts: 30, gpuMaxWatts: 300, hostWatts: 200, pricePerKwh: 0.172, pue: 1.33}}
              NC6: {gpuModel: K80, gpus: 1, pricePerHour: 0.56}
            nodes:
              - {id: n1, type: V100x2}
              - {id: vm, count: 3, types: [NC6]}
            objective: {rho: 50}
            """;

    @Test
    void readsTypesNodesAndObjective(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("c.yaml");
        Files.writeString(file, YAML);
        ClusterSpec spec = ClusterYaml.read(file);
        assertEquals(4, spec.cluster().nodeCount());
        assertEquals("vm-3", spec.cluster().node(3).id());
        // 2 busy V100 at 300 W + host 200 W = 800 W -> 0.8 kWh/h x 0.172 x 1.33
        assertEquals(0.8 * 0.172 * 1.33, spec.cluster().type(0).costPerHour(2), 1e-12);
        assertEquals(0.56, spec.cluster().type(1).costPerHour(1));
        assertEquals(50, spec.objective().rho());
        assertEquals(3600, spec.objective().horizonSeconds());

        Path copy = dir.resolve("copy.yaml");
        ClusterYaml.write(copy, spec);
        ClusterSpec again = ClusterYaml.read(copy);
        assertEquals(spec.cluster().types(), again.cluster().types());
        assertEquals(spec.cluster().nodes(), again.cluster().nodes());
        assertEquals(spec.objective(), again.objective());
    }

    @Test
    void errorsNameFileLineAndNode(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("bad.yaml");
        Files.writeString(file, YAML.replace("type: V100x2", "type: A100"));
        var e = assertThrows(FormatException.class, () -> ClusterYaml.read(file));
        assertTrue(e.getMessage().contains("node n1: unknown node type 'A100'"), e.getMessage());
        Files.writeString(file, YAML.replace("gpus: 1,", "gpus: 1, colour: red,"));
        e = assertThrows(FormatException.class, () -> ClusterYaml.read(file));
        assertTrue(e.getMessage().startsWith(file + ":3: ") && e.getMessage().contains("colour"), e.getMessage());
    }
}
