package org.gpusched.streaming.placement;

import java.util.HashMap;
import java.util.Map;
import org.gpusched.streaming.avro.PodEvent;

/**
 * The pods topic's record ({@link PodEvent}) and the pod list's row are the same data: a producer builds the record from
 * a validated row's {@link ReplayPod}, and the job validates a record as a row ({@link #row}) with the pod list's own
 * {@link PodListFormat}, so both paths accept and reject the same pods with the same reasons.
 */
public final class PodEvents {
    private PodEvents() {}

    /** The columns a record carries, as a pod-list header (no scheduled_time: only scheduled pods are published). */
    public static final String COLUMNS =
            "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,creation_time,deletion_time";

    /** The format that validates records of {@code topic} (its messages name the topic). */
    public static PodListFormat format(String topic) {
        return new PodListFormat(topic, COLUMNS);
    }

    /** The record of a pod; its seq is the pod's line. */
    public static PodEvent of(ReplayPod pod) {
        return PodEvent.newBuilder()
                .setName(pod.name)
                .setSeq(pod.line)
                .setCpuMilli(pod.cpuMilli)
                .setMemoryMib(pod.memoryMiB)
                .setNumGpu(pod.gpuCount)
                .setGpuMilli(pod.gpuMilliPerGpu)
                .setGpuSpec(pod.gpuModels.length == 0 ? null : String.join("|", pod.gpuModels))
                .setCreationTime(pod.creationTime)
                .setDeletionTime(pod.deletionTime == ReplayPod.CUT_OFF ? null : pod.deletionTime)
                .build();
    }

    /** The record as a pod-list row: column -> value, "" for a null. */
    public static Map<String, String> row(PodEvent e) {
        Map<String, String> row = new HashMap<>();
        row.put("name", e.getName() == null ? "" : e.getName().trim());
        row.put("cpu_milli", Long.toString(e.getCpuMilli()));
        row.put("memory_mib", Long.toString(e.getMemoryMib()));
        row.put("num_gpu", Integer.toString(e.getNumGpu()));
        row.put("gpu_milli", Integer.toString(e.getGpuMilli()));
        row.put("gpu_spec", e.getGpuSpec() == null ? "" : e.getGpuSpec().trim());
        row.put("creation_time", Long.toString(e.getCreationTime()));
        row.put("deletion_time", e.getDeletionTime() == null ? "" : Long.toString(e.getDeletionTime()));
        return row;
    }
}
