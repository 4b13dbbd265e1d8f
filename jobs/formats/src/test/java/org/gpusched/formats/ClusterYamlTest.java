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

        assertEquals(null, spec.currency(), "the file names no currency");

        Path priced = dir.resolve("eur.yaml");
        Files.writeString(priced, YAML + "currency: EUR\n");
        assertEquals("EUR", ClusterYaml.read(priced).currency());
        Files.writeString(priced, YAML + "currency: ''\n");
        var e = assertThrows(FormatException.class, () -> ClusterYaml.read(priced));
        assertTrue(e.getMessage().contains("currency: the unit of the prices"), e.getMessage());

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
        assertEquals(file + ":5: nodes[0].type: unknown node type 'A100'; nodeTypes are V100x2, NC6", e.getMessage());
        Files.writeString(file, YAML.replace("gpus: 1,", "gpus: 1, colour: red,"));
        e = assertThrows(FormatException.class, () -> ClusterYaml.read(file));
        assertTrue(e.getMessage().startsWith(file + ":3: ") && e.getMessage().contains("colour"), e.getMessage());
    }

    private static String error(Path dir, String yaml) throws Exception {
        Path file = dir.resolve("c.yaml");
        Files.writeString(file, yaml);
        long start = System.nanoTime();
        var e = assertThrows(FormatException.class, () -> ClusterYaml.read(file));
        assertTrue(
                System.nanoTime() - start < 5_000_000_000L,
                "an error comes at once, not after building a huge cluster");
        assertTrue(e.getMessage().startsWith(file + ":"), e.getMessage());
        return e.getMessage().substring(file.toString().length());
    }

    @Test
    void everyErrorSaysLineKeyAndWhatIsAllowed(@TempDir Path dir) throws Exception {
        assertEquals(
                ":3: nodeTypes.NC6.gpus: must be a whole number in [1, 1024], got -2",
                error(dir, YAML.replace("gpus: 1,", "gpus: -2,")));
        assertEquals(
                ":3: nodeTypes.NC6.gpus: must be a whole number in [1, 1024], got 50000000",
                error(dir, YAML.replace("gpus: 1,", "gpus: 50000000,")));
        assertTrue(error(dir, YAML.replace("gpus: 1,", "gpus: 1.5,"))
                .startsWith(":3: nodeTypes.NC6.gpus: must be a whole number ("));
        assertEquals(
                ":6: nodes[1].count (vm): must be a whole number in [1, 100000], got 2000000000",
                error(dir, YAML.replace("count: 3", "count: 2000000000")));
        assertEquals(
                ":6: nodes[1].count (vm): the cluster would have 100001 nodes, more than the 100000 allowed",
                error(dir, YAML.replace("count: 3", "count: 100000")));
        assertEquals(
                ":2: nodeTypes.V100x2.energy: unknown key 'hostWats' (did you mean 'hostWatts'?); allowed keys: "
                        + "gpuIdleWatts, gpuMaxWatts, hostWatts, pricePerKwh, pue",
                error(dir, YAML.replace("hostWatts", "hostWats")));
        assertEquals(
                ":3: nodeTypes.NC6: unknown key 'gpu' (did you mean 'gpus'?); allowed keys: costPerHour, energy, gpuModel, gpuModel, gpus, pricePerHour"
                        .replace("gpuModel, gpuModel", "gpuModel"),
                error(dir, YAML.replace("gpus: 1,", "gpu: 1,")));
        assertEquals(
                ":6: nodes[1].types[0]: unknown node type 'NC7' (did you mean 'NC6'?); nodeTypes are V100x2, NC6",
                error(dir, YAML.replace("types: [NC6]", "types: [NC7]")));
        assertTrue(error(dir, "").startsWith(": the cluster file is empty"));
        assertTrue(error(dir, "  \n").startsWith(": the cluster file is empty"));
    }

    @Test
    void aRepeatedKeyIsAnErrorNotAnOverride(@TempDir Path dir) throws Exception {
        String twice = YAML + "nodes:\n  - {id: other, type: NC6}\n";
        assertEquals(":8: key 'nodes' is given twice (a second one would replace the first)", error(dir, twice));
        assertTrue(
                error(dir, YAML.replace("gpus: 1,", "gpus: 1, gpus: 2,")).startsWith(":3: key 'gpus' is given twice"));
    }

    @Test
    void aNumberIsReadAsItsDecimalDigitsSayOrRefused(@TempDir Path dir) throws Exception {
        assertEquals(
                ":3: nodeTypes.NC6.gpus: '010' is not a plain decimal number (YAML 1.1 reads it as 8); write the number"
                        + " in decimal digits, without leading zeros",
                error(dir, YAML.replace("gpus: 1,", "gpus: 010,")));
        assertTrue(error(dir, YAML.replace("gpus: 1,", "gpus: 0x10,"))
                .startsWith(":3: nodeTypes.NC6.gpus: '0x10' is not a plain decimal number (YAML 1.1 reads it as 16)"));
        assertTrue(error(dir, YAML.replace("pricePerHour: 0.56", "pricePerHour: 1_000"))
                .startsWith(":3: nodeTypes.NC6.pricePerHour: '1_000' is not a plain decimal number"));
        assertEquals(
                ":3: nodeTypes.NC6.pricePerHour: must be a number, not a quoted text (write it without quotes)",
                error(dir, YAML.replace("pricePerHour: 0.56", "pricePerHour: '0.12'")));
        assertEquals(
                ":3: nodeTypes.NC6.gpus: must be a whole number, not a quoted text (write it without quotes)",
                error(dir, YAML.replace("gpus: 1,", "gpus: \"1\",")));
        // plain forms stay numbers
        Path file = dir.resolve("plain.yaml");
        Files.writeString(
                file, YAML.replace("pricePerHour: 0.56", "pricePerHour: .56e0").replace("rho: 50", "rho: 5e1"));
        assertEquals(0.56, ClusterYaml.read(file).cluster().type(1).costPerHour(1));
        assertEquals(50, ClusterYaml.read(file).objective().rho());
    }

    @Test
    void aTypeWithoutItsGpuModelOrASecondDocumentIsAnError(@TempDir Path dir) throws Exception {
        assertTrue(
                error(dir, YAML.replace("gpuModel: K80, ", "")).startsWith(":3: nodeTypes.NC6.gpuModel: missing"),
                error(dir, YAML.replace("gpuModel: K80, ", "")));
        assertEquals(
                ":9: a second YAML document (after '---'): a cluster file holds one document, and a second would be"
                        + " ignored",
                error(dir, YAML + "---\nnodes:\n  - {id: other, type: NC6}\n"));
    }

    @Test
    void aLineTooLongForAClusterFileIsRefusedBeforeItIsScanned(@TempDir Path dir) throws Exception {
        // the YAML scanner takes time in the square of a token's length: 10 MB of comment was a minute
        assertEquals(
                ":2: the line is 10,000,002 characters, over the limit of 65,536 for a line of a cluster file",
                error(dir, "# cluster\n# " + "x".repeat(10_000_000) + "\n" + YAML));
        // a cost table of 1,024 GPUs on one line is far within it
        StringBuilder rates = new StringBuilder("0");
        for (int g = 1; g <= 1024; g++) rates.append(", ").append(0.123456789 * g);
        Path big = dir.resolve("big.yaml");
        Files.writeString(
                big,
                "nodeTypes:\n  Big: {gpuModel: H100, gpus: 1024, costPerHour: [" + rates
                        + "]}\nnodes:\n  - {id: n, type: Big}\n");
        assertEquals(1024, ClusterYaml.read(big).cluster().type(0).gpus());
    }

    @Test
    void aByteOrderMarkAtTheStartIsRead(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("bom.yaml");
        Files.writeString(file, "\ufeff" + YAML);
        assertEquals(4, ClusterYaml.read(file).cluster().nodeCount());
    }
}
