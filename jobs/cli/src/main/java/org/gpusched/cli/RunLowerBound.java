package org.gpusched.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.gpusched.core.model.Cluster;
import org.gpusched.core.model.InvalidInstanceException;
import org.gpusched.core.model.Node;
import org.gpusched.core.model.NodeType;
import org.gpusched.core.objective.CostLowerBound;
import org.gpusched.formats.FormatException;
import org.gpusched.formats.TraceJob;
import org.gpusched.formats.TraceJson;
import org.gpusched.reports.ReportInputException;
import org.gpusched.rundir.JsonLines;
import org.gpusched.rundir.RunLayout;

/**
 * The {@link CostLowerBound} of a run directory's instance: the cluster of run.json (its node types and the types
 * its nodes can take, and those of nodes node-events.jsonl adds or retypes) and every job of jobs.jsonl with its
 * times scaled by its actualFactor (how long it really ran against the prediction).
 */
final class RunLowerBound {
    private static final ObjectMapper JSON = new ObjectMapper();

    private RunLowerBound() {}

    static double of(Path runDir) {
        Cluster cluster = cluster(runDir);
        double[] sum = {0};
        Path jobs = runDir.resolve(RunLayout.JOBS);
        try {
            JsonLines.forEachLine(jobs, (text, number) -> {
                TraceJob j;
                try {
                    j = TraceJson.parse(text);
                } catch (FormatException e) {
                    throw new FormatException(jobs + ":" + number + ": " + e.getMessage(), e.field(), e);
                }
                sum[0] += CostLowerBound.ofJob(cluster, j.job(), j.actualFactor());
            });
        } catch (NoSuchFileException e) {
            throw new FormatException(jobs + ": missing", null);
        } catch (IOException e) {
            throw new FormatException(jobs + ": cannot read (" + e.getMessage() + ")", null, e);
        }
        return sum[0];
    }

    /** {@link #of} for {@code report} and {@code compare}, whose errors are {@link ReportInputException}s. */
    static double forReport(Path runDir) {
        try {
            return of(runDir);
        } catch (FormatException e) {
            throw new ReportInputException("lower bound: " + e.getMessage());
        }
    }

    private static Cluster cluster(Path runDir) {
        Path file = runDir.resolve(RunLayout.RUN);
        JsonNode run = RunScheduleSteps.tree(file);
        List<NodeType> types = new ArrayList<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = run.path("nodeTypes").fields(); it.hasNext(); ) {
            var e = it.next();
            JsonNode cost = e.getValue().path("costPerHour");
            double[] rates = new double[cost.size()];
            for (int b = 0; b < rates.length; b++) rates[b] = cost.get(b).asDouble();
            types.add(new NodeType(
                    e.getKey(),
                    e.getValue().path("gpuModel").asText(e.getKey()),
                    e.getValue().path("gpus").asInt(0),
                    rates));
        }
        List<Node> nodes = new ArrayList<>();
        for (JsonNode n : run.path("nodes")) nodes.add(node(n.path("id").asText(), n));
        // nodes the run added or retyped may take types no node of the start could
        Path events = runDir.resolve(RunLayout.NODE_EVENTS);
        if (Files.exists(events)) {
            try {
                JsonLines.forEach(events, JSON, m -> new FormatException(m, null), (e, where) -> {
                    String kind = e.path("kind").asText("");
                    if (kind.equals("ADDED") || kind.equals("TYPE_CHANGED"))
                        nodes.add(node(where + "#" + e.path("node").asText(), e));
                });
            } catch (IOException e) {
                throw new FormatException(events + ": cannot read (" + e.getMessage() + ")", null, e);
            }
        }
        try {
            return new Cluster(types, nodes);
        } catch (InvalidInstanceException e) {
            throw new FormatException(file + ": " + e.getMessage(), "nodeTypes");
        }
    }

    /** A fixed node of its {@code type}, else a rightsizable one over its {@code types} (none listed: any). */
    private static Node node(String id, JsonNode n) {
        if (n.hasNonNull("type")) return Node.fixed(id, n.get("type").asText());
        List<String> allowed = new ArrayList<>();
        for (JsonNode t : n.path("types")) allowed.add(t.asText());
        return new Node(id, null, allowed);
    }
}
