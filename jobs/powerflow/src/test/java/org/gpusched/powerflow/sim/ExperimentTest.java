package org.gpusched.powerflow.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class ExperimentTest {
    private static Experiment.Row row(String run, String family, double jct, double kwh) {
        return new Experiment.Row(run, family, 0, 10, jct, kwh, 0, 0, 0, true);
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
    }
}
