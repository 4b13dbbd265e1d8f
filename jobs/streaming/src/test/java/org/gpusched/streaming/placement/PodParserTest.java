package org.gpusched.streaming.placement;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.apache.flink.streaming.api.operators.ProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.gpusched.formats.CsvFormatException;
import org.gpusched.streaming.RawRecord;
import org.gpusched.streaming.avro.RejectedRecord;
import org.junit.jupiter.api.Test;

/** Harness test of {@link PodParser}: good rows become pods, every kind of bad row is rejected with line, reason and column. */
class PodParserTest {
    static final String HEADER =
            "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time";

    private static OneInputStreamOperatorTestHarness<RawRecord, ReplayPod> harness() throws Exception {
        var h = new OneInputStreamOperatorTestHarness<>(
                new ProcessOperator<>(new PodParser(new PodListFormat("p.csv", HEADER))));
        h.open();
        return h;
    }

    private static void feed(OneInputStreamOperatorTestHarness<RawRecord, ReplayPod> h, String... lines)
            throws Exception {
        for (int i = 0; i < lines.length; i++)
            h.processElement(new StreamRecord<>(RawRecord.text("p.csv", "p.csv:" + (i + 1), lines[i])));
    }

    @Test
    void goodRowsBecomePodsWithTheirDemandAndLifeHeaderBlankAndUnscheduledRowsAreSkipped() throws Exception {
        var h = harness();
        feed(
                h,
                HEADER,
                "a,4000,8192,1,500,V100M16|V100M32,LS,Running,10,,10",
                "",
                "b,1000,1024,0,0,,BE,Pending,12,,",
                "c,2000,4096,2,1000,,LS,Succeeded,20,30,20");
        List<ReplayPod> pods = new ArrayList<>();
        for (Object o : h.getOutput()) if (o instanceof StreamRecord<?> r) pods.add((ReplayPod) r.getValue());
        assertEquals(List.of("a", "c"), pods.stream().map(p -> p.name).toList());
        ReplayPod a = pods.get(0);
        assertEquals(2, a.line);
        assertEquals(4000, a.cpuMilli);
        assertEquals(8192, a.memoryMiB);
        assertEquals(1, a.gpuCount);
        assertEquals(500, a.gpuMilliPerGpu);
        assertArrayEquals(new String[] {"V100M16", "V100M32"}, a.gpuModels);
        assertEquals(10, a.creationTime);
        assertEquals(ReplayPod.CUT_OFF, a.deletionTime);
        assertEquals(5, pods.get(1).line);
        assertEquals(30, pods.get(1).deletionTime);
        assertTrue(h.getSideOutput(PodParser.REJECTED) == null
                || h.getSideOutput(PodParser.REJECTED).isEmpty());
        h.close();
    }

    @Test
    void badRowsGoToTheRejectedOutputWithLineReasonAndColumnAndTheRestPasses() throws Exception {
        var h = harness();
        feed(
                h,
                HEADER,
                "\"unclosed,1000,1024,0,0,,LS,Running,1,2,1", // 2 malformed CSV
                "short,1000,1024,0,0", // 3 too few fields
                "x,lots,1024,0,0,,LS,Running,1,2,1", // 4 not an integer
                ",1000,1024,0,0,,LS,Running,1,2,1", // 5 no name
                "y,1000,1024,2,500,,LS,Running,1,2,1", // 6 impossible: two half GPUs
                "z,1000,1024,1,0,,LS,Running,1,2,1", // 7 impossible: a GPU with no share
                "w,1000,1024,0,0,,LS,Running,30,5,30", // 8 leaves before it arrives
                "v,1000,1024,0,0,,LS,Running,-4,5,1", // 9 negative time
                "u,1000,1024,0,0,,LS,Running,,5,1", // 10 no creation time
                "ok,1000,1024,0,0,,LS,Running,3,4,3"); // 11 fine
        List<String> valid = new ArrayList<>();
        for (Object o : h.getOutput()) if (o instanceof StreamRecord<?> r) valid.add(((ReplayPod) r.getValue()).name);
        assertEquals(List.of("ok"), valid);
        List<RejectedRecord> bad = new ArrayList<>();
        h.getSideOutput(PodParser.REJECTED).forEach(r -> bad.add(r.getValue()));
        assertEquals(
                List.of(
                        "p.csv:2",
                        "p.csv:3",
                        "p.csv:4",
                        "p.csv:5",
                        "p.csv:6",
                        "p.csv:7",
                        "p.csv:8",
                        "p.csv:9",
                        "p.csv:10"),
                bad.stream().map(RejectedRecord::getPosition).toList());
        assertEquals(
                java.util.Arrays.asList(
                        null,
                        null,
                        "cpu_milli",
                        "name",
                        "gpu_milli",
                        "gpu_milli",
                        "deletion_time",
                        "creation_time",
                        "creation_time"),
                bad.stream().map(RejectedRecord::getField).toList());
        assertTrue(
                bad.get(0).getReason().startsWith("unreadable row: "),
                bad.get(0).getReason());
        assertEquals("5 fields, the header has 11", bad.get(1).getReason());
        assertEquals("column 'cpu_milli': not an integer: 'lots'", bad.get(2).getReason());
        assertEquals("column 'name': empty", bad.get(3).getReason());
        assertEquals(
                "column 'gpu_milli': a task shares one GPU or takes whole GPUs, not 2 x 500 milli",
                bad.get(4).getReason());
        assertEquals(
                "column 'gpu_milli': num_gpu 1 with gpu_milli 0", bad.get(5).getReason());
        assertEquals(
                "column 'deletion_time': 5 before creation_time 30", bad.get(6).getReason());
        assertEquals("column 'creation_time': negative time -4", bad.get(7).getReason());
        assertEquals("column 'creation_time': empty", bad.get(8).getReason());
        assertEquals("y,1000,1024,2,500,,LS,Running,1,2,1", bad.get(4).getText());
        assertEquals("p.csv", bad.get(4).getSource());
        h.close();
    }

    @Test
    void aHeaderWithoutTheTimeColumnsIsAFaultOfTheWholeFile() {
        var e = assertThrows(
                CsvFormatException.class,
                () -> new PodListFormat("m.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli"));
        assertTrue(e.getMessage().startsWith("m.csv:1: missing column 'creation_time'"), e.getMessage());
    }
}
