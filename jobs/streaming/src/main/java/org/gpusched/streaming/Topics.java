package org.gpusched.streaming;

import java.util.Arrays;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.specific.SpecificRecordBase;
import org.gpusched.streaming.avro.JobCompleted;
import org.gpusched.streaming.avro.JobMetrics;
import org.gpusched.streaming.avro.JobModelFit;
import org.gpusched.streaming.avro.JobSubmitted;
import org.gpusched.streaming.avro.NodeEvent;
import org.gpusched.streaming.avro.PlacementDecision;
import org.gpusched.streaming.avro.PodEvent;
import org.gpusched.streaming.avro.PodPlacement;
import org.gpusched.streaming.avro.PowerflowJob;
import org.gpusched.streaming.avro.PowerflowJobEnergy;
import org.gpusched.streaming.avro.RejectedRecord;
import org.gpusched.streaming.avro.SchedulingMetrics;
import org.gpusched.streaming.avro.Telemetry;

/**
 * The one registry of the job's topics: name, Avro record class (generated from schemas/*.avsc) and direction.
 * Values are Avro binary of the record's schema, plain or single-object encoded ({@link org.gpusched.streaming.kafka.WireFormat}).
 * {@link #topic(String)} applies an optional prefix so several deployments can share one broker.
 */
public enum Topics {
    SUBMISSIONS("gpusched.jobs.submitted", JobSubmitted.class, true),
    COMPLETIONS("gpusched.jobs.completed", JobCompleted.class, true),
    NODE_EVENTS("gpusched.nodes.events", NodeEvent.class, true),
    TELEMETRY("gpusched.telemetry", Telemetry.class, true),
    DECISIONS("gpusched.decisions", PlacementDecision.class, false),
    SCHEDULING_METRICS("gpusched.metrics.scheduling", SchedulingMetrics.class, false),
    JOB_METRICS("gpusched.metrics.jobs", JobMetrics.class, false),
    REJECTED("gpusched.rejected", RejectedRecord.class, false),
    /** Placement (PWR/FGD policies, {@code run --nodes}): the pods of an Alibaba pod list. */
    PODS("gpusched.pods", PodEvent.class, true),
    /** Placement: the policies' PLACE/FAIL/RELEASE decisions on the pods. */
    POD_PLACEMENTS("gpusched.pod-placements", PodPlacement.class, false),
    /** PowerFlow ({@code run --policy powerflow}): the elastic jobs, with workload, global batch and iterations. */
    POWERFLOW_JOBS("gpusched.powerflow.jobs", PowerflowJob.class, true),
    /** PowerFlow: each job's model as fitted from its telemetry, after every refit. */
    POWERFLOW_MODELS("gpusched.powerflow.models", JobModelFit.class, false),
    /** PowerFlow: each finished job's GPU energy and JCT (live: from the telemetry received; replay: the truth). */
    POWERFLOW_ENERGY("gpusched.powerflow.energy", PowerflowJobEnergy.class, false);

    private final String topic;
    private final Class<? extends SpecificRecordBase> recordClass;
    private final boolean input;

    Topics(String topic, Class<? extends SpecificRecordBase> recordClass, boolean input) {
        this.topic = topic;
        this.recordClass = recordClass;
        this.input = input;
    }

    /** The topic name without prefix. */
    public String topic() {
        return topic;
    }

    /** The part of operator uids and names that stands for this topic ({@code NODE_EVENTS} -> {@code node-events}). */
    public String operatorId() {
        return name().toLowerCase().replace('_', '-');
    }

    /** The topic name with a deployment prefix (empty or null = none). */
    public String topic(String prefix) {
        return prefix == null || prefix.isEmpty() ? topic : prefix + topic;
    }

    public Class<? extends SpecificRecordBase> recordClass() {
        return recordClass;
    }

    public Schema schema() {
        try {
            return (Schema) recordClass.getMethod("getClassSchema").invoke(null);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("generated class " + recordClass + " has no getClassSchema()", e);
        }
    }

    /** Whether the job reads it (completions are read in live mode and written in replay mode). */
    public boolean isInput() {
        return input;
    }

    public boolean isOutput() {
        return !input || this == COMPLETIONS;
    }

    public static List<Topics> all() {
        return Arrays.asList(values());
    }

    /** Whether the placement job ({@code run --nodes}) uses it: pods in, placements and rejected records out. */
    public boolean isPlacement() {
        return this == PODS || this == POD_PLACEMENTS || this == REJECTED;
    }

    /** Whether the scheduler job ({@code run --cluster}) uses it: all but the placement and powerflow jobs' own topics. */
    public boolean isScheduler() {
        return this != PODS
                && this != POD_PLACEMENTS
                && this != POWERFLOW_JOBS
                && this != POWERFLOW_MODELS
                && this != POWERFLOW_ENERGY;
    }

    /**
     * Whether the powerflow job ({@code run --policy powerflow}) uses it: jobs, telemetry and completions in (the last
     * two live only; a replay writes them), decisions, models, job energies and rejected records out.
     */
    public boolean isPowerflow() {
        return this == POWERFLOW_JOBS
                || this == TELEMETRY
                || this == COMPLETIONS
                || this == DECISIONS
                || this == POWERFLOW_MODELS
                || this == POWERFLOW_ENERGY
                || this == REJECTED;
    }

    /** The entry for a topic name (without prefix). */
    public static Topics byTopic(String topic) {
        for (Topics t : values()) if (t.topic.equals(topic)) return t;
        throw new IllegalArgumentException("unknown topic '" + topic + "'");
    }
}
