package org.gpusched.streaming.kafka;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.gpusched.formats.FormatException;
import org.gpusched.formats.LineReader;
import org.gpusched.formats.TraceJob;
import org.gpusched.formats.TraceJson;
import org.gpusched.streaming.JobCodec;
import org.gpusched.streaming.Topics;
import org.gpusched.streaming.avro.JobSubmitted;

/**
 * Publishes a trace file (JSON Lines) to the submissions topic as {@link JobSubmitted} records (Avro binary in the settings' wire format,
 * keyed by job id), in file order, as fast as possible or time-compressed ({@code speedup}: one trace second takes
 * 1/speedup wall seconds, measured from the first job's submission).
 *
 * <p>Every record carries its file:line in the header {@value RawRecordDeserializer#ORIGIN_HEADER}, which the job
 * quotes when it rejects the record. A line that is not a valid trace job is published verbatim, marked with the header
 * {@value RawRecordDeserializer#FORMAT_HEADER}={@value RawRecordDeserializer#FORMAT_TRACE_LINE}: the job then parses it as the file path would and sends it to the
 * rejected topic with the same reason. Blank lines are skipped, as the file path does. A line that is not UTF-8 or
 * is longer than a record may be ({@link #maxLineBytes}) is read as the file path reads it ({@link LineReader}) and
 * published the same way, cut, with the reason in {@value RawRecordDeserializer#UNREADABLE_HEADER}: counted, and the
 * file goes on.
 */
public final class TraceProducer {
    /** Progress callback, called from the publishing thread about once a second. */
    public interface Progress {
        void update(long published, long malformed, double traceSeconds);
    }

    /**
     * What one run published: {@code unreadable} of the {@code malformed} lines were not UTF-8 or too long for a
     * record (published cut, with the reason, for the job to reject), the first of them at {@code firstUnreadable}
     * ("file:line: reason", or null when none).
     */
    public record Summary(
            long lines,
            long published,
            long malformed,
            long unreadable,
            String firstUnreadable,
            double firstSubmit,
            double lastSubmit,
            double wallSeconds) {
        public double recordsPerSecond() {
            return wallSeconds > 0 ? (published + malformed) / wallSeconds : 0;
        }
    }

    private final KafkaSettings kafka;
    private final double speedup;
    private final AvroBinary<JobSubmitted> avro;

    /** @param speedup trace seconds per wall second; 0 or less = as fast as possible */
    public TraceProducer(KafkaSettings kafka, double speedup) {
        if (Double.isNaN(speedup) || Double.isInfinite(speedup))
            throw new IllegalArgumentException("speedup must be a finite number, got " + speedup);
        this.kafka = kafka;
        this.speedup = speedup;
        this.avro = new AvroBinary<>(JobSubmitted.class, kafka.wireFormat());
    }

