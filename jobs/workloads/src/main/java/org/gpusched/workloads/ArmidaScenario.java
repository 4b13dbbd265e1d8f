package org.gpusched.workloads;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import org.gpusched.core.model.Cluster;
import org.gpusched.core.model.Job;
import org.gpusched.core.model.Node;
import org.gpusched.core.objective.ObjectiveParameters;
import org.gpusched.core.random.RandomState;
import org.gpusched.formats.ClusterSpec;
import org.gpusched.formats.TraceJob;

/**
 * The ARMIDA prototype of the ANDREAS paper (section V.C, Appendix B): nodes armida-05 (1 x V100), armida-06
 * (2 x V100) and armida-07 (1 x T4) with the same energy model as {@link AndreasScenario}, and the 8 jobs of
 * Table V submitted every 1200 s in the table's order.
 * <p>
 * Table V's d_j are <b>relative to submission</b>: read as absolute times, J1 (S = 6000 s, d = 5600 s) would be due
 * before it is submitted, and the paper reports every job met its due date. So due = S_j + d_j.
 * H = 300 s: the prototype's optimizer ran every 5 minutes. rho = 100, mu = 0.
 * <p>
 * More jobs than 8 ({@code --jobs}) repeat the protocol by sampling: each further job copies a row of Table V drawn
 * uniformly with the seed (application, epochs, batch, relative due date, weight) and keeps the 1200 s cadence.
 */
public final class ArmidaScenario implements Scenario {
    public static final double GAP_SECONDS = 1200;
    public static final ObjectiveParameters OBJECTIVE = new ObjectiveParameters(100, 300, 0);

    /** Table V: id, application, epochs, batch size, relative due date (s), weight. Submission = index x 1200 s. */
    record Row(String id, String application, int epochs, int batch, double relativeDue, double weight) {}

    static final List<Row> TABLE_V = List.of(
            new Row("J6", "EfficientNet", 80, 4096, 3600, 4),
            new Row("J9", "ConvNet", 160, 8192, 2600, 2),
            new Row("J10", "ConvNet", 80, 8192, 7600, 3),
            new Row("J7", "LSTM-big", 160, 8192, 17600, 3),
            new Row("J8", "LSTM-small", 160, 8192, 7600, 3),
            new Row("J1", "LSTM-big", 60, 8192, 5600, 5),
            new Row("J2", "LSTM-small", 60, 8192, 12600, 2),
            new Row("J3", "EfficientNet", 60, 4096, 11600, 1));

    private final ApplicationCatalog catalog;
    private final List<JobTimes.TypeShape> shapes = List.of(
            new JobTimes.TypeShape("V100x1", "V100", 1),
            new JobTimes.TypeShape("V100x2", "V100", 2),
            new JobTimes.TypeShape("T4x1", "T4", 1));
    private final ClusterSpec cluster;

    public ArmidaScenario(ApplicationCatalog catalog) {
        this(AndreasScenario.Energy.MEASURED, catalog);
    }

    public ArmidaScenario(AndreasScenario.Energy energy, ApplicationCatalog catalog) {
        this.catalog = catalog;
        this.cluster = new ClusterSpec(
                new Cluster(
                        List.of(
                                AndreasScenario.energyType(catalog, "V100x1", "V100", 1, energy),
                                AndreasScenario.energyType(catalog, "V100x2", "V100", 2, energy),
                                AndreasScenario.energyType(catalog, "T4x1", "T4", 1, energy)),
                        List.of(
                                Node.fixed("armida-05", "V100x1"),
                                Node.fixed("armida-06", "V100x2"),
                                Node.fixed("armida-07", "T4x1"))),
                OBJECTIVE);
    }

    @Override
    public String name() {
        return "armida";
    }

    @Override
    public ClusterSpec cluster() {
        return cluster;
    }

    @Override
    public int defaultJobs() {
        return TABLE_V.size();
    }

    @Override
    public Iterator<TraceJob> jobs(long count, long seed) {
        RandomState rng = RandomState.derive(seed, 0xA4D1DAL);
        return new Iterator<>() {
            long produced;

            @Override
            public boolean hasNext() {
                return produced < count;
            }

            @Override
            public TraceJob next() {
                if (!hasNext()) throw new NoSuchElementException();
                long k = produced++;
                Row row = k < TABLE_V.size() ? TABLE_V.get((int) k) : TABLE_V.get(rng.nextInt(TABLE_V.size()));
                String id = k < TABLE_V.size() ? row.id() : "J" + (k - TABLE_V.size() + 11);
                double submit = k * GAP_SECONDS;
                JobTimes t =
                        JobTimes.of(catalog, shapes, catalog.application(row.application()), row.epochs(), row.batch());
                // armida-05 and armida-06 share the V100 model: the times differ only in the GPU counts available.
                Map<String, Object> extras = new LinkedHashMap<>();
                extras.put("application", row.application());
                extras.put("epochs", row.epochs());
                extras.put("batchSize", row.batch());
                if (k >= TABLE_V.size()) extras.put("sampledFrom", row.id());
                return new TraceJob(new Job(id, submit, submit + row.relativeDue(), row.weight(), t.times), extras);
            }
        };
    }

    @Override
    public String describe() {
        return "armida: armida-05 (1xV100), armida-06 (2xV100), armida-07 (1xT4); Table V jobs every 1200 s, due = S_j + d_j; "
                + "energy 0.172 EUR/kWh x PUE 1.33; rho 100, H 300 s, mu 0";
    }
}
