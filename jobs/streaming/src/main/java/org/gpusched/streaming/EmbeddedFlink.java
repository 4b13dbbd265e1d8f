package org.gpusched.streaming;

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
 */
public final class EmbeddedFlink {
    public static final String LOOPBACK = "127.0.0.1";

    private EmbeddedFlink() {}

    /** The cluster's environment under {@code flink run}, else a loopback-only local one; conf is the job's configuration. */
    public static StreamExecutionEnvironment environment(Configuration conf) {
        boolean local = StreamExecutionEnvironment.getExecutionEnvironment(new Configuration())
                instanceof LocalStreamEnvironment;
        return local
                ? StreamExecutionEnvironment.createLocalEnvironment(loopback(conf))
                : StreamExecutionEnvironment.getExecutionEnvironment(conf);
    }

    /** A local environment of the given parallelism, loopback only. */
    public static StreamExecutionEnvironment local(int parallelism, Configuration conf) {
        return StreamExecutionEnvironment.createLocalEnvironment(parallelism, loopback(conf));
    }

    /** conf with the mini cluster's servers on 127.0.0.1 (unless set) and a free REST port (unless set). */
    static Configuration loopback(Configuration conf) {
        Configuration c = new Configuration(conf);
        if (!c.contains(RestOptions.BIND_ADDRESS)) c.set(RestOptions.BIND_ADDRESS, LOOPBACK);
        if (!c.contains(RestOptions.ADDRESS)) c.set(RestOptions.ADDRESS, LOOPBACK);
        if (!c.contains(RestOptions.BIND_PORT)) c.set(RestOptions.BIND_PORT, "0");
        if (!c.contains(JobManagerOptions.BIND_HOST)) c.set(JobManagerOptions.BIND_HOST, LOOPBACK);
        if (!c.contains(JobManagerOptions.ADDRESS)) c.set(JobManagerOptions.ADDRESS, LOOPBACK);
        if (!c.contains(TaskManagerOptions.BIND_HOST)) c.set(TaskManagerOptions.BIND_HOST, LOOPBACK);
        if (!c.contains(TaskManagerOptions.HOST)) c.set(TaskManagerOptions.HOST, LOOPBACK);
        return c;
    }
}
