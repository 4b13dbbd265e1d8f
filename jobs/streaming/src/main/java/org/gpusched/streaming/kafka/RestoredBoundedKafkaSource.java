package org.gpusched.streaming.kafka;

import java.io.IOException;
import java.util.List;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.KafkaSourceEnumState;
import org.apache.flink.connector.kafka.source.split.KafkaPartitionSplit;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * A {@link KafkaSource} whose bounded read also ends when it was restored from a checkpoint or savepoint.
 *
 * <p>The connector's enumerator tells its readers that no more splits will come only at the end of its first partition
 * discovery; restored after that discovery (every partition already assigned), its discovery finds no change and it
 * never tells them, so a restored bounded job waits forever after reading to its stopping offsets (FLINK-33466,
 * FLINK-31006). This source restores the connector's enumerator and, when the restored state says the discovery was
 * done, tells every reader that registers, after the connector has handed it the splits it still had to assign.
 * Discovery is off for a bounded read, so no partition can come later. Everything else (splits, state, serializers)
 * is the connector's, so the checkpoints of either class restore into the other.
 */
public final class RestoredBoundedKafkaSource<T>
        implements Source<T, KafkaPartitionSplit, KafkaSourceEnumState>, ResultTypeQueryable<T> {
    private static final long serialVersionUID = 1L;
    private final KafkaSource<T> kafka;

    public RestoredBoundedKafkaSource(KafkaSource<T> kafka) {
        this.kafka = kafka;
    }

    @Override
    public Boundedness getBoundedness() {
        return kafka.getBoundedness();
    }

    @Override
    public SourceReader<T, KafkaPartitionSplit> createReader(SourceReaderContext context) throws Exception {
        return kafka.createReader(context);
    }

    @Override
    public SplitEnumerator<KafkaPartitionSplit, KafkaSourceEnumState> createEnumerator(
            SplitEnumeratorContext<KafkaPartitionSplit> context) {
        return kafka.createEnumerator(context);
    }

    @Override
    public SplitEnumerator<KafkaPartitionSplit, KafkaSourceEnumState> restoreEnumerator(
            SplitEnumeratorContext<KafkaPartitionSplit> context, KafkaSourceEnumState state) throws IOException {
        SplitEnumerator<KafkaPartitionSplit, KafkaSourceEnumState> restored = kafka.restoreEnumerator(context, state);
        boolean endsAfterRestore = kafka.getBoundedness() == Boundedness.BOUNDED && state.initialDiscoveryFinished();
        return endsAfterRestore ? new NoMoreSplitsOnRegistration(restored, context) : restored;
    }

    @Override
    public SimpleVersionedSerializer<KafkaPartitionSplit> getSplitSerializer() {
        return kafka.getSplitSerializer();
    }

    @Override
    public SimpleVersionedSerializer<KafkaSourceEnumState> getEnumeratorCheckpointSerializer() {
        return kafka.getEnumeratorCheckpointSerializer();
    }

    @Override
    public TypeInformation<T> getProducedType() {
        return kafka.getProducedType();
    }

    /** The connector's restored enumerator, and a no-more-splits signal to each reader once its splits are assigned. */
    static final class NoMoreSplitsOnRegistration
            implements SplitEnumerator<KafkaPartitionSplit, KafkaSourceEnumState> {
        private final SplitEnumerator<KafkaPartitionSplit, KafkaSourceEnumState> restored;
        private final SplitEnumeratorContext<KafkaPartitionSplit> context;

        NoMoreSplitsOnRegistration(
                SplitEnumerator<KafkaPartitionSplit, KafkaSourceEnumState> restored,
                SplitEnumeratorContext<KafkaPartitionSplit> context) {
            this.restored = restored;
            this.context = context;
        }

        @Override
        public void start() {
            restored.start();
        }

        @Override
        public void handleSplitRequest(int subtaskId, String requesterHostname) {
            restored.handleSplitRequest(subtaskId, requesterHostname);
        }

        @Override
        public void addSplitsBack(List<KafkaPartitionSplit> splits, int subtaskId) {
            restored.addSplitsBack(splits, subtaskId);
        }

        @Override
        public void addReader(int subtaskId) {
            // The connector assigns the reader's pending splits here, synchronously: the signal reaches the reader
            // after them.
            restored.addReader(subtaskId);
            context.signalNoMoreSplits(subtaskId);
        }

        @Override
        public KafkaSourceEnumState snapshotState(long checkpointId) throws Exception {
            return restored.snapshotState(checkpointId);
        }

        @Override
        public void close() throws IOException {
            restored.close();
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) throws Exception {
            restored.notifyCheckpointComplete(checkpointId);
        }

        @Override
        public void notifyCheckpointAborted(long checkpointId) throws Exception {
            restored.notifyCheckpointAborted(checkpointId);
        }

        @Override
        public void handleSourceEvent(int subtaskId, SourceEvent event) {
            restored.handleSourceEvent(subtaskId, event);
        }
    }
}
