package org.gpusched.streaming;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.gpusched.formats.ClusterYaml;
import org.gpusched.formats.TraceJson;
import org.gpusched.streaming.avro.JobSubmitted;
import org.gpusched.streaming.file.FileJobSources;
import org.gpusched.streaming.file.LocalRun;
import org.gpusched.streaming.file.RunDirectoryWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The decisions do not depend on how submissions arrive: JSON trace lines (files) or Avro bytes (Kafka). */
class EncodingIT {
    @TempDir
    Path tmp;

    @Test
    void sameDecisionsFromJsonTextAndAvroBytes() throws Exception {
        Path cluster = Path.of(
                EncodingIT.class.getResource("/replay/small-cluster.yaml").toURI());
        Path trace = Path.of(
                EncodingIT.class.getResource("/replay/small-trace.jsonl").toURI());
        SchedulerConfig cfg = SchedulerConfig.builder()
                .cluster(ClusterYaml.read(cluster))
                .policy("andreas-rg")
                .seed(7)
                .maxIterations(50)
                .outOfOrderness(SchedulerConfig.END_OF_INPUT_WATERMARK)
                .build();
        LocalRun.run(cfg, new FileJobSources(trace), tmp.resolve("a"), 1, "a", d -> {});
        List<RawRecord> records = new ArrayList<>();
        int line = 0;
        for (String l : Files.readAllLines(trace)) {
            line++;
            if (l.startsWith("{\"id\": \"job"))
                records.add(RawRecord.bytes("t", "t@" + line, avro(JobCodec.toSubmitted(TraceJson.parse(l)))));
            else records.add(RawRecord.text("t", "t@" + line, l));
        }
        LocalRun.run(
                cfg,
                new JobSources() {
                    @Override
                    public DataStream<RawRecord> submissions(StreamExecutionEnvironment env) {
                        return env.fromData(records, TypeInformation.of(RawRecord.class))
                                .uid("src")
                                .name("src");
                    }
                },
                tmp.resolve("c"),
                1,
                "c",
                d -> {});
        List<String> a = lines(tmp.resolve("a")), c = lines(tmp.resolve("c"));
        assertEquals(24, a.stream().filter(d -> d.contains("\"COMPLETE\"")).count());
        assertEquals(a, c);
        assertEquals(
                5,
                RunDirectoryWriter.read(tmp.resolve("c"), "rejected").size(),
                "the bad lines, still text, are rejected on this path too");
    }

    private static byte[] avro(JobSubmitted job) throws java.io.IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        BinaryEncoder enc = EncoderFactory.get().binaryEncoder(bytes, null);
        new SpecificDatumWriter<>(JobSubmitted.class).write(job, enc);
        enc.flush();
        return bytes.toByteArray();
    }

    private static List<String> lines(Path parts) throws Exception {
        List<String> out = new ArrayList<>();
        RunDirectoryWriter.read(parts, "decisions").forEach(n -> out.add(n.toString()));
        return out;
    }
}
