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
    private static final YAMLFactory YAML = YAMLFactory.builder()
            .loaderOptions(codePointLimit(ClusterYaml.MAX_FILE_CHARS))
            .build();

    private YamlLines() {}

    /** SnakeYAML's options with a limit on the characters of a document (its default is 3 MB). */
    static org.yaml.snakeyaml.LoaderOptions codePointLimit(int chars) {
        org.yaml.snakeyaml.LoaderOptions options = new org.yaml.snakeyaml.LoaderOptions();
        options.setCodePointLimit(chars);
        return options;
    }

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

    /** A number written in a form other than plain decimal digits: where, as written, and what YAML 1.1 makes of it. */
    record NonPlainNumber(int line, String path, String text, String yamlValue) {}

    private static final java.util.regex.Pattern PLAIN_NUMBER =
            java.util.regex.Pattern.compile("[-+]?((0|[1-9][0-9]*)(\\.[0-9]*)?|\\.[0-9]+)([eE][-+]?[0-9]+)?");

    /**
     * The first unquoted number of the document not written in plain decimal digits: YAML 1.1, which the parser
     * follows, reads {@code 010} as octal 8, {@code 0x10} as 16 and {@code 1_000} as 1000, where a reader expects ten,
     * an error and a thousand. Null when every number is plain (or the document does not parse: the reader says why).
     */
    static NonPlainNumber firstNonPlainNumber(String yaml) {
        try (JsonParser p = YAML.createParser(yaml)) {
            JsonToken t;
            while ((t = p.nextToken()) != null) {
                if (!t.isNumeric() || PLAIN_NUMBER.matcher(p.getText()).matches()) continue;
                String value;
                try {
                    value = String.valueOf(p.getNumberValue());
                } catch (IOException | RuntimeException unreadable) {
                    value = "no number";
                }
                return new NonPlainNumber(
                        p.currentTokenLocation().getLineNr(), pathOf(p.getParsingContext()), p.getText(), value);
            }
        } catch (IOException | RuntimeException unreadable) {
            return null;
        }
        return null;
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
