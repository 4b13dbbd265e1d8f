package org.gpusched.streaming.file;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.apache.avro.generic.GenericRecord;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.util.function.SerializableFunction;

/**
 * Writes Avro records as JSON lines ({@link AvroJson}) to {@code DIR/NAME-SUBTASK.jsonl}, one file per parallel
 * writer, for the local replay whose run directory is assembled from these part files afterwards. Not
 * transactional: it is meant for a local, run-once job (a restarted job appends).
 */
public final class JsonLinesSink<T extends GenericRecord> implements Sink<T> {
    private static final long serialVersionUID = 1L;
    private final String dir;
    private final String name;
    private final SerializableFunction<T, String> line;

    public JsonLinesSink(Path dir, String name) {
        this(dir, name, AvroJson::toLine);
    }

    /** @param line the JSON text of a record (one line, no newline) */
    public JsonLinesSink(Path dir, String name, SerializableFunction<T, String> line) {
        this.dir = dir.toAbsolutePath().toString();
        this.name = name;
        this.line = line;
    }

    @Override
    public SinkWriter<T> createWriter(WriterInitContext context) throws IOException {
        Path file = Path.of(dir, name + "-" + context.getTaskInfo().getIndexOfThisSubtask() + ".jsonl");
        Files.createDirectories(file.getParent());
        BufferedWriter out = Files.newBufferedWriter(file, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        return new SinkWriter<>() {
            @Override
            public void write(T element, Context ctx) throws IOException {
                out.write(line.apply(element));
                out.write('\n');
            }

            @Override
            public void flush(boolean endOfInput) throws IOException {
                out.flush();
            }

            @Override
            public void close() throws IOException {
                out.close();
            }
        };
    }
}
