package org.gpusched.testkit;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real single-node KRaft broker for the Kafka ITs, run by the same script users run ({@code bin/kafka-local}),
 * on free ports and with its data in the calling module's target/ folder. Topics are created by the caller (the
 * streaming module's {@code TopicAdmin}): the script's own topic step needs the built launcher jar, which does not
 * exist yet while the modules are being verified.
 */
public final class LocalKafkaBroker implements AutoCloseable {
    private final Path script;
    private final Path dir;
    private final int port;

    private LocalKafkaBroker(Path script, Path dir, int port) {
        this.script = script;
        this.dir = dir;
        this.port = port;
    }

    /**
     * Starts a fresh broker (empty data dir, named after the test and this JVM so concurrent runs in the same tree do
     * not share one) and returns when it accepts clients.
     */
    public static LocalKafkaBroker start(String name) throws IOException, InterruptedException {
        Path script = findScript();
        Path dir = Path.of(
                        "target",
                        "kafka-" + name + "-" + ProcessHandle.current().pid())
                .toAbsolutePath();
        deleteRecursively(dir);
        int port = freePortPair();
        LocalKafkaBroker broker = new LocalKafkaBroker(script, dir, port);
        broker.run("start", "--no-topics");
        Runtime.getRuntime().addShutdownHook(new Thread(broker::stopQuietly));
        return broker;
    }

    public String bootstrap() {
        return "127.0.0.1:" + port;
    }

    @Override
    public void close() throws IOException, InterruptedException {
        run("stop");
    }

    private void stopQuietly() {
        try {
            run("stop");
        } catch (Exception ignored) {
            // best effort at JVM exit; close() is the normal path
        }
    }

    private void run(String command, String... extra) throws IOException, InterruptedException {
        List<String> cmd = new java.util.ArrayList<>(
                List.of("bash", script.toString(), command, "--dir", dir.toString(), "--port", Integer.toString(port)));
        cmd.addAll(List.of(extra));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(180, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException("bin/kafka-local " + command + " did not finish within 180 s");
        }
        String text = new String(out, StandardCharsets.UTF_8);
        System.out.print(text);
        if (p.exitValue() != 0)
            throw new IOException("bin/kafka-local " + command + " failed (exit " + p.exitValue() + "):\n" + text);
    }

    private static Path findScript() {
        for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
            Path candidate = d.resolve("bin").resolve("kafka-local");
            if (Files.isRegularFile(candidate)) return candidate;
        }
        throw new IllegalStateException(
                "bin/kafka-local not found above " + Path.of("").toAbsolutePath());
    }

    /** A port P such that P (clients) and P+1 (KRaft controller) are both free on 127.0.0.1. */
    private static int freePortPair() throws IOException {
        InetAddress loopback = InetAddress.getByName("127.0.0.1");
        for (int attempt = 0; attempt < 50; attempt++) {
            int port;
            try (ServerSocket s = new ServerSocket(0, 1, loopback)) {
                port = s.getLocalPort();
            }
            if (port >= 65534) continue;
            try (ServerSocket a = new ServerSocket(port, 1, loopback);
                    ServerSocket b = new ServerSocket(port + 1, 1, loopback)) {
                return port;
            } catch (IOException taken) {
                // try another pair
            }
        }
        throw new IOException("no free pair of ports on 127.0.0.1");
    }

    private static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) return;
        try (var paths = Files.walk(dir)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) Files.delete(p);
        }
    }
}
