package org.gpusched.streaming.placement;

import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.gpusched.streaming.RawRecord;

/**
 * Where the placement job's pods come from: raw records, unparsed ({@link PodParser} parses them in an operator). Text
 * records are pod-list CSV lines at "file:line" (line 1 the header); byte records are plain Avro {@code PodEvent}s of the
 * pods topic. Operators added by an implementation need their own {@code .uid()} and {@code .name()}.
 */
public interface PlacementSources {
    DataStream<RawRecord> pods(StreamExecutionEnvironment env);
}
