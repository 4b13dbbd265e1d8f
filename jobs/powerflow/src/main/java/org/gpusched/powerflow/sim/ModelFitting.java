package org.gpusched.powerflow.sim;

import java.util.List;
import org.gpusched.powerflow.model.JobModel;
import org.gpusched.powerflow.model.ModelFitter;
import org.gpusched.powerflow.model.Observation;
import org.gpusched.powerflow.model.ObservationLog;
import org.gpusched.powerflow.model.PerformanceModel;
import org.gpusched.powerflow.model.ScaleOutPrior;
import org.gpusched.powerflow.policy.ClusterView;
import org.gpusched.powerflow.truth.GroundTruth;
import org.gpusched.powerflow.truth.PowerflowConfig;

/**
 * How a job's model is fitted, in the simulator and the streaming replay alike: {@link ModelFitter} on the job's
 * telemetry, afresh on its pre-run and warm-started after, with the {@link ScaleOutPrior}'s pseudo-observations at the
 * configurations it has not run at ({@code prior} false: the telemetry alone). The prior reads only what a scheduler
 * may know: the workload's measured batch sweep, its gradient size and the cluster's nominal link bandwidths.
 */
public final class ModelFitting implements ClusterRun.Fitter {
    private final GroundTruth truth;
    private final ClusterView cluster;
    private final boolean prior;
    private final double[] levels;

    public ModelFitting(GroundTruth truth, ClusterView cluster, boolean prior) {
        this.truth = truth;
        this.cluster = cluster;
        this.prior = prior;
        this.levels = truth.config().gpu().freqLevels();
    }

    /** On a cluster of {@code gpus} GPUs of the truth's hardware. */
    public ModelFitting(GroundTruth truth, int gpus, boolean prior) {
        this(truth, Simulation.cluster(truth, gpus), prior);
    }

    public ClusterView cluster() {
        return cluster;
    }

    @Override
    public JobModel fit(JobRun job, JobModel previous) {
        return fit(job.workload(), job.batch(), job.maxGpus, job.log(), previous);
    }

    /**
     * A fit of a job of {@code workload} at global batch {@code batch} (up to {@code maxGpus} workers; null workload:
     * no prior) on {@code log}, warm-started from {@code previous} (null: afresh).
     */
    public JobModel fit(String workload, double batch, int maxGpus, ObservationLog log, JobModel previous) {
        return fit(workload, batch, maxGpus, log, previous, prior && workload != null);
    }

    JobModel fit(JobRun job, ObservationLog log, JobModel previous, boolean withPrior) {
        return fit(job.workload(), job.batch(), job.maxGpus, log, previous, withPrior);
    }

    private JobModel fit(
            String workload, double batch, int maxGpus, ObservationLog log, JobModel previous, boolean withPrior) {
        List<Observation> obs = log.observations();
        List<Observation> pseudo = withPrior ? prior(workload, batch, maxGpus).pseudoObservations(log) : List.of();
        return previous == null
                ? ModelFitter.fit(obs, pseudo, levels)
                : ModelFitter.refit((PerformanceModel) previous, obs, pseudo, levels);
    }

    /** The prior of a job of {@code workload} at global batch {@code batch} with up to {@code maxGpus} workers. */
    public ScaleOutPrior prior(String workload, double batch, int maxGpus) {
        PowerflowConfig c = truth.config();
        return new ScaleOutPrior(
                truth.sweep(workload),
                batch,
                c.workload(workload).gradientMB(),
                c.scaling().intraNodeGBps(),
                c.scaling().interNodeGBps(),
                cluster.gpusPerNode(),
                cluster.powerLimits(),
                maxGpus);
    }
}
