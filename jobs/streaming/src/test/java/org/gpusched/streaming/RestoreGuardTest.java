package org.gpusched.streaming;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.apache.flink.streaming.api.operators.ProcessOperator;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/** The guard's state across a snapshot and a restore, and which differences refuse the restore. */
class RestoreGuardTest {
    private static final SchedulerConfig MADE_WITH =
            TestData.config(TestData.oneGpuNodes(3, 3600), "andreas-rg").build();

    private static OneInputStreamOperatorTestHarness<Object, Void> harness(SchedulerConfig cfg, boolean takeNew)
            throws Exception {
        return new OneInputStreamOperatorTestHarness<>(
                new ProcessOperator<>(new RestoreGuard<>(JobSettings.of(cfg), takeNew)));
    }

    private static OperatorSubtaskState checkpointOf(SchedulerConfig cfg, boolean takeNew, OperatorSubtaskState from)
            throws Exception {
        var h = harness(cfg, takeNew);
        if (from == null) h.setup();
        else h.initializeState(from);
        h.open();
        OperatorSubtaskState snapshot = h.snapshot(1, 1);
        h.close();
        return snapshot;
    }

    /** The refusal of restoring {@code from} into a job of {@code cfg}. */
    private static RestoreMismatchException refusal(SchedulerConfig cfg, boolean takeNew, OperatorSubtaskState from)
            throws Exception {
        var h = harness(cfg, takeNew);
        Exception e = assertThrows(Exception.class, () -> h.initializeState(from));
        Throwable t = e;
        while (t != null && !(t instanceof SuppressRestartsException)) t = t.getCause();
        assertInstanceOf(SuppressRestartsException.class, t, "refused without a restart: " + e);
        return assertInstanceOf(RestoreMismatchException.class, t.getCause());
    }

    @Test
    void theSameJobRestoresAnotherIsRefusedNamingEachDifference() throws Exception {
        OperatorSubtaskState checkpoint = checkpointOf(MADE_WITH, false, null);
        checkpointOf(MADE_WITH, false, checkpoint);
        // optimizer threads decide nothing: not compared
        checkpointOf(MADE_WITH.toBuilder().optimizerThreads(3).build(), false, checkpoint);

        RestoreMismatchException e = refusal(
                MADE_WITH.toBuilder()
                        .policy("fifo")
                        .controllers(2)
                        .cluster(TestData.oneGpuNodes(4, 3600))
                        .build(),
                true,
                checkpoint);
        assertEquals(
                "the checkpoint was made for another job: --policy andreas-rg in the checkpoint, fifo now; --controllers"
                        + " 1 in the checkpoint, 2 now; --cluster: nodes n3 added since the checkpoint (these cannot"
                        + " change across a restore: the checkpoint's state holds them; run without --restore, or"
                        + " with another --checkpoint-dir, to start the new job empty)",
                e.getMessage());
        assertTrue(refusal(MADE_WITH.toBuilder().seed(8).build(), true, checkpoint)
                .getMessage()
                .contains("--seed 7 in the checkpoint, 8 now"));
    }

    @Test
    void aSettingARestoreMayChangeIsTakenOnlyWhenAskedAndThenRecorded() throws Exception {
        OperatorSubtaskState checkpoint = checkpointOf(MADE_WITH, false, null);
        SchedulerConfig fewer = MADE_WITH.toBuilder()
                .maxIterations(5)
                .stability(SchedulerConfig.Stability.PAPER)
                .build();
        assertEquals(
                "the checkpoint was made for another job: --iterations 50 in the checkpoint, 5 now; --stability stable in"
                        + " the checkpoint, paper now (give --restore-new-settings to go on with the new values, or"
                        + " the checkpoint's values to go on as before)",
                refusal(fewer, false, checkpoint).getMessage());
        OperatorSubtaskState taken = checkpointOf(fewer, true, checkpoint);
        // the next checkpoint holds the values taken: the same job restores it without being asked again
        checkpointOf(fewer, false, taken);
        assertTrue(refusal(MADE_WITH, false, taken).getMessage().contains("--iterations 5 in the checkpoint, 50 now"));
        assertTrue(refusal(MADE_WITH.toBuilder().iterationsWithoutGain("100").build(), false, checkpoint)
                .getMessage()
                .contains("--iterations-without-gain auto in the checkpoint, 100 now"));
    }

    @Test
    void aCheckpointWithoutRecordedSettingsIsAcceptedAsItIs() throws Exception {
        var h = harness(MADE_WITH.toBuilder().policy("fifo").build(), false);
        h.initializeState(OperatorSubtaskState.builder().build());
        h.open();
        h.close();
    }
}
