package org.gpusched.streaming.file;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.Serializable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.apache.avro.generic.GenericRecord;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

/**
 * Writes Avro records as JSON lines ({@link AvroJson}) to {@code DIR/NAME-SUBTASK.jsonl}, one file per parallel
 * writer, for the local replay whose run directory is assembled from these part files afterwards. One UTF-8
 * generator streams every line of a writer straight into the file's buffer: a generator, a string and a charset
 * encoding per line were a fifth of the controller thread of a centralized replay. Not transactional: it is meant
 * for a local, run-once job (a restarted job appends).
 */
public final class JsonLinesSink<T extends GenericRecord> implements Sink<T> {
    private static final long serialVersionUID = 1L;
    private static final int BUFFER_BYTES = 1 << 16;
    private static final long FLUSH_NANOS = 1_000_000_000L;

    /** Writes one record as one JSON value (no newline) on the generator. */
    @FunctionalInterface
    public interface LineWriter<T> extends Serializable {
        void write(JsonGenerator g, T record) throws IOException;
    }

    private final String dir;
    private final String name;
    private final LineWriter<T> line;

    public JsonLinesSink(Path dir, String name) {
        this(dir, name, AvroJson::write);
    }

    public JsonLinesSink(Path dir, String name, LineWriter<T> line) {
        this.dir = dir.toAbsolutePath().toString();
        this.name = name;
        this.line = line;
    }

    @Override
    public SinkWriter<T> createWriter(WriterInitContext context) throws IOException {
        Path file = Path.of(dir, name + "-" + context.getTaskInfo().getIndexOfThisSubtask() + ".jsonl");
        Files.createDirectories(file.getParent());
        JsonGenerator g = AvroJson.MAPPER
                .getFactory()
                .createGenerator(new BufferedOutputStream(
                        Files.newOutputStream(file, StandardOpenOption.CREATE, StandardOpenOption.APPEND),
                        BUFFER_BYTES));
        g.setRootValueSeparator(
                null); // lines end with the newline written below, not with Jackson's space between values
        return new SinkWriter<>() {
            private long flushedAt = System.nanoTime();

            @Override
            public void write(T element, Context ctx) throws IOException {
                line.write(g, element);
                g.writeRaw('\n');
                long now = System.nanoTime();
                if (now - flushedAt
                        > FLUSH_NANOS) { // so that progress, which counts lines in the files, moves on small runs
                    g.flush();
                    flushedAt = now;
                }
            }

            @Override
            public void flush(boolean endOfInput) throws IOException {
                g.flush();
            }

            @Override
            public void close() throws IOException {
                g.close();
            }
        };
    }
}
