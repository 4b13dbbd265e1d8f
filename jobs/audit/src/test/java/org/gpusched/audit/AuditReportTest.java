package org.gpusched.audit;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AuditReportTest {
    @Test
    void countsPrintAsIntegersAndAmountsWithDecimals() {
        Map<String, Double> recomputed = new LinkedHashMap<>();
        recomputed.put("totalCost", 12.0);
        recomputed.put("tardyJobs", 3.0);
        recomputed.put("completedJobs", 200.0);
        Map<String, Double> reported = new LinkedHashMap<>(recomputed);
        reported.put("completedJobs", 199.5); // a reported count that is not whole is shown as it is
        String text = new AuditReport(List.of(), Map.of(), recomputed, reported, 200, 4, 400).format();
        assertTrue(text.lines().anyMatch(l -> l.matches("tardyJobs +3 +3")), text);
        assertTrue(text.lines().anyMatch(l -> l.matches("completedJobs +199\\.500000 +200")), text);
        assertTrue(text.lines().anyMatch(l -> l.matches("totalCost +12\\.000000 +12\\.000000")), text);
    }
}
