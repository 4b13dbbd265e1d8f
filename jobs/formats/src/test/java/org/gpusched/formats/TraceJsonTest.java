package org.gpusched.formats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
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
        var e = assertThrows(
                FormatException.class, () -> TraceJson.parse(GOOD.replace("\"due\":7200", "\"due\":\"soon\"")));
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

    @Test
    void theStreamingPassAndTheTreeGiveTheSameJobOrTheStreamingPassStandsAside() {
        List<String> common = List.of(
                GOOD,
                "{\"times\":{\"A\":{\"2\":10.5,\"1\":20}},\"weight\":1,\"due\":1234567890.1234567890,\"submit\":1e-3,\"id\":\"j\u00e9\"}",
                "{\"id\":\"k\",\"submit\":3,\"due\":4.000000000000001,\"weight\":0,\"times\":{\"A\":{\"1\":1},\"B\":{\"4\":0.1}},"
                        + "\"tags\":{\"x\":[1,2.5,\"s\",null,true],\"y\":{}},\"epochs\":9000000000,\"big\":123456789012345678901234,\"none\":null}");
        for (String line : common) {
            TraceJob streamed = TraceJson.parseWellFormed(line);
            assertNotNull(streamed, line);
            assertEquals(TraceJson.parseTree(line), streamed, line);
            assertEquals(streamed.extras(), TraceJson.parseTree(line).extras(), line);
        }
        // Lines the tree reads with rules of its own (numeric ids) or rejects with its message.
        List<String> aside = List.of(
                GOOD.replace("\"due\":7200", "\"due\":7200,\"due\":7300"),
                GOOD.replace("{\"V100x2\"", "{\"V100x2\":{\"1\":1},\"V100x2\""),
                GOOD.replace("\"2\":2000", "\"2\":2000,\"02\":1900"),
                GOOD.replace("\"application\":\"ResNet\"", "\"application\":\"ResNet\",\"application\":\"BERT\""),
                GOOD.replace("\"id\":\"j1\"", "\"id\":17"),
                GOOD.replace("\"id\":\"j1\"", "\"id\":\" \""),
                GOOD.replace("\"due\":7200", "\"due\":null"),
                GOOD.replace("\"due\":7200", "\"due\":-5"),
                GOOD.replace("\"2\":2000", "\"two\":2000"),
                GOOD.replace("\"2\":2000", "\"2\":\"2000\""),
                GOOD.replace(",\"weight\":0.5", ""),
                "{\"id\": \"x\", ",
                "[1]",
                "");
        for (String line : aside) assertNull(TraceJson.parseWellFormed(line), line);
        for (int i = 0; i < 4; i++)
            assertThrows(FormatException.class, () -> TraceJson.parse(aside.get(0)), "a repeated key");
        assertEquals("17", TraceJson.parse(aside.get(4)).job().id());
    }

    @Test
    void extrasKeepTheirOrderAndANullExtraIsAnAbsentOne() {
        String line = GOOD.replace(
                "\"application\":\"ResNet\"", "\"zeta\":1,\"application\":\"ResNet\",\"note\":null,\"alpha\":[2]");
        for (TraceJob job : List.of(TraceJson.parse(line), TraceJson.parseTree(line))) {
            assertEquals(
                    List.of("zeta", "application", "alpha"),
                    List.copyOf(job.extras().keySet()));
            assertTrue(
                    TraceJson.write(job).endsWith(",\"zeta\":1,\"application\":\"ResNet\",\"alpha\":[2]}"),
                    TraceJson.write(job));
        }
    }

    @Test
    void aLineHoldsOneObjectWithEveryKeyOnce() {
        var e = assertThrows(FormatException.class, () -> TraceJson.parse(GOOD + " " + GOOD.replace("j1", "j2")));
        assertEquals("record", e.field());
        assertTrue(e.getMessage().contains("a line holds one job"), e.getMessage());
        e = assertThrows(FormatException.class, () -> TraceJson.parse(GOOD + " trailing words"));
        assertEquals("record", e.field());
        assertTrue(e.getMessage().startsWith("text after the JSON object"), e.getMessage());
        e = assertThrows(
                FormatException.class,
                () -> TraceJson.parse(GOOD.replace("\"due\":7200", "\"due\":7200,\"due\":7300")));
        assertEquals("due", e.field());
        assertEquals("field 'due' is given twice", e.getMessage());
        e = assertThrows(
                FormatException.class,
                () -> TraceJson.parse(GOOD.replace("\"application\":\"ResNet\"", "\"tags\":{\"a\":1,\"a\":2}")));
        assertEquals("tags.a", e.field());
        e = assertThrows(
                FormatException.class, () -> TraceJson.parse(GOOD.replace("\"2\":2000", "\"2\":2000,\"1\":1900")));
        assertEquals("times.V100x2.1", e.field());
        e = assertThrows(FormatException.class, () -> TraceJson.parse(GOOD.replace("\"2\":2000", "\"01\":1900")));
        assertEquals("times.V100x2.01", e.field());
        assertTrue(e.getMessage().contains("GPU count 1 is given twice ('1' and '01')"), e.getMessage());
    }

    @Test
    void theFieldAtFaultIsNamedWhateverTheMessageSays() {
        // Ids holding other fields' names: the field is never guessed from the message.
        String tricky = GOOD.replace("\"j1\"", "\"submit-due-times\"");
        assertEquals(
                "weight",
                assertThrows(
                                FormatException.class,
                                () -> TraceJson.parse(tricky.replace("\"weight\":0.5", "\"weight\":-1")))
                        .field());
        assertEquals(
                "due",
                assertThrows(FormatException.class, () -> TraceJson.parse(tricky.replace("\"due\":7200", "\"due\":-1")))
                        .field());
        assertEquals(
                "submit",
                assertThrows(
                                FormatException.class,
                                () -> TraceJson.parse(tricky.replace("\"submit\":0", "\"submit\":-1")))
                        .field());
        assertEquals(
                "times.V100x2.2",
                assertThrows(FormatException.class, () -> TraceJson.parse(tricky.replace("\"2\":2000", "\"2\":0")))
                        .field());
        assertEquals(
                "times.V100x2.0",
                assertThrows(FormatException.class, () -> TraceJson.parse(tricky.replace("\"2\":2000", "\"0\":20")))
                        .field());
        assertEquals(
                "times",
                assertThrows(
                                FormatException.class,
                                () -> TraceJson.parse(tricky.replace("{\"V100x2\":{\"1\":3600,\"2\":2000}}", "{}")))
                        .field());
        assertEquals(
                "record",
                assertThrows(FormatException.class, () -> TraceJson.parse("[1]"))
                        .field());
    }

    @Test
    void timesAndWeightsAreBounded() {
        var e = assertThrows(
                FormatException.class,
                () -> TraceJson.parse(
                        GOOD.replace("\"submit\":0", "\"submit\":1e17").replace("\"due\":7200", "\"due\":2e17")));
        assertEquals("submit", e.field());
        assertTrue(e.getMessage().contains("[0, 1.0E10]"), e.getMessage());
        e = assertThrows(FormatException.class, () -> TraceJson.parse(GOOD.replace("\"2\":2000", "\"2\":1e16")));
        assertEquals("times.V100x2.2", e.field());
        e = assertThrows(
                FormatException.class, () -> TraceJson.parse(GOOD.replace("\"weight\":0.5", "\"weight\":1.5e308")));
        assertEquals("weight", e.field());
        TraceJob edge = TraceJson.parse(
                GOOD.replace("\"due\":7200", "\"due\":1e10").replace("\"weight\":0.5", "\"weight\":1e9"));
        assertEquals(1e10, edge.job().dueSeconds());
    }

    @Test
    void halfASurrogatePairIsNoTextSoTwoDistinctIdsNeverBecomeOne() {
        for (String id : List.of("\\ud800X", "\\ud801X", "X\\udc00", "\\udbff")) {
            var e = assertThrows(
                    FormatException.class, () -> TraceJson.parse(GOOD.replace("\"j1\"", "\"" + id + "\"")));
            assertEquals("id", e.field());
            assertTrue(e.getMessage().contains("is half of a surrogate pair"), e.getMessage());
        }
        var e = assertThrows(
                FormatException.class, () -> TraceJson.parse(GOOD.replace("\"ResNet\"", "{\"name\":[\"\\ud800\"]}")));
        assertEquals("application", e.field());
        e = assertThrows(FormatException.class, () -> TraceJson.parse(GOOD.replace("V100x2", "V\\udfff")));
        assertEquals("times", e.field());
        // a whole pair is one character, escaped or not; an escaped backslash before u is no escape
        assertEquals(
                "\ud83d\ude00",
                TraceJson.parse(GOOD.replace("j1", "\\ud83d\\ude00")).job().id());
        assertEquals(
                "\\ud800",
                TraceJson.parse(GOOD.replace("j1", "\\\\ud800")).job().id());
    }
}
