package org.gpusched.reports;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** comparison.csv and report.html of placement runs, on hand-written place-replay run directories. */
class PlacementComparisonTest {
    @TempDir
    Path tmp;

    private Path run(String name, String policy, long seed, double meanWatts, int events) throws Exception {
        Path dir = Files.createDirectories(tmp.resolve(name));
        Files.writeString(
                dir.resolve("metrics.json"),
                "{\"policy\":\"" + policy + "\",\"seed\":" + seed + ",\"placed\":3,\"failed\":1,"
                        + "\"rejected\":2,\"meanEopcWatts\":" + meanWatts
                        + ",\"energyKWh\":0.5,\"meanFragmentedGpus\":1.25}");
        StringBuilder csv = new StringBuilder(
                "time,action,task,running,eopc_cpu_watts,eopc_gpu_watts,eopc_watts,allocated_gpu_fraction,fragmented_gpus\n");
        for (int i = 0; i < events; i++)
            csv.append(i * 10)
                    .append(",PLACE,t")
                    .append(i)
                    .append(",1,10,20,")
                    .append(30 + i)
                    .append(",0.5,0.25\n");
        Files.writeString(dir.resolve("metrics.csv"), csv);
        return dir;
    }

    @Test
    void writesOneRowPerRunWithTheSavingAgainstFgdOfTheSameSeedAndAPageWithFourCharts() throws Exception {
        List<Path> dirs = List.of(
                run("f1", "fgd", 1, 200, 3),
                run("p1", "pwr-fgd a=0.1", 1, 150, 3),
                run("p2", "pwr-fgd a=0.1", 2, 150, 3));
        Path out = tmp.resolve("out");
        List<PlacementComparison.Run> runs = PlacementComparison.write(dirs, out, "t <1>", "gpusched compare x");
        assertEquals(0.0, runs.get(0).savingVsFgdPercent(), 1e-12);
        assertEquals(25.0, runs.get(1).savingVsFgdPercent(), 1e-12);
        assertTrue(Double.isNaN(runs.get(2).savingVsFgdPercent()), "no fgd run with seed 2");
        List<String> csv = Files.readAllLines(out.resolve(Reports.CSV));
        assertEquals(String.join(",", PlacementComparison.COLUMNS), csv.get(0));
        assertTrue(csv.get(2).startsWith("\"pwr-fgd a=0.1\",,1,,3,1,,2,150,,0.500000,,,25,,,1.250000,,"), csv.get(2));
        assertTrue(csv.get(3).contains(",150,,0.500000,,,,,,1.250000,"), "no saving without fgd: " + csv.get(3));
        String html = Files.readString(out.resolve(Reports.HTML));
        assertEquals(4, html.split("<svg", -1).length - 1);
        assertTrue(
                html.contains("<h1>t &lt;1&gt;</h1>") && html.contains("+25.00%"),
                "escaped title and the saving in the table");
    }

    @Test
    void longCurvesAreSampledKeepingFirstAndLastPoint() throws Exception {
        Path dir = run("long", "fgd", 1, 100, 1201);
        double[][] curve = PlacementComparison.readCurve(dir.resolve("metrics.csv"));
        assertTrue(curve.length <= PlacementComparison.MAX_POINTS + 1, "sampled: " + curve.length);
        assertArrayEquals(new double[] {0, 30, 0.5, 0.25}, curve[0]);
        assertArrayEquals(new double[] {12000, 1230, 0.5, 0.25}, curve[curve.length - 1]);
    }

    @Test
    void aDirectoryThatIsNotAPlaceReplayRunIsAnInputError() {
        var e = assertThrows(
                ReportInputException.class,
                () -> PlacementComparison.write(List.of(tmp), tmp.resolve("out"), "t", null));
        assertTrue(e.getMessage().contains("no metrics.json (not a place-replay run directory)"), e.getMessage());
    }
}
