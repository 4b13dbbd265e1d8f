package org.gpusched.streaming.file;

import java.nio.file.Path;
import org.apache.avro.generic.GenericRecord;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.connector.file.src.FileSource;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.gpusched.streaming.RawRecord;

/** The file ends of the jobs' data flows: a text file read line by line, and a stream written as JSON Lines part files. */
public final class FileStreams {
    private FileStreams() {}

    /**
     * The file's lines as a bounded stream ({@link NumberedLineFormat}: positions are "file:line"), one reader so that
     * line numbers stay right; the source's uid is {@code source-WHAT}.
     */
    public static DataStream<RawRecord> lines(StreamExecutionEnvironment env, Path file, String what) {
        FileSource<RawRecord> source = FileSource.forRecordStreamFormat(
                        new NumberedLineFormat(file.toString()),
                        new org.apache.flink.core.fs.Path(file.toAbsolutePath().toUri()))
                .build();
        return env.fromSource(source, WatermarkStrategy.noWatermarks(), what + " file")
                .uid("source-" + what)
                .name(what + " " + file.getFileName())
                .setParallelism(1);
    }

    /** The stream as JSON Lines part files {@code dir/NAME-SUBTASK.jsonl} ({@link JsonLinesSink}); uid {@code uidPrefix + name}. */
    public static <T extends GenericRecord> void jsonLines(
            DataStream<T> stream, Path dir, String name, String uidPrefix) {
        stream.sinkTo(new JsonLinesSink<>(dir, name)).uid(uidPrefix + name).name(name + " file");
    }
}
