package org.gpusched.streaming.file;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.file.src.reader.SimpleStreamFormat;
import org.apache.flink.connector.file.src.reader.StreamFormat;
import org.apache.flink.core.fs.FSDataInputStream;
import org.gpusched.streaming.RawRecord;

/**
 * Reads a text file line by line as {@link RawRecord}s whose position is "file:line", so a rejected line can be
 * found. Not splittable (one reader per file keeps the line numbers right); after a restore Flink skips the lines
 * already emitted, which still counts them.
 */
public final class NumberedLineFormat extends SimpleStreamFormat<RawRecord> {
    private static final long serialVersionUID = 1L;
    private final String name;

    /** @param name how positions name the file (usually the path the user gave) */
    public NumberedLineFormat(String name) {
        this.name = name;
    }

    @Override
    public StreamFormat.Reader<RawRecord> createReader(Configuration config, FSDataInputStream stream) {
        BufferedReader in = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8));
        return new StreamFormat.Reader<>() {
            long line;

            @Override
            public RawRecord read() throws IOException {
                String text = in.readLine();
                if (text == null) return null;
                line++;
                return RawRecord.text(name, name + ":" + line, text);
            }

            @Override
            public void close() throws IOException {
                in.close();
            }
        };
    }

    @Override
    public TypeInformation<RawRecord> getProducedType() {
        return TypeInformation.of(RawRecord.class);
    }
}
