package org.gpusched.formats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TraceJsonTest {
    private static final String GOOD = "{\"id\":\"j1\",\"submit\":0,\"due\":7200,\"weight\":0.5,"
            + "\"times\":{\"V100x2\":{\"1\":3600,\"2\":2000}},\"application\":\"ResNet\"}";

    @Test
    void roundTripKeepsJobAndExtras() {
        TraceJob parsed = TraceJson.parse(GOOD);
        assertEquals("j1", parsed.job().id());
        assertEquals(2000, parsed.job().timeOn("V100x2", 2));
        assertEquals("ResNet", parsed.extras().get("application"));
        assertEquals(parsed, TraceJson.parse(TraceJson.write(parsed)));
    }

    @Test
    void badFieldsAreNamed() {
        var e = assertThrows(FormatException.class, () -> TraceJson.parse(GOOD.replace("\"due\":7200", "\"due\":\"soon\"")));
        assertEquals("due", e.field());
        assertTrue(e.getMessage().contains("job j1"), e.getMessage());
        e = assertThrows(FormatException.class, () -> TraceJson.parse(GOOD.replace("\"2\":2000", "\"two\":2000")));
        assertEquals("times.V100x2.two", e.field());
        e = assertThrows(FormatException.class, () -> TraceJson.parse(GOOD.replace("\"due\":7200", "\"due\":-5")));
        assertTrue(e.getMessage().contains("before its submission"), e.getMessage());
        e = assertThrows(FormatException.class, () -> TraceJson.parse("{\"id\": \"x\", "));
        assertTrue(e.getMessage().startsWith("not valid JSON"), e.getMessage());
    }

    @Test
    void fileErrorsCarryFileAndLine(@TempDir Path dir) throws Exception {
        Path trace = dir.resolve("t.jsonl");
        Files.write(trace, List.of(GOOD, "", GOOD.replace("j1", "j2").replace("\"weight\":0.5,", "")));
        var e = assertThrows(FormatException.class, () -> TraceFile.read(trace));
        assertTrue(e.getMessage().startsWith(trace + ":3: job j2: field 'weight' is missing"), e.getMessage());
    }
}
