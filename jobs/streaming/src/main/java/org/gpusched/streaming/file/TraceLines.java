package org.gpusched.streaming.file;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import org.gpusched.streaming.avro.JobSubmitted;

/** A parsed job written back as its trace line (the trace format, as jobs.jsonl holds it), for messages about it. */
public final class TraceLines {
    private TraceLines() {}

    public static String of(JobSubmitted job) {
        StringWriter text = new StringWriter();
        try (JsonGenerator g = AvroJson.MAPPER.getFactory().createGenerator(text)) {
            RunDirectoryWriter.writeJob(g, job);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return text.toString();
    }
}
