package org.gpusched.streaming;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.junit.jupiter.api.Test;

/**
 * The embedded mini cluster's servers (REST, blob, RPC) listen on 127.0.0.1 only, seen in this process's own sockets,
 * unless {@link EmbeddedFlink#BIND_ADDRESS} (run --bind-address) names another address of this machine.
 */
class EmbeddedFlinkTest {
    /** 127.0.0.1 as /proc/net/tcp writes it, as an IPv4-mapped address in tcp6, and ::1. */
    private static final Set<String> LOOPBACK =
            Set.of("0100007F", "0000000000000000FFFF00000100007F", "00000000000000000000000001000000");

    @Test
    void theEmbeddedClustersServersListenOnLoopbackOnly() throws Exception {
        Set<String> seen = listeningWhileAJobRuns(new Configuration());
        assertTrue(seen.size() >= 2, "the mini cluster listens (REST, blob server): " + seen);
        List<String> notLoopback = seen.stream()
                .filter(s -> !LOOPBACK.contains(s.substring(0, s.indexOf(':'))))
                .toList();
        assertEquals(List.of(), notLoopback, "listening sockets not on 127.0.0.1 (hex address:port)");
    }

    @Test
    void theBindAddressOptionSetsWhereEveryServerListens() {
        Configuration defaults = EmbeddedFlink.loopback(new Configuration());
        assertEquals("127.0.0.1", defaults.get(RestOptions.BIND_ADDRESS));
        assertEquals("127.0.0.1", defaults.get(JobManagerOptions.BIND_HOST));
        assertEquals("127.0.0.1", defaults.get(TaskManagerOptions.BIND_HOST));

        Configuration all = new Configuration();
        all.set(EmbeddedFlink.BIND_ADDRESS, "0.0.0.0");
        Configuration c = EmbeddedFlink.loopback(all);
        assertEquals("0.0.0.0", c.get(RestOptions.BIND_ADDRESS));
        assertEquals("0.0.0.0", c.get(JobManagerOptions.BIND_HOST)); // the blob server binds there too
        assertEquals("0.0.0.0", c.get(TaskManagerOptions.BIND_HOST));
        assertEquals("127.0.0.1", c.get(RestOptions.ADDRESS), "the parts reach each other on loopback");
        assertEquals("127.0.0.1", c.get(JobManagerOptions.ADDRESS));

        Configuration own = new Configuration();
        own.set(EmbeddedFlink.BIND_ADDRESS, "127.0.0.1");
        own.set(RestOptions.BIND_ADDRESS, "0.0.0.0");
        assertEquals("0.0.0.0", EmbeddedFlink.loopback(own).get(RestOptions.BIND_ADDRESS), "Flink's own option wins");
    }

    @Test
    void aBindAddressMustBeAnIpAddressOfThisMachine() {
        assertEquals("127.0.0.1", EmbeddedFlink.requireLocalAddress("127.0.0.1"));
        assertEquals("0.0.0.0", EmbeddedFlink.requireLocalAddress("0.0.0.0"));
        assertEquals("::1", EmbeddedFlink.requireLocalAddress("::1"));
        Map<String, String> refused = Map.of(
                "", "empty",
                "localhost", "not an IP address",
                "example.com", "not an IP address",
                "256.1.1.1", "not an IP address",
                "1.2.3", "not an IP address",
                "192.0.2.1", "not an address of this machine",
                "2001:db8::1", "not an address of this machine",
                "fe80::1::2", "not a valid IP address");
        refused.forEach((address, why) -> {
            IllegalArgumentException e =
                    assertThrows(IllegalArgumentException.class, () -> EmbeddedFlink.requireLocalAddress(address));
            assertTrue(e.getMessage().contains(why), address + ": " + e.getMessage());
        });
        Configuration bad = new Configuration();
        bad.set(EmbeddedFlink.BIND_ADDRESS, "192.0.2.1");
        assertThrows(IllegalArgumentException.class, () -> EmbeddedFlink.loopback(bad));
    }

