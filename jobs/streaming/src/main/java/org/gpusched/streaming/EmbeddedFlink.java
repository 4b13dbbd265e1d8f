package org.gpusched.streaming;

import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.streaming.api.environment.LocalStreamEnvironment;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * The execution environment of a command: the cluster's when the command runs under {@code flink run} (or a REST
 * submission), else an embedded mini cluster whose servers listen on 127.0.0.1 only. The mini cluster's REST endpoint
 * (which can cancel the job or make it write a savepoint to any path, unauthenticated), its blob server and its RPC
 * would otherwise bind every interface; the REST port is a free one, so runs side by side do not collide.
 * {@link #BIND_ADDRESS} moves them to another address of this machine (or every interface) when they must be reached
 * from elsewhere.
 */
public final class EmbeddedFlink {
    public static final String LOOPBACK = "127.0.0.1";

    /**
     * Where the embedded cluster's REST endpoint, blob server and RPC listen: an address of this machine, or 0.0.0.0
     * (every interface). Checked by {@link #requireLocalAddress}.
     */
    public static final ConfigOption<String> BIND_ADDRESS = ConfigOptions.key("gpusched.bind-address")
            .stringType()
            .defaultValue(LOOPBACK)
            .withDescription("Address the embedded Flink cluster's REST endpoint, blob server and RPC listen on.");

    private EmbeddedFlink() {}

    /** The cluster's environment under {@code flink run}, else a loopback-only local one; conf is the job's configuration. */
    public static StreamExecutionEnvironment environment(Configuration conf) {
        return isLocal()
                ? StreamExecutionEnvironment.createLocalEnvironment(loopback(conf))
                : StreamExecutionEnvironment.getExecutionEnvironment(conf);
    }

    /** Whether a command runs on its own embedded cluster, not under {@code flink run} (or a REST submission). */
    public static boolean isLocal() {
        return StreamExecutionEnvironment.getExecutionEnvironment(new Configuration())
                instanceof LocalStreamEnvironment;
    }

    /** A local environment of the given parallelism, loopback only. */
    public static StreamExecutionEnvironment local(int parallelism, Configuration conf) {
        return StreamExecutionEnvironment.createLocalEnvironment(parallelism, loopback(conf));
    }

    /**
     * conf with the mini cluster's servers on {@link #BIND_ADDRESS} (127.0.0.1 unless set; Flink's own options win
     * when given) and a free REST port (unless set). The addresses its parts reach each other at are the bind address,
     * or 127.0.0.1 when that is every interface.
     */
    static Configuration loopback(Configuration conf) {
        Configuration c = new Configuration(conf);
        String bind = requireLocalAddress(c.get(BIND_ADDRESS));
        String reach = isWildcard(bind) ? LOOPBACK : bind;
        if (!c.contains(RestOptions.BIND_ADDRESS)) c.set(RestOptions.BIND_ADDRESS, bind);
        if (!c.contains(RestOptions.ADDRESS)) c.set(RestOptions.ADDRESS, reach);
        if (!c.contains(RestOptions.BIND_PORT)) c.set(RestOptions.BIND_PORT, "0");
        if (!c.contains(JobManagerOptions.BIND_HOST)) c.set(JobManagerOptions.BIND_HOST, bind);
        if (!c.contains(JobManagerOptions.ADDRESS)) c.set(JobManagerOptions.ADDRESS, reach);
        if (!c.contains(TaskManagerOptions.BIND_HOST)) c.set(TaskManagerOptions.BIND_HOST, bind);
        if (!c.contains(TaskManagerOptions.HOST)) c.set(TaskManagerOptions.HOST, reach);
        return c;
    }

    /**
     * The address as given when it is an IP address of this machine's interfaces or the wildcard (0.0.0.0, ::);
     * otherwise an IllegalArgumentException saying why. Host names are refused: a name can resolve elsewhere later.
     */
    public static String requireLocalAddress(String address) {
        if (address == null || address.isBlank())
            throw new IllegalArgumentException(
                    "the bind address is empty (give an IP address of this machine, or 0.0.0.0)");
        boolean ipv4 = address.matches(
                "(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])(\\.(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])){3}");
        // With a colon, InetAddress takes it as an IPv6 literal and never looks a name up.
        boolean ipv6 = address.matches("[0-9a-fA-F:.]*:[0-9a-fA-F:.]*");
        if (!ipv4 && !ipv6)
            throw new IllegalArgumentException(
                    "bind address '" + address
                            + "' is not an IP address (give one of this machine's: 127.0.0.1 for this machine only, 0.0.0.0 for every interface)");
        InetAddress ip;
        try {
            ip = InetAddress.getByName(address);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("bind address '" + address + "' is not a valid IP address");
        }
        if (ip.isAnyLocalAddress()) return address;
        try {
            if (ip.isLoopbackAddress() || NetworkInterface.getByInetAddress(ip) != null) return address;
        } catch (SocketException e) {
            throw new IllegalArgumentException("cannot list this machine's addresses: " + e.getMessage());
        }
        throw new IllegalArgumentException("bind address " + address
                + " is not an address of this machine (127.0.0.1 for this machine only, 0.0.0.0 for every interface)");
    }

    private static boolean isWildcard(String address) {
        try {
            return InetAddress.getByName(address).isAnyLocalAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }
}
