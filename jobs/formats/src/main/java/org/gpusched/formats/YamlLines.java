package org.gpusched.formats;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Deque;

/** Where a key of a YAML document is, for messages about values found wrong after the document was read. */
final class YamlLines {
    private static final YAMLFactory YAML = new YAMLFactory();

    private YamlLines() {}

    /**
     * The 1-based line of the key at a dotted path ({@code nodeTypes.V100.gpus}, {@code nodes[2].count}): of the key
     * itself, else of the deepest key on its path, else of the first key inside it (a list element); 0 when none.
     */
    static int lineOf(String yaml, String path) {
        if (path == null) return 0;
        int best = 0, bestScore = -1;
        try (JsonParser p = YAML.createParser(yaml)) {
            JsonToken t;
            while ((t = p.nextToken()) != null) {
                if (t != JsonToken.FIELD_NAME) continue;
                String here = pathOf(p.getParsingContext());
                int score = -1;
                if (here.equals(path)) score = Integer.MAX_VALUE;
                else if (path.startsWith(here + ".") || path.startsWith(here + "[")) score = here.length();
                else if (here.startsWith(path + ".")) score = path.length();
                if (score > bestScore) {
                    best = p.currentTokenLocation().getLineNr();
                    bestScore = score;
                }
            }
        } catch (IOException | RuntimeException unreadable) {
            return best;
        }
        return best;
    }

    private static String pathOf(JsonStreamContext context) {
        Deque<String> parts = new ArrayDeque<>();
        for (JsonStreamContext c = context; c != null && !c.inRoot(); c = c.getParent()) {
            if (c.inObject()) parts.addFirst("." + c.getCurrentName());
            else parts.addFirst("[" + Math.max(0, c.getCurrentIndex()) + "]");
        }
        String path = String.join("", parts);
        return path.startsWith(".") ? path.substring(1) : path;
    }
}
