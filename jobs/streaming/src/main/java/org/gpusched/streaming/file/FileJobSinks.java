package org.gpusched.streaming.file;

import java.nio.file.Path;
import org.apache.avro.generic.GenericRecord;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.gpusched.streaming.JobCodec;
import org.gpusched.streaming.JobSinks;
import org.gpusched.streaming.avro.JobCompleted;
import org.gpusched.streaming.avro.JobMetrics;
import org.gpusched.streaming.avro.JobSubmitted;
import org.gpusched.streaming.avro.NodeEvent;
import org.gpusched.streaming.avro.PlacementDecision;
import org.gpusched.streaming.avro.RejectedRecord;
import org.gpusched.streaming.avro.SchedulingMetrics;

/**
 * Every output as JSON-lines part files in one directory ({@link #DECISIONS}-0.jsonl, ...), read back by
 * {@link RunDirectoryWriter} to assemble run directories.
 */
public final class FileJobSinks implements JobSinks {
    public static final String DECISIONS = "decisions";
    public static final String SCHEDULING_METRICS = "scheduling-metrics";
    public static final String JOB_METRICS = "job-metrics";
    public static final String REJECTED = "rejected";
    public static final String ACCEPTED_JOBS = "accepted-jobs";
    public static final String NODE_TIMELINE = "node-timeline";

    private final Path dir;

    public FileJobSinks(Path dir) {
        this.dir = dir;
    }

    public Path dir() {
        return dir;
    }

    @Override
    public void decisions(DataStream<PlacementDecision> s) {
        sink(s, DECISIONS);
    }

    @Override
    public void schedulingMetrics(DataStream<SchedulingMetrics> s) {
        sink(s, SCHEDULING_METRICS);
    }

    @Override
    public void jobMetrics(DataStream<JobMetrics> s) {
        sink(s, JOB_METRICS);
    }
    /**
     * Not written: every completion is in the decisions as a COMPLETE, and the run directory is assembled from those.
     * Writing them cost a sixth of the file sinks' work on the controller's thread of a centralized replay.
     */
    @Override
    public void completions(DataStream<JobCompleted> s) {}

    @Override
    public void rejected(DataStream<RejectedRecord> s) {
        sink(s, REJECTED);
    }
    /** Accepted jobs are written as jobs.jsonl lines already, so assembling the run directory only merges them. */
    @Override
    public void acceptedJobs(DataStream<JobSubmitted> s) {
        s.sinkTo(new JsonLinesSink<>(dir, ACCEPTED_JOBS, JobCodec::writeTraceLine))
                .uid("file-sink-" + ACCEPTED_JOBS)
                .name(ACCEPTED_JOBS + " file");
    }

    @Override
    public void nodeTimeline(DataStream<NodeEvent> s) {
        sink(s, NODE_TIMELINE);
    }

    private <T extends GenericRecord> void sink(DataStream<T> stream, String name) {
        FileStreams.jsonLines(stream, dir, name, "file-sink-");
    }
}
