package org.gpusched.streaming;

import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Records in every checkpoint the settings the job was made with ({@link JobSettings}), and refuses a restore from a
 * checkpoint of another job: the job fails at once, without a restart (a restart would restore the same checkpoint),
 * with a {@link RestoreMismatchException} naming each difference. With {@code takeNew} the settings a restore may
 * change are taken, the others are still refused. Chained after the dispatcher, and after the controllers, whose
 * state it guards: in a chain the last operator's state is initialized first, so the check comes before any of their
 * timers can fire. It passes nothing on.
 *
 * <p>State: {@link #SETTINGS}, union operator state holding the settings (each subtask writes the same one); replaced
 * by the run's own settings once a restore is accepted. A checkpoint without it (made before the guard existed) is
 * accepted as it is.
 */
public final class RestoreGuard<T> extends ProcessFunction<T, Void> implements CheckpointedFunction {
    private static final long serialVersionUID = 1L;
    public static final ListStateDescriptor<String> SETTINGS = new ListStateDescriptor<>("job-settings", Types.STRING);

    private final String settings;
    private final boolean takeNew;
    private transient ListState<String> state;

    /**
     * @param settings the run's settings ({@link JobSettings#of})
     * @param takeNew whether to take the new values of the settings a restore may change
     */
    public RestoreGuard(String settings, boolean takeNew) {
        this.settings = settings;
        this.takeNew = takeNew;
    }

    @Override
    public void initializeState(FunctionInitializationContext context) throws Exception {
        state = context.getOperatorStateStore().getUnionListState(SETTINGS);
        if (!context.isRestored()) return;
        List<String> recorded = new ArrayList<>();
        state.get().forEach(recorded::add);
        if (recorded.isEmpty()) return;
        JobSettings.Comparison c = JobSettings.compare(recorded.get(0), settings);
        if (c.refused(takeNew)) throw new SuppressRestartsException(new RestoreMismatchException(c.message(takeNew)));
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) throws Exception {
        state.update(List.of(settings));
    }

    @Override
    public void processElement(T value, Context ctx, Collector<Void> out) {}
}
