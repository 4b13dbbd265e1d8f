package org.gpusched.analytics;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The shipped SQL (conf/sql, in the jar under {@value #ROOT}): the catalog of the output topics as tables and the
 * example queries by name. Placeholders {@code ${bootstrap}}, {@code ${prefix}}, {@code ${bounded}} are filled in
 * from a {@link Target}.
 */
public final class SqlCatalog {
    static final String ROOT = "gpusched/sql/";

    /** The shipped queries, in the order {@code gpusched sql --list} shows them. */
    public static final List<String> QUERIES = List.of(
            "cost_per_hour",
            "gpu_hours_per_node_type",
            "tardiness_by_policy",
            "utilisation",
            "optimizer_latency",
            "rejected_by_reason",
            "pwr_power");

    private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{([a-z]+)}");

    /** Where the tables read from: brokers, topic prefix, and whether a query stops at the end offsets of its start. */
    public record Target(String bootstrap, String topicPrefix, boolean follow) {
        Map<String, String> values() {
            return Map.of(
                    "bootstrap", bootstrap,
                    "prefix", topicPrefix == null ? "" : topicPrefix,
                    "bounded", follow ? "unbounded" : "latest-offset");
        }
    }

    private SqlCatalog() {}

    /** The CREATE TABLE statements for {@code target}. */
    public static List<String> catalog(Target target) {
        return statements(fill(resource("catalog.sql"), target));
    }

    /** The text of a shipped query. */
    public static String query(String name) {
        if (!QUERIES.contains(name))
            throw new IllegalArgumentException(
                    "unknown query '" + name + "' (shipped: " + String.join(", ", QUERIES) + ")");
        return resource("queries/" + name + ".sql");
    }

    /** The comment lines at the top of a shipped query, joined: what it computes. */
    public static String description(String name) {
        StringBuilder b = new StringBuilder();
        for (String line : query(name).split("\n")) {
            if (!line.startsWith("--")) break;
            if (b.length() > 0) b.append(' ');
            b.append(line.substring(2).trim());
        }
        return b.toString();
    }

    static String fill(String sql, Target target) {
        Map<String, String> values = target.values();
        Matcher m = PLACEHOLDER.matcher(sql);
        StringBuilder b = new StringBuilder();
        while (m.find()) {
            String v = values.get(m.group(1));
            if (v == null) throw new IllegalStateException("unknown placeholder " + m.group());
            m.appendReplacement(b, Matcher.quoteReplacement(v.replace("'", "''")));
        }
        m.appendTail(b);
        return b.toString();
    }

    /** The statements of a script: split at semicolons that end a line, comment lines dropped. */
    public static List<String> statements(String script) {
        List<String> out = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String line : script.split("\n")) {
            String trimmed = line.strip();
            if (trimmed.startsWith("--") || trimmed.isEmpty()) continue;
            current.append(line).append('\n');
            if (trimmed.endsWith(";")) {
                String s = current.toString().strip();
                out.add(s.substring(0, s.length() - 1));
                current.setLength(0);
            }
        }
        if (!current.toString().isBlank()) out.add(current.toString().strip());
        return out;
    }

    private static String resource(String path) {
        try (InputStream in = SqlCatalog.class.getClassLoader().getResourceAsStream(ROOT + path)) {
            if (in == null) throw new IllegalStateException("missing resource " + ROOT + path);
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
