package org.gpusched.bench;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.gpusched.streaming.RawRecord;
import org.gpusched.streaming.Topics;
import org.gpusched.streaming.kafka.KafkaJobSources;
import org.gpusched.streaming.kafka.KafkaSettings;
import org.gpusched.streaming.kafka.TopicAdmin;
import org.gpusched.streaming.kafka.TopicOffsets;
import org.gpusched.workloads.BenchmarkWorkload;

/**
 * Benchmark helpers behind {@code bin/bench-replay} (not part of the job):
 * <ul>
 *   <li>{@code passthrough --bootstrap B --from TOPIC --to TOPIC}: the ceiling a replay over Kafka is measured against,
 *       a Kafka -> Flink -> Kafka job that reads a topic bounded (same source and deserializer as the scheduler) and
 *       writes every value unchanged to another topic; prints records, wall seconds and records/s.</li>
 *   <li>{@code fill --bootstrap B --from TOPIC --to TOPIC --records N}: (re)creates TOPIC with N records, the values of
 *       the source topic repeated, so the pass-through can be measured on more records than a trace has.</li>
 *   <li>{@code workload --jobs N --nodes M --seed S --out DIR}: the synthetic {@link BenchmarkWorkload}
 *       (trace.jsonl, cluster.yaml).</li>
 * </ul>
 */
public final class PassThroughBenchmark {
    private PassThroughBenchmark() {}

    /** Writes each raw value to the target topic unchanged. Named class: Flink cannot type a lambda serializer. */
    public static final class RawValueSerializer implements KafkaRecordSerializationSchema<RawRecord> {
        private static final long serialVersionUID = 1L;
        private final String topic;

        public RawValueSerializer(String topic) {
            this.topic = topic;
        }

        @Override
        public ProducerRecord<byte[], byte[]> serialize(RawRecord r, KafkaSinkContext context, Long timestamp) {
            return new ProducerRecord<>(
                    topic, r.bytes != null ? r.bytes : r.text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
    }

    /** Records copied, the wall time of the Flink job (mini cluster start and stop included) and its net runtime. */
    public record Result(long records, double seconds, double netSeconds) {
        public double recordsPerSecond() {
            return records / seconds;
        }
    }

    public static Result passThrough(KafkaSettings kafka, String from, String to) throws Exception {
        TopicAdmin.delete(kafka.clientConfig(), List.of(to));
        TopicAdmin.create(kafka.clientConfig(), List.of(to), 1, (short) 1);
        Configuration conf = new Configuration();
        conf.set(CoreOptions.DEFAULT_PARALLELISM, 1);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        KafkaSettings bounded = kafka.withBounded(true).withGroupId("gpusched-bench-passthrough");
        var source = new KafkaJobSources(bounded, false, java.time.Duration.ofSeconds(5)).kafkaSourceOf(from);
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "kafka-in")
                .uid("passthrough-source")
                .sinkTo(KafkaSink.<RawRecord>builder()
                        .setBootstrapServers(kafka.bootstrap())
                        .setKafkaProducerConfig(kafka.clientConfig())
                        .setRecordSerializer(new RawValueSerializer(to))
                        .setDeliveryGuarantee(DeliveryGuarantee.AT_LEAST_ONCE)
                        .build())
                .uid("passthrough-sink")
                .name("kafka-out");
        long start = System.nanoTime();
        var result = env.execute("gpusched pass-through " + from + " -> " + to);
        double seconds = (System.nanoTime() - start) / 1e9;
        long records;
        try (TopicOffsets offsets = new TopicOffsets(kafka.clientConfig())) {
            records = offsets.endOffsets(List.of(to)).get(to);
        }
        return new Result(records, seconds, result.getNetRuntime() / 1000.0);
    }