    @Test
    void onEveryInterfaceTheRestEndpointListensOnTheWildcard() throws Exception {
        Configuration conf = new Configuration();
        conf.set(EmbeddedFlink.BIND_ADDRESS, "0.0.0.0");
        Set<String> seen = listeningWhileAJobRuns(conf);
        assertTrue(
                seen.stream()
                        .anyMatch(s -> s.startsWith("00000000:") || s.startsWith("00000000000000000000000000000000:")),
                "a server listens on every interface: " + seen);
    }

    @Test
    void theMetricsReporterListensOnTheBindAddressToo() throws Exception {
        int port;
        try (java.net.ServerSocket free = new java.net.ServerSocket(0)) {
            port = free.getLocalPort();
        }
        String hexPort = String.format("%04X", port);
        Set<String> loopback = listeningWhileAJobRuns(org.gpusched.streaming.ops.OperationalMetrics.prometheus(
                new Configuration(), Integer.toString(port), EmbeddedFlink.LOOPBACK));
        assertTrue(
                loopback.stream().anyMatch(s -> s.endsWith(":" + hexPort)),
                "the reporter listens on its port " + hexPort + ": " + loopback);
        List<String> notLoopback = loopback.stream()
                .filter(s -> !LOOPBACK.contains(s.substring(0, s.indexOf(':'))))
                .toList();
        assertEquals(List.of(), notLoopback, "listening sockets not on 127.0.0.1 (hex address:port)");

        Configuration every = new Configuration();
        every.set(EmbeddedFlink.BIND_ADDRESS, "0.0.0.0");
        Set<String> wildcard = listeningWhileAJobRuns(
                org.gpusched.streaming.ops.OperationalMetrics.prometheus(every, Integer.toString(port), "0.0.0.0"));
        assertTrue(
                wildcard.contains("00000000:" + hexPort)
                        || wildcard.contains("00000000000000000000000000000000:" + hexPort),
                "on every interface when asked: " + wildcard);
    }

    /** The listening sockets this process opens while a short job runs on an embedded cluster of conf. */
    private static Set<String> listeningWhileAJobRuns(Configuration conf) throws Exception {
        Set<String> before = new HashSet<>(listening());
        StreamExecutionEnvironment env = EmbeddedFlink.local(1, conf);
        env.fromData(1, 2)
                .map(i -> {
                    Thread.sleep(1500);
                    return i;
                })
                .returns(Types.INT)
                .sinkTo(new DiscardingSink<>());
        JobClient job = env.executeAsync("sockets");
        Set<String> seen = new HashSet<>();
        while (!job.getJobExecutionResult().isDone()) {
            for (String s : listening()) if (!before.contains(s)) seen.add(s);
            Thread.sleep(200);
        }
        job.getJobExecutionResult().get();
        return seen;
    }

    /** This process's listening TCP sockets as /proc shows their local address (hex IP:port; IPv6 as 32 hex digits). */
    static List<String> listening() throws IOException {
        Set<String> inodes = new HashSet<>();
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(Path.of("/proc/self/fd"))) {
            for (Path fd : fds) {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith("socket:["))
                        inodes.add(target.substring("socket:[".length(), target.length() - 1));
                } catch (IOException closedMeanwhile) {
                    // the descriptor went away while listing
                }
            }
        }
        List<String> out = new ArrayList<>();
        for (String table : List.of("/proc/self/net/tcp", "/proc/self/net/tcp6")) {
            Path p = Path.of(table);
            if (!Files.exists(p)) continue;
            List<String> lines = Files.readAllLines(p);
            for (String line : lines.subList(1, lines.size())) {
                String[] f = line.trim().split("\\s+");
                if (f[3].equals("0A") && inodes.contains(f[9])) out.add(f[1]); // 0A: LISTEN
            }
        }
        return out;
    }
}
