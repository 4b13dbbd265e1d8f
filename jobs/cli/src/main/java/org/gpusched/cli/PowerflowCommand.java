package org.gpusched.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import org.gpusched.powerflow.policy.PowerFlowPolicy;
import org.gpusched.powerflow.policy.TimeSlicing;
import org.gpusched.powerflow.sim.AlibabaSampler;
import org.gpusched.powerflow.sim.Experiment;
import org.gpusched.powerflow.sim.ModelSource;
import org.gpusched.powerflow.sim.PolicySet;
import org.gpusched.powerflow.sim.TraceFiles;
import org.gpusched.powerflow.sim.TraceJob;
import org.gpusched.powerflow.truth.GroundTruth;
import org.gpusched.powerflow.truth.PowerflowConfig;
import org.gpusched.powerflow.truth.ZeusMeasurements;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code gpusched powerflow}: PowerFlow and its baselines over one trace, mean JCT against energy. */
@Command(
        name = "powerflow",
        mixinStandardHelpOptions = true,
        description = {
            "Simulates PowerFlow (energy-budgeted elastic GPU and clock allocation) and its baselines over one job "
                    + "trace, event by event, with models fitted online from simulated telemetry (the ground truth: "
                    + "Zeus V100 measurements and the scaling model of conf/powerflow.yaml). powerflow runs once per "
                    + "--eta; tiresias, gandiva and afs once per --limits power limit; tiresias+zeus and gandiva+zeus "
                    + "once. gandiva and gandiva+zeus are first come, first served; with --gandiva-quantum they time-slice "
                    + "an oversubscribed cluster round-robin (--gandiva-resume: the overhead per resume). Input: --trace (JSON Lines: id, submit, workload, batch, gpus, iterations) or --pods (an "
                    + "Alibaba 2023 pod list; --jobs jobs sampled over 24 h, written to DIR/trace.jsonl). Writes "
                    + "DIR/summary.txt, results.csv, results.json, equal-energy.csv, jobs-RUN.csv, power-RUN.csv, "
                    + "decisions-RUN.csv, setup.json, powerflow.yaml and trace.jsonl; `gpusched report DIR` draws it, "
                    + "`gpusched validate DIR` recomputes its energy. Details: docs/powerflow.md.",
            "A loaded cluster: PowerFlow's gains need jobs that queue. The paper's 1,901-job, 24-hour trace (seeds 1-3) "
                    + "holds jobs asking for 74-89 GPUs on average over the day and 114-140 at the peak with no queue "
                    + "(generate --scenario powerflow prints it for a trace): 48 GPUs queue heavily (the "
                    + "reproduction's main cluster), 56-72 less; at 128 or more the baselines finish jobs about as fast "
                    + "as an empty cluster would and only scale-out is left (docs/powerflow.md#the-reproduction)."
        })
