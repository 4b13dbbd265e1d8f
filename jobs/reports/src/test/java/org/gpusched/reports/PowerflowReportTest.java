package org.gpusched.reports;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PowerflowReportTest {
    @TempDir
    Path tmp;

    private Path runDirectory() throws Exception {
        Path dir = tmp.resolve("run");
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("results.csv"), """
                run,family,setting,jobs,mean_jct_s,energy_kwh,idle_kwh,makespan_s,refits,profiled
                powerflow@eta0.20,powerflow,0.2,3,3000,40,2,9000,4,true
                powerflow@eta1.00,powerflow,1.0,3,2000,50,2,8000,4,true
                afs@150,afs,150.0,3,2500,41,3,9000,2,true
                afs@250,afs,250.0,3,2600,45,3,9000,2,true
                gandiva+zeus,gandiva+zeus,,3,4000,44,5,9900,0,true
                """);
        Files.writeString(dir.resolve("equal-energy.csv"), """
                baseline,energy_kwh,baseline_mean_jct_s,powerflow_mean_jct_s,ratio,in_range
                afs@150,41,2500,2900,0.8621,true
                """);
        for (String run : List.of("powerflow@eta0.20", "powerflow@eta1.00", "afs@150", "afs@250", "gandiva+zeus"))
            Files.writeString(
                    dir.resolve("power-" + run + ".csv"),
                    "time_s,watts,gpus_allocated,nodes_on\n0.0,800.0,4,1\n3600.0,1500.5,8,1\n7200.0,0.0,0,0\n");
        return dir;
    }

    @Test
    void theReportDrawsEnergyAgainstJctAndGpusAndPowerOverTime() throws Exception {
        Path out = tmp.resolve("out");
        PowerflowReport.write(runDirectory(), out, "pf", "gpusched report run --out out");
        String html = Files.readString(out.resolve(Reports.HTML));
        assertEquals(3, count(html, "<svg"), "three charts");
        assertTrue(html.contains("Mean JCT against total energy"));
        assertTrue(html.contains("GPUs allocated over time"));
        assertTrue(html.contains("Cluster power over time"));
        // one curve per policy family in the first chart's legend, the runs closest to gandiva+zeus (44 kWh) after
        for (String family : List.of("powerflow", "afs", "gandiva+zeus")) assertTrue(html.contains(">" + family + "<"));
        assertTrue(html.contains(">powerflow@eta1.00<"), "eta 1.0 (50 kWh) is nearer 44 kWh than eta 0.2 (40)");
        assertTrue(html.contains(">afs@250<"));
        assertTrue(html.contains("<td>afs@150</td><td>41.0</td><td>0.694</td><td>0.806</td><td>0.86</td>"));
    }

    @Test
    void theShownRunPerPolicyIsTheOneWhoseEnergyIsClosestToGandivaZeus() throws Exception {
        List<PowerflowReport.Run> runs = PowerflowReport.write(runDirectory(), tmp.resolve("o"), "t", null);
        assertEquals(
                List.of("powerflow@eta1.00", "afs@250", "gandiva+zeus"),
                PowerflowReport.shown(runs).stream()
                        .map(PowerflowReport.Run::name)
                        .toList());
    }

    @Test
    void aMissingPowerFileNamesIt() throws Exception {
        Path dir = runDirectory();
        Files.delete(dir.resolve("power-afs@250.csv"));
        ReportInputException e =
                assertThrows(ReportInputException.class, () -> PowerflowReport.write(dir, tmp.resolve("o"), "t", null));
        assertTrue(e.getMessage().contains("power-afs@250.csv"), e.getMessage());
    }

    private static int count(String s, String what) {
        Matcher m = Pattern.compile(Pattern.quote(what)).matcher(s);
        int n = 0;
        while (m.find()) n++;
        return n;
    }
}
