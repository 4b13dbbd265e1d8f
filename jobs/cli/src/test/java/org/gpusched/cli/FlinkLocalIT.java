package org.gpusched.cli;

import static org.gpusched.cli.LocalServices.freePorts;
import static org.gpusched.cli.LocalServices.script;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.junit.jupiter.api.Test;

/**
 * bin/flink-local's JobManager takes no jars through its REST API unless started with {@code --web-submit}: a local
 * process cannot upload a jar and run it inside the JobManager. The JobManager is started alone (no TaskManager is
 * needed to see what its REST API accepts).
 */
class FlinkLocalIT {
    private static final Path WORK =
            Path.of("target", "flink-local-it-" + ProcessHandle.current().pid()).toAbsolutePath();
    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void theRestApiTakesNoJarUnlessAskedTo() throws Exception {
        int port = freePorts(3);
        try {
            flinkLocal("start", port, false);
            assertFalse(
                    features(port).get("web-submit").asBoolean(), features(port).toString());
            HttpResponse<String> upload = upload(port);
            assertEquals(400, upload.statusCode(), "not served: " + upload.body());
            assertTrue(upload.body().contains("POST request not allowed"), upload.body());
            assertEquals(200, get(port, "/overview").statusCode(), "the rest of the API answers");
        } finally {
            flinkLocal("stop", port, false);
        }
        try {
            flinkLocal("start", port, true);
            assertTrue(
                    features(port).get("web-submit").asBoolean(), features(port).toString());
            HttpResponse<String> upload = upload(port);
            assertEquals(200, upload.statusCode(), upload.body());
            assertTrue(upload.body().contains("success"), upload.body());
        } finally {
            flinkLocal("stop", port, true);
        }
    }

    private static void flinkLocal(String command, int port, boolean webSubmit) throws Exception {
        java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of(
                command, "--dir", WORK.resolve("cluster").toString(), "--port", Integer.toString(port)));
        args.addAll(java.util.List.of("--taskmanagers", "0"));
        if (webSubmit) args.add("--web-submit");
        script("flink-local", Map.of(), args.toArray(String[]::new));
    }

    private JsonNode features(int port) throws Exception {
        return LocalServices.JSON.readTree(get(port, "/config").body()).get("features");
    }

    private HttpResponse<String> get(int port, String path) throws Exception {
        return http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** POST /jars/upload of a small jar, as the web UI's submit page (or any local process) would send it. */
    private HttpResponse<String> upload(int port) throws Exception {
        ByteArrayOutputStream jar = new ByteArrayOutputStream();
        try (JarOutputStream out = new JarOutputStream(jar, new Manifest())) {
            out.flush();
        }
        String boundary = "gpusched-" + System.nanoTime();
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.writeBytes(("--" + boundary + "\r\n"
                        + "Content-Disposition: form-data; name=\"jarfile\"; filename=\"probe.jar\"\r\n"
                        + "Content-Type: application/x-java-archive\r\n\r\n")
                .getBytes(StandardCharsets.UTF_8));
        body.writeBytes(jar.toByteArray());
        body.writeBytes(("\r\n--" + boundary + "--\r\n").getBytes(StandardCharsets.UTF_8));
        return http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/jars/upload"))
                        .header("Content-Type", "multipart/form-data; boundary=" + boundary)
                        .POST(HttpRequest.BodyPublishers.ofByteArray(body.toByteArray()))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