public final class PowerflowCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--trace", paramLabel = "FILE", description = "A PowerFlow trace (JSON Lines).")
    Path trace;

    @Option(
            names = "--pods",
            paramLabel = "CSV",
            description = "Sample the trace from this Alibaba 2023 pod list instead (openb_pod_list_default.csv).")
    Path pods;

    @Option(
            names = "--jobs",
            paramLabel = "N",
            defaultValue = "200",
            description = "With --pods: jobs sampled in the 24-hour window (default: ${DEFAULT-VALUE}).")
    int jobs;

    @Option(
            names = "--gpus",
            paramLabel = "G",
            defaultValue = "64",
            description = "Cluster GPUs, a multiple of the node size (default: ${DEFAULT-VALUE}).")
    int gpus;

    @Option(
            names = "--policies",
            paramLabel = "LIST",
            split = ",",
            defaultValue = "powerflow,tiresias,gandiva,afs,tiresias+zeus,gandiva+zeus",
            description = "Policies (default: ${DEFAULT-VALUE}).")
    List<String> policies;

    @Option(
            names = "--eta",
            paramLabel = "LIST",
            split = ",",
            defaultValue = "0.2,0.3,0.4,0.5,0.6,0.8,1.0",
            description = "PowerFlow's power budgets, fractions of G x P_max (default: ${DEFAULT-VALUE}).")
    List<Double> etas;

    @Option(
            names = "--limits",
            paramLabel = "LIST",
            split = ",",
            defaultValue = "150,200,250",
            description =
                    "Cluster-wide power limits (W) for the non-energy-aware baselines (default: ${DEFAULT-VALUE}).")
    List<Double> limits;

    @Option(
            names = "--seed",
            paramLabel = "S",
            defaultValue = "1",
            description = "Seed of telemetry noise and sampling (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(
            names = "--config",
            paramLabel = "FILE",
            description = "Ground-truth configuration (default: the bundled conf/powerflow.yaml).")
    Path config;

    @Option(
            names = "--models",
            paramLabel = "fitted|truth|truth-profiled",
            defaultValue = "fitted",
            description = "What the policies that read job models see: fitted (fitted online from telemetry after"
                    + " PowerFlow's profiling), truth (each job's ground truth, nothing profiled: the paper's Figure 9"
                    + " ideal case) or truth-profiled (the ground truth, with PowerFlow's jobs profiled as when fitted:"
                    + " the profiling's cost without the models' error) (default: fitted).")
    String models;

    @Option(names = "--truth-models", description = "The same as --models truth (the paper's Figure 9 comparison).")
    boolean truthModels;

    @Option(
            names = "--priority",
            paramLabel = "CLUSTER|JOB",
            defaultValue = "CLUSTER",
            converter = NormalizerConverter.class,
            description = "What eq. 20-21's relative JCT and energy changes are relative to: the cluster's totals (the"
                    + " paper's text) or the job's own (default: cluster).")
    PowerFlowPolicy.Normalizer priority;

    @Option(
            names = "--gandiva-quantum",
            paramLabel = "SECONDS",
            defaultValue = "0",
            description = "Gandiva's time-slicing quantum: while jobs wait, at every multiple of it the jobs that have"
                    + " run longest since their last resume are suspended for the longest-waiting ones (round-robin);"
                    + " 0: no time-slicing, running jobs are never suspended, first come first served; 60 is"
                    + " Gandiva's one-minute slice (default: ${DEFAULT-VALUE}).")
    double gandivaQuantum;

    @Option(
            names = "--gandiva-resume",
            paramLabel = "SECONDS",
            defaultValue = "1",
            description = "Gandiva's suspend/resume overhead when it time-slices: a resumed job holds its GPUs this"
                    + " long, powered, without progress (default: ${DEFAULT-VALUE}).")
    double gandivaResume;

    @Option(
            names = "--budget-check",
            paramLabel = "node-boundary|strict",
            defaultValue = "node-boundary",
            converter = BudgetCheckConverter.class,
            description = "How PowerFlow's budget bounds a decision: node-boundary (Algorithm 1: GPUs handed out until"
                    + " a full node brings the predicted power to the budget, clocks raised while within it) or strict"
                    + " (no step may exceed it) (default: ${DEFAULT-VALUE}).")
    PowerFlowPolicy.BudgetCheck budgetCheck;

    @Option(
            names = "--start-limit",
            paramLabel = "efficient|least-energy",
            defaultValue = "efficient",
            converter = StartLimitConverter.class,
            description =
                    "The limit a PowerFlow job starts at before clocks are raised: efficient (the paper's, eq. 17's"
                            + " least step time x energy per iteration) or least-energy (the least energy per iteration: more"
                            + " jobs run under a budget that binds) (default: ${DEFAULT-VALUE}).")
    PowerFlowPolicy.StartLimit startLimit;

    /** A picocli converter from an enum's command-line label, whose parse error becomes picocli's usage error. */
    abstract static class LabelConverter<T> implements picocli.CommandLine.ITypeConverter<T> {
        private final java.util.function.Function<String, T> parse;

        LabelConverter(java.util.function.Function<String, T> parse) {
            this.parse = parse;
        }

        @Override
        public T convert(String value) {
            try {
                return parse.apply(value);
            } catch (IllegalArgumentException e) {
                throw new picocli.CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }

    static final class StartLimitConverter extends LabelConverter<PowerFlowPolicy.StartLimit> {
        StartLimitConverter() {
            super(PowerFlowPolicy.StartLimit::parse);
        }
    }

    static final class BudgetCheckConverter extends LabelConverter<PowerFlowPolicy.BudgetCheck> {
        BudgetCheckConverter() {
            super(PowerFlowPolicy.BudgetCheck::parse);
        }
    }

    static final class NormalizerConverter implements picocli.CommandLine.ITypeConverter<PowerFlowPolicy.Normalizer> {
        @Override
        public PowerFlowPolicy.Normalizer convert(String value) {
            try {
                return PowerFlowPolicy.Normalizer.valueOf(value.toUpperCase(java.util.Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new picocli.CommandLine.TypeConversionException("'" + value + "' is not cluster or job");
            }
        }
    }

    @Option(names = "--out", required = true, paramLabel = "DIR", description = "Run directory (created).")
    Path out;

    @Override
    public Integer call() {
        PrintWriter o = spec.commandLine().getOut(), err = spec.commandLine().getErr();
        try {
            ModelSource source = modelSource();
            if ((trace == null) == (pods == null))
                throw new IllegalArgumentException("give exactly one of --trace and --pods");
            PowerflowConfig cfg = config == null ? PowerflowConfig.defaults() : PowerflowConfig.read(config);
            GroundTruth truth = new GroundTruth(cfg, ZeusMeasurements.v100());
            for (double l : limits)
                if (!cfg.gpu().powerLimits().contains(l))
                    throw new IllegalArgumentException("--limits: " + l + " W is not a supported limit "
                            + cfg.gpu().powerLimits());
            List<PolicySet.Run> runs = PolicySet.expand(
                    policies,
                    etas,
                    limits,
                    priority,
                    budgetCheck,
                    startLimit,
                    TimeSlicing.of(gandivaQuantum, gandivaResume));
            List<TraceJob> jobList;
            if (pods != null) {
                jobList = AlibabaSampler.sample(pods, jobs, 86400, seed, truth);
            } else {
                jobList = TraceFiles.read(trace, truth);
            }
            List<Experiment.Row> rows = Experiment.run(truth, jobList, gpus, seed, source, runs, out, err);
            o.print(Experiment.table(rows, Experiment.versus(rows)));
            o.println("wrote " + out);
            o.flush();
            return ExitCode.OK;
        } catch (IllegalArgumentException e) {
            err.println("gpusched powerflow: " + e.getMessage());
            return ExitCode.BAD_INPUT;
        } catch (IOException e) {
            err.println("gpusched powerflow: " + e.getMessage());
            return ExitCode.BAD_INPUT;
        }
    }

    private ModelSource modelSource() {
        ModelSource source;
        try {
            source = ModelSource.ofLabel(models);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--models: " + e.getMessage());
        }
        if (!truthModels) return source;
        if (source == ModelSource.TRUTH_PROFILED)
            throw new IllegalArgumentException("--truth-models is --models truth; give one of them");
        return ModelSource.TRUTH;
    }
}