    /** Recreates {@code to} with {@code records} values: those of {@code from}, cycled. Returns the bytes written. */
    public static long fill(KafkaSettings kafka, String from, String to, long records) throws Exception {
        java.util.Properties c = kafka.clientConfig();
        c.put("key.deserializer", org.apache.kafka.common.serialization.ByteArrayDeserializer.class.getName());
        c.put("value.deserializer", org.apache.kafka.common.serialization.ByteArrayDeserializer.class.getName());
        List<byte[]> values = new java.util.ArrayList<>();
        try (var consumer = new org.apache.kafka.clients.consumer.KafkaConsumer<byte[], byte[]>(c)) {
            var partitions = consumer.partitionsFor(from).stream()
                    .map(i -> new org.apache.kafka.common.TopicPartition(from, i.partition()))
                    .toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            var end = consumer.endOffsets(partitions);
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
                consumer.poll(java.time.Duration.ofMillis(500)).forEach(r -> values.add(r.value()));
            }
        }
        if (values.isEmpty()) throw new IllegalStateException("topic " + from + " is empty");
        TopicAdmin.delete(kafka.clientConfig(), List.of(to));
        TopicAdmin.create(kafka.clientConfig(), List.of(to), 1, (short) 1);
        java.util.Properties p = kafka.clientConfig();
        p.put("key.serializer", org.apache.kafka.common.serialization.ByteArraySerializer.class.getName());
        p.put("value.serializer", org.apache.kafka.common.serialization.ByteArraySerializer.class.getName());
        p.put("linger.ms", "20");
        p.put("batch.size", Integer.toString(512 * 1024));
        long bytes = 0;
        try (var producer = new org.apache.kafka.clients.producer.KafkaProducer<byte[], byte[]>(p)) {
            for (long i = 0; i < records; i++) {
                byte[] v = values.get((int) (i % values.size()));
                bytes += v.length;
                producer.send(new ProducerRecord<>(to, v));
            }
            producer.flush();
        }
        return bytes;
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> opts = new java.util.HashMap<>();
        if (args.length == 0) usage();
        for (int i = 1; i < args.length; i += 2) {
            if (!args[i].startsWith("--") || i + 1 >= args.length) usage();
            opts.put(args[i].substring(2), args[i + 1]);
        }
        switch (args[0]) {
            case "passthrough" -> {
                KafkaSettings kafka = KafkaSettings.of(require(opts, "bootstrap"));
                String from = opts.getOrDefault("from", Topics.SUBMISSIONS.topic());
                Result r = passThrough(kafka, from, require(opts, "to"));
                System.out.printf(
                        Locale.ROOT,
                        "passthrough records=%d seconds=%.3f records_per_s=%.0f job_runtime=%.3f%n",
                        r.records(),
                        r.seconds(),
                        r.recordsPerSecond(),
                        r.netSeconds());
            }
            case "fill" -> {
                long n = Long.parseLong(require(opts, "records"));
                long bytes = fill(
                        KafkaSettings.of(require(opts, "bootstrap")), require(opts, "from"), require(opts, "to"), n);
                System.out.printf(Locale.ROOT, "fill records=%d mean_bytes=%.0f%n", n, (double) bytes / n);
            }
            case "workload" -> {
                Path out = Path.of(require(opts, "out"));
                java.nio.file.Files.createDirectories(out);
                BenchmarkWorkload w = new BenchmarkWorkload(
                        Integer.parseInt(require(opts, "jobs")),
                        Integer.parseInt(require(opts, "nodes")),
                        Double.parseDouble(opts.getOrDefault("load", "0.8")),
                        Long.parseLong(opts.getOrDefault("seed", "1")));
                w.writeCluster(out.resolve("cluster.yaml"));
                w.writeTrace(out.resolve("trace.jsonl"));
                System.out.println("wrote " + out.resolve("trace.jsonl") + " and " + out.resolve("cluster.yaml"));
            }
            default -> usage();
        }
    }

    private static String require(Map<String, String> opts, String name) {
        String v = opts.get(name);
        if (v == null) {
            System.err.println("missing --" + name);
            usage();
        }
        return v;
    }

    private static void usage() {
        System.err.println("usage: PassThroughBenchmark passthrough --bootstrap HOST:PORT --from TOPIC --to TOPIC\n"
                + "       PassThroughBenchmark fill --bootstrap HOST:PORT --from TOPIC --to TOPIC --records N\n"
                + "       PassThroughBenchmark workload --jobs N --nodes M [--load X] [--seed S] --out DIR");
        System.exit(2);
    }
}
