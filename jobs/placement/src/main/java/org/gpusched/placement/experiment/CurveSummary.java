package org.gpusched.placement.experiment;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Seed-averaged curves per policy (the paper reports each metric averaged over its 10 repetitions at equal requested
 * capacity) and the numbers the paper's claims are checked against: power saving vs FGD and GRAR.
 */
public final class CurveSummary {
    /** Mean over seeds at one grid point. */
    public record Mean(
            double x,
            double eopcCpuWatts,
            double eopcGpuWatts,
            double grar,
            double fragmentedGpus,
            double failedTasks,
            int seeds) {
        public double eopcWatts() {
            return eopcCpuWatts + eopcGpuWatts;
        }
    }

    /** One summary-table row. NaN where not applicable (no FGD run, or the curve does not reach x). */
    public record Row(
            PolicySpec policy,
            double meanSavingTo80,
            double minSaving15To80,
            double savingAt90,
            double grarAt90,
            double grarAt95,
            double grarAt100,
            double grarAtEnd,
            double firstFailureX,
            double failedAtEnd,
            double microsPerDecision) {}

    private final Map<PolicySpec, TreeMap<Double, Mean>> means = new LinkedHashMap<>();
    private final List<Row> rows = new ArrayList<>();

    public CurveSummary(InflationExperiment.Result result) {
        Map<PolicySpec, TreeMap<Double, List<CurvePoint>>> grouped = new LinkedHashMap<>();
        for (CurvePoint p : result.curve())
            grouped.computeIfAbsent(p.policy(), k -> new TreeMap<>())
                    .computeIfAbsent(p.requestedGpuFraction(), k -> new ArrayList<>())
                    .add(p);
        grouped.forEach((policy, byX) -> {
            TreeMap<Double, Mean> m = new TreeMap<>();
            byX.forEach((x, pts) -> m.put(
                    x,
                    new Mean(
                            x,
                            pts.stream()
                                    .mapToDouble(CurvePoint::eopcCpuWatts)
                                    .average()
                                    .orElse(Double.NaN),
                            pts.stream()
                                    .mapToDouble(CurvePoint::eopcGpuWatts)
                                    .average()
                                    .orElse(Double.NaN),
                            pts.stream().mapToDouble(CurvePoint::grar).average().orElse(Double.NaN),
                            pts.stream()
                                    .mapToDouble(CurvePoint::fragmentedGpus)
                                    .average()
                                    .orElse(Double.NaN),
                            pts.stream()
                                    .mapToDouble(CurvePoint::failedTasks)
                                    .average()
                                    .orElse(Double.NaN),
                            pts.size())));
            means.put(policy, m);
        });
        PolicySpec fgd = fgd();
        for (PolicySpec policy : means.keySet()) {
            TreeMap<Double, Mean> m = means.get(policy);
            double sumSaving = 0, minSaving = Double.POSITIVE_INFINITY;
            int count = 0;
            for (Mean mean : m.values()) {
                double s = saving(policy, mean.x());
                if (Double.isNaN(s)) continue;
                if (mean.x() <= 0.8 + 1e-9) {
                    sumSaving += s;
                    count++;
                }
                if (mean.x() >= 0.15 - 1e-9 && mean.x() <= 0.8 + 1e-9) minSaving = Math.min(minSaving, s);
            }
            List<InflationRun.Result> runs = result.runs().stream()
                    .filter(r -> r.policy().equals(policy))
                    .toList();
            double firstFailure = runs.stream()
                    .mapToDouble(r -> r.curve().stream()
                            .filter(p -> p.failedTasks() > 0)
                            .mapToDouble(CurvePoint::requestedGpuFraction)
                            .findFirst()
                            .orElse(Double.NaN))
                    .average()
                    .orElse(Double.NaN);
            double micros = runs.stream()
                    .mapToDouble(r -> r.placeNanos() / 1e3 / r.tasks())
                    .average()
                    .orElse(Double.NaN);
            double failedEnd = runs.stream()
                    .mapToDouble(InflationRun.Result::failed)
                    .average()
                    .orElse(Double.NaN);
            rows.add(new Row(
                    policy,
                    fgd == null || count == 0 ? Double.NaN : sumSaving / count,
                    minSaving == Double.POSITIVE_INFINITY ? Double.NaN : minSaving,
                    saving(policy, 0.9),
                    grar(policy, 0.9),
                    grar(policy, 0.95),
                    grar(policy, 1.0),
                    m.lastEntry().getValue().grar(),
                    firstFailure,
                    failedEnd,
                    micros));
        }
    }

    public Map<PolicySpec, TreeMap<Double, Mean>> means() {
        return means;
    }

    public List<Row> rows() {
        return rows;
    }

    public PolicySpec fgd() {
        return means.keySet().stream()
                .filter(p -> p.name().equals("fgd"))
                .findFirst()
                .orElse(null);
    }

    /** (EOPC_FGD - EOPC_policy) / EOPC_FGD at x, in percent; NaN without FGD or a point at x. */
    public double saving(PolicySpec policy, double x) {
        PolicySpec fgd = fgd();
        if (fgd == null) return Double.NaN;
        Mean base = at(fgd, x), own = at(policy, x);
        if (base == null || own == null) return Double.NaN;
        return 100 * (base.eopcWatts() - own.eopcWatts()) / base.eopcWatts();
    }

    public double grar(PolicySpec policy, double x) {
        Mean m = at(policy, x);
        return m == null ? Double.NaN : m.grar();
    }

    private Mean at(PolicySpec policy, double x) {
        TreeMap<Double, Mean> m = means.get(policy);
        if (m == null) return null;
        Map.Entry<Double, Mean> e = m.ceilingEntry(x - 1e-9);
        return e == null || Math.abs(e.getKey() - x) > 1e-6 ? null : e.getValue();
    }
}
