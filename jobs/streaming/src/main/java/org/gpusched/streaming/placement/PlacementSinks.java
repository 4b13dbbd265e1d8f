package org.gpusched.streaming.placement;

import org.apache.flink.streaming.api.datastream.DataStream;
import org.gpusched.streaming.avro.RejectedRecord;

/**
 * Where the placement job's output goes (the pod-placements topic, a run directory through the client, collecting sinks
 * in tests). Each method is called once by {@link PlacementJob#define}. Operators added by an implementation need their
 * own {@code .uid()} and {@code .name()}.
 */
public interface PlacementSinks {
    /** Every run's PLACE, FAIL and RELEASE events, in trace-time order within a run. */
    void placements(DataStream<ReplayEvent> events);

    /** Pod rows and records that could not be used, with the reason and the column. */
    void rejected(DataStream<RejectedRecord> rejected);
}