    public Summary publish(Path trace, Progress progress) throws IOException, InterruptedException {
        if (!Files.isRegularFile(trace)) throw new FormatException(trace + ": no such trace file", null);
        String topic = Topics.SUBMISSIONS.topic(kafka.topicPrefix());
        Properties config = producerConfig(kafka);
        AtomicReference<Exception> failure = new AtomicReference<>();
        AtomicLong acked = new AtomicLong();
        long lines = 0, published = 0, malformed = 0, unreadable = 0;
        String firstUnreadable = null;
        double first = Double.NaN, last = Double.NaN;
        long start = System.nanoTime();
        long nextProgress = start + 1_000_000_000L;
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config);
                LineReader in = new LineReader(Files.newInputStream(trace), maxLineBytes(config))) {
            LineReader.Line read;
            while ((read = in.next()) != null) {
                lines = read.number();
                String line = read.text();
                if (read.ok() && line.isBlank()) continue;
                if (failure.get() != null) break;
                ProducerRecord<byte[], byte[]> record;
                TraceJob job = read.ok() ? parseOrNull(line) : null;
                if (job == null) {
                    record = new ProducerRecord<>(topic, null, null, line.getBytes(StandardCharsets.UTF_8));
                    record.headers()
                            .add(
                                    RawRecordDeserializer.FORMAT_HEADER,
                                    RawRecordDeserializer.FORMAT_TRACE_LINE.getBytes(StandardCharsets.UTF_8));
                    if (!read.ok()) {
                        record.headers()
                                .add(
                                        RawRecordDeserializer.UNREADABLE_HEADER,
                                        read.error().getBytes(StandardCharsets.UTF_8));
                        if (unreadable++ == 0) firstUnreadable = trace + ":" + lines + ": " + read.error();
                    }
                    malformed++;
                } else {
                    double submit = job.job().submitSeconds();
                    if (Double.isNaN(first)) first = submit;
                    last = submit;
                    if (speedup > 0) waitUntil(start + (long) ((submit - first) / speedup * 1e9));
                    record = new ProducerRecord<>(
                            topic,
                            null,
                            null,
                            job.job().id().getBytes(StandardCharsets.UTF_8),
                            avro.encode(JobCodec.toSubmitted(job)));
                    published++;
                }
                // Every record says where it came from: a valid line the job still rejects (a node type this cluster
                // lacks) is then named by its file:line too.
                record.headers()
                        .add(
                                RawRecordDeserializer.ORIGIN_HEADER,
                                (trace + ":" + lines).getBytes(StandardCharsets.UTF_8));
                producer.send(record, (metadata, e) -> {
                    if (e != null) failure.compareAndSet(null, e);
                    else acked.incrementAndGet();
                });
                long now = System.nanoTime();
                if (progress != null && now >= nextProgress) {
                    progress.update(published, malformed, Double.isNaN(last) ? 0 : last - first);
                    nextProgress = now + 1_000_000_000L;
                }
            }
            producer.flush();
        }
        if (failure.get() != null)
            throw new IOException(
                    "publishing to " + topic + " at " + kafka.bootstrap() + " failed: "
                            + failure.get().getMessage(),
                    failure.get());
        double wall = (System.nanoTime() - start) / 1e9;
        return new Summary(
                lines,
                published,
                malformed,
                unreadable,
                firstUnreadable,
                Double.isNaN(first) ? 0 : first,
                Double.isNaN(last) ? 0 : last,
                wall);
    }

    /**
     * The longest line published whole: the file replay's limit, or less when the producer's max.request.size leaves
     * less room (a record also carries its key, headers and batch framing).
     */
    static int maxLineBytes(Properties config) {
        Object size = config.get(ProducerConfig.MAX_REQUEST_SIZE_CONFIG);
        int maxRequest =
                size == null ? 1024 * 1024 : Integer.parseInt(size.toString().trim());
        return Math.max(1024, Math.min(LineReader.MAX_LINE_BYTES, maxRequest - 16 * 1024));
    }

    /** Byte-array producer settings for publishing a file: acks from all replicas, idempotent, batched. */
    public static Properties producerConfig(KafkaSettings kafka) {
        Properties config = kafka.clientConfig();
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        config.putIfAbsent(ProducerConfig.ACKS_CONFIG, "all");
        config.putIfAbsent(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        config.putIfAbsent(ProducerConfig.LINGER_MS_CONFIG, "10");
        config.putIfAbsent(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(256 * 1024));
        config.putIfAbsent(ProducerConfig.MAX_BLOCK_MS_CONFIG, "30000");
        config.putIfAbsent(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "120000");
        // One request in flight: on a partition created just before, a first request refused while the broker is still
        // applying the creation could be overtaken by the next one, and its retries then fail with out-of-order
        // sequence numbers until they expire, losing its records (KAFKA-15591; seen in KafkaReplayIT on a fresh
        // broker).
        config.putIfAbsent(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
        return config;
    }

    /** The job of a line, or null when the job would reject it (then the line goes verbatim, see the class doc). */
    private static TraceJob parseOrNull(String line) {
        TraceJob job;
        try {
            job = TraceJson.parse(line);
        } catch (FormatException e) {
            return null;
        }
        Object factor = job.extras().get("actualFactor");
        return factor != null && !(factor instanceof Number) ? null : job;
    }

    public static void waitUntil(long nanoTime) throws InterruptedException {
        long wait = nanoTime - System.nanoTime();
        if (wait > 0) Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
    }
}
