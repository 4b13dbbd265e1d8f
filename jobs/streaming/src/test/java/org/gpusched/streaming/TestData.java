package org.gpusched.streaming;

import java.util.List;
import org.gpusched.core.model.Cluster;
import org.gpusched.core.model.Node;
import org.gpusched.core.model.NodeType;
import org.gpusched.core.objective.ObjectiveParameters;
import org.gpusched.formats.ClusterSpec;
import org.gpusched.streaming.avro.ExecutionTime;
import org.gpusched.streaming.avro.JobSubmitted;
import org.gpusched.streaming.avro.NodeEvent;
import org.gpusched.streaming.avro.NodeEventKind;
import org.gpusched.streaming.state.ControllerEvent;
import org.gpusched.streaming.state.EventKind;

/** Small hand-checkable clusters and events for the unit and harness tests. */
final class TestData {
    private TestData() {}

    /** Nodes n0..n(count-1), each one GPU of type G1 that costs 1/h busy (0.5 idle). */
    static ClusterSpec oneGpuNodes(int count, double horizonSeconds) {
        NodeType g1 = new NodeType("G1", "X", 1, new double[] {0.5, 1.0});
        NodeType g2 = new NodeType("G2", "X", 2, new double[] {0.5, 1.0, 1.8});
        List<Node> nodes = new java.util.ArrayList<>();
        for (int i = 0; i < count; i++) nodes.add(Node.fixed("n" + i, "G1"));
        return new ClusterSpec(new Cluster(List.of(g1, g2), nodes), new ObjectiveParameters(100, horizonSeconds, 0));
    }

    /** Rightsizable nodes v0..v(count-1), each leased as G1 or G2 (the types of {@link #oneGpuNodes}). */
    static ClusterSpec rightsizableNodes(int count, double horizonSeconds) {
        NodeType g1 = new NodeType("G1", "X", 1, new double[] {0.5, 1.0});
        NodeType g2 = new NodeType("G2", "X", 2, new double[] {0.5, 1.0, 1.8});
        List<Node> nodes = new java.util.ArrayList<>();
        for (int i = 0; i < count; i++) nodes.add(Node.rightsizable("v" + i));
        return new ClusterSpec(new Cluster(List.of(g1, g2), nodes), new ObjectiveParameters(100, horizonSeconds, 0));
    }

    static SchedulerConfig.Builder config(ClusterSpec cluster, String policy) {
        return SchedulerConfig.builder().cluster(cluster).policy(policy).seed(7).maxIterations(50);
    }

    static JobSubmitted job(String id, double submit, double due, double weight, double secondsOnG1) {
        return JobSubmitted.newBuilder()
                .setId(id)
                .setSubmit(submit)
                .setDue(due)
                .setWeight(weight)
                .setTimes(List.of(new ExecutionTime("G1", 1, secondsOnG1)))
                .setActualFactor(null)
                .setExtrasJson(null)
                .build();
    }

    static ControllerEvent submission(JobSubmitted job, String policy, int controller) {
        return ControllerEvent.newBuilder()
                .setPolicy(policy)
                .setController(controller)
                .setTimeMillis(RecordParser.toMillis(job.getSubmit()))
                .setKind(EventKind.SUBMISSION)
                .setId(job.getId())
                .setSubmitted(job)
                .setSource("test")
                .setPosition("")
                .build();
    }

    static ControllerEvent nodeEvent(
            double time, String node, NodeEventKind kind, String type, String policy, int controller) {
        NodeEvent e = NodeEvent.newBuilder()
                .setTime(time)
                .setNode(node)
                .setKind(kind)
                .setType(type)
                .setAllowedTypes(List.of())
                .build();
        return ControllerEvent.newBuilder()
                .setPolicy(policy)
                .setController(controller)
                .setTimeMillis(RecordParser.toMillis(time))
                .setKind(EventKind.NODE)
                .setId(node + "/" + kind)
                .setNodeEvent(e)
                .setSource("test")
                .setPosition("")
                .build();
    }
}
