package org.gpusched.streaming.kafka;

import org.gpusched.streaming.avro.JobCompleted;
import org.gpusched.streaming.avro.JobMetrics;
import org.gpusched.streaming.avro.PlacementDecision;
import org.gpusched.streaming.avro.PodPlacement;
import org.gpusched.streaming.avro.RejectedRecord;
import org.gpusched.streaming.avro.SchedulingMetrics;

/** The serializers of the output topics, one named class each (see {@link AvroRecordSerializer}). */
public final class OutputSerializers {
    private OutputSerializers() {}

    /** Decisions keyed by job: a job's START, MIGRATE, ..., COMPLETE stay in order. */
    public static final class Decisions extends AvroRecordSerializer<PlacementDecision> {
        private static final long serialVersionUID = 1L;

        public Decisions(String topic) {
            super(PlacementDecision.class, topic);
        }

        @Override
        protected String key(PlacementDecision d) {
            return d.getJob();
        }
    }

    /** Scheduling metrics keyed by policy/controller: each controller's series stays in order. */
    public static final class Scheduling extends AvroRecordSerializer<SchedulingMetrics> {
        private static final long serialVersionUID = 1L;

        public Scheduling(String topic) {
            super(SchedulingMetrics.class, topic);
        }

        @Override
        protected String key(SchedulingMetrics m) {
            return m.getPolicy() + "/" + m.getController();
        }
    }

    /** Per-job metrics keyed by job. */
    public static final class Jobs extends AvroRecordSerializer<JobMetrics> {
        private static final long serialVersionUID = 1L;

        public Jobs(String topic) {
            super(JobMetrics.class, topic);
        }

        @Override
        protected String key(JobMetrics m) {
            return m.getJob();
        }
    }

    /** Simulated completions (replay) keyed by job. */
    public static final class Completions extends AvroRecordSerializer<JobCompleted> {
        private static final long serialVersionUID = 1L;

        public Completions(String topic) {
            super(JobCompleted.class, topic);
        }

        @Override
        protected String key(JobCompleted c) {
            return c.getJob();
        }
    }

    /** Rejected input keyed by the topic or file it came from. */
    public static final class Rejected extends AvroRecordSerializer<RejectedRecord> {
        private static final long serialVersionUID = 1L;

        public Rejected(String topic) {
            super(RejectedRecord.class, topic);
        }

        @Override
        protected String key(RejectedRecord r) {
            return r.getSource();
        }
    }

    /** Placement decisions keyed by run: each run's PLACE/FAIL/RELEASE stay in order. */
    public static final class PodPlacements extends AvroRecordSerializer<PodPlacement> {
        private static final long serialVersionUID = 1L;

        public PodPlacements(String topic) {
            super(PodPlacement.class, topic);
        }

        @Override
        protected String key(PodPlacement p) {
            return p.getRun();
        }
    }
}
