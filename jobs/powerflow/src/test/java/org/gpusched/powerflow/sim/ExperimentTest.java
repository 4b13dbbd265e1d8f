package org.gpusched.powerflow.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class ExperimentTest {
    private static Experiment.Row row(String run, String family, double jct, double kwh) {
        return new Experiment.Row(run, family, 0, 10, jct, kwh, 0, 0, 0, true, 0);
    }

    @Test
    void equalEnergyInterpolatesOnPowerflowsParetoFrontOnly() {
        List<Experiment.Row> rows = List.of(
                row("pf-a", "powerflow", 8000, 38), // dominated by pf-b: more energy and slower
                row("pf-b", "powerflow", 4000, 36),
                row("pf-c", "powerflow", 3000, 42),
                row("base", "tiresias", 4500, 39),
                row("far", "afs", 5000, 20));
        List<Experiment.Versus> v = Experiment.versus(rows);
        assertEquals(2, v.size());
        // at 39 kWh, half-way from pf-b (36, 4000) to pf-c (42, 3000): 3500
        assertEquals(3500, v.get(0).powerflowJct(), 1e-9);
        assertEquals(4500 / 3500.0, v.get(0).speedup(), 1e-12);
        assertTrue(v.get(0).inRange());
        assertFalse(v.get(1).inRange(), "20 kWh is below every PowerFlow run");
        // within 5% of 39 kWh (37.05-40.95): pf-b at 36 is not, so no comparable run
        assertTrue(Double.isNaN(v.get(0).comparableRatio()));
    }

    @Test
    void aBaselineJustOutsidePowerflowsRangeIsNotInRangeButComparableWithin5Percent() {
        List<Experiment.Row> rows = List.of(
                row("pf-low", "powerflow", 9000, 100),
                row("pf-high", "powerflow", 3000, 104),
                row("gandiva+zeus", "gandiva+zeus", 18000, 98),
                row("tiresias@250", "tiresias", 7000, 110),
                row("tiresias@150", "tiresias", 8000, 99));
        List<Experiment.Versus> v = Experiment.versus(rows);
        Experiment.Versus zeus = v.get(0);
        assertFalse(zeus.inRange(), "98 kWh is below the front's 100");
        assertEquals(2.0, zeus.speedup(), 1e-12, "outside: the nearest end's JCT");
        // pf-low (100) and pf-high (104) are within 5% of 98 (93.1-102.9)? only pf-low
        assertEquals(18000 / 9000.0, zeus.comparableRatio(), 1e-12);
        List<Experiment.Figure8> f = Experiment.figure8(rows, v);
        assertEquals(
                List.of("powerflow", "gandiva+zeus", "tiresias"),
                f.stream().map(Experiment.Figure8::family).toList());
        assertEquals("pf-low", f.get(0).run(), "PowerFlow's run closest to gandiva+zeus' 98 kWh");
        assertEquals("tiresias@150", f.get(2).run());
        assertEquals(8000 / 9000.0, f.get(2).ratio(), 1e-12);
    }
}
