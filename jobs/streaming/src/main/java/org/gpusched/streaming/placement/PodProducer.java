package org.gpusched.streaming.placement;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.gpusched.formats.CsvFormatException;
import org.gpusched.streaming.Topics;
import org.gpusched.streaming.avro.PodEvent;
import org.gpusched.streaming.avro.RejectedRecord;
import org.gpusched.streaming.kafka.AvroBinary;
import org.gpusched.streaming.kafka.KafkaSettings;
import org.gpusched.streaming.kafka.TraceProducer;

/**
 * Publishes an Alibaba pod list (CSV with creation_time and deletion_time, as place-replay reads it) to the pods topic as
 * {@link PodEvent} records (Avro binary in the settings' wire format, keyed by pod name, seq = the row's line), in file order, as fast as
 * possible or time-compressed by creation time ({@code speedup}, measured from the first row's creation; rows earlier
 * than the pace go at once). Each row is validated with the pod list's own
 * {@link PodListFormat}: a bad row is published to the rejected topic as a {@link RejectedRecord} (source = the file,
 * position file:line, the row, the reason and the column), exactly as place-replay writes it to rejected.jsonl; a row
 * never scheduled in the trace (empty scheduled_time) is skipped and counted, as place-replay skips it. A file without
 * the required columns is refused as a whole ({@link CsvFormatException}).
 */
public final class PodProducer {
    /** What one run published. */
    /** {@code minCreation..maxCreation}: the published pods' creation times (0..0 when none). */
    public record Summary(
            long lines,
            long published,
            long rejected,
            long unscheduled,
            long minCreation,
            long maxCreation,
            double wallSeconds) {}

    private final KafkaSettings kafka;
    private final double speedup;
    private final AvroBinary<PodEvent> pods;
    private final AvroBinary<RejectedRecord> rejections;

    /** @param speedup trace seconds per wall second; 0 or less = as fast as possible */
    public PodProducer(KafkaSettings kafka, double speedup) {
        if (Double.isNaN(speedup) || Double.isInfinite(speedup))
            throw new IllegalArgumentException("speedup must be a finite number, got " + speedup);
        this.kafka = kafka;
        this.speedup = speedup;
        this.pods = new AvroBinary<>(PodEvent.class, kafka.wireFormat());
        this.rejections = new AvroBinary<>(RejectedRecord.class, kafka.wireFormat());
    }

    public Summary publish(Path file, TraceProducer.Progress progress) throws IOException, InterruptedException {
        String name = file.toString();
        PodListFormat format = PodListFormat.read(file, name);
        String podsTopic = Topics.PODS.topic(kafka.topicPrefix());
        String rejectedTopic = Topics.REJECTED.topic(kafka.topicPrefix());
        AtomicReference<Exception> failure = new AtomicReference<>();
        long lines = 1, published = 0, rejected = 0, unscheduled = 0;
        long first = -1, min = Long.MAX_VALUE, max = -1;
        long start = System.nanoTime();
        long nextProgress = start + 1_000_000_000L;
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(TraceProducer.producerConfig(kafka));
                BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            in.readLine();
            String text;
            while ((text = in.readLine()) != null && failure.get() == null) {
                lines++;
                if (text.isBlank()) continue;
                ProducerRecord<byte[], byte[]> record;
                try {
                    PodListFormat.Row row = format.parse(lines, text);
                    if (row.pod() == null) {
                        unscheduled++;
                        continue;
                    }
                    long created = row.pod().creationTime;
                    if (first < 0) first = created;
                    min = Math.min(min, created);
                    max = Math.max(max, created);
                    if (speedup > 0) TraceProducer.waitUntil(start + (long) ((created - first) / speedup * 1e9));
                    record = new ProducerRecord<>(
                            podsTopic,
                            null,
                            null,
                            row.pod().name.getBytes(StandardCharsets.UTF_8),
                            pods.encode(PodEvents.of(row.pod())));
                    published++;
                } catch (CsvFormatException e) {
                    RejectedRecord r = RejectedRecord.newBuilder()
                            .setSource(name)
                            .setPosition(name + ":" + lines)
                            .setText(text)
                            .setReason(e.reason())
                            .setField(e.column())
                            .build();
                    record = new ProducerRecord<>(
                            rejectedTopic, null, null, name.getBytes(StandardCharsets.UTF_8), rejections.encode(r));
                    rejected++;
                }
                producer.send(record, (metadata, e) -> {
                    if (e != null) failure.compareAndSet(null, e);
                });
                long now = System.nanoTime();
                if (progress != null && now >= nextProgress) {
                    progress.update(published, rejected, max - min);
                    nextProgress = now + 1_000_000_000L;
                }
            }
            producer.flush();
        }
        if (failure.get() != null)
            throw new IOException(
                    "publishing to " + podsTopic + " at " + kafka.bootstrap() + " failed: "
                            + failure.get().getMessage(),
                    failure.get());
        return new Summary(
                lines,
                published,
                rejected,
                unscheduled,
                max < 0 ? 0 : min,
                Math.max(max, 0),
                (System.nanoTime() - start) / 1e9);
    }
}
