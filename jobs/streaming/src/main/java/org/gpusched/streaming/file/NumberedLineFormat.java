package org.gpusched.streaming.file;

import java.io.IOException;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.file.src.reader.SimpleStreamFormat;
import org.apache.flink.connector.file.src.reader.StreamFormat;
import org.apache.flink.core.fs.FSDataInputStream;
import org.gpusched.formats.LineReader;
import org.gpusched.streaming.RawRecord;

/**
 * Reads a text file line by line as {@link RawRecord}s whose position is "file:line", so a rejected line can be
 * found; a line that is not UTF-8 or is too long ({@link LineReader}) is passed on as unreadable, to be rejected. Not splittable (one reader per file keeps the line numbers right); after a restore Flink skips the lines
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
        LineReader in = new LineReader(stream);
        return new StreamFormat.Reader<>() {
            @Override
            public RawRecord read() throws IOException {
                LineReader.Line line = in.next();
                if (line == null) return null;
                String position = name + ":" + line.number();
                return line.ok()
                        ? RawRecord.text(name, position, line.text())
                        : RawRecord.unreadable(name, position, line.text(), line.error());
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
