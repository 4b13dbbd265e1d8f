package org.gpusched.workloads;

import java.util.Iterator;
import org.gpusched.formats.ClusterSpec;
import org.gpusched.formats.TraceJob;

/**
 * A workload protocol from one of the papers: the cluster it runs on and a stream of jobs. The jobs come lazily in
 * submission order, one at a time, so any number of them can be written in constant memory; the same seed gives
 * the same jobs.
 */
public interface Scenario {
    String name();

    ClusterSpec cluster();

    /** The job count the paper's protocol prescribes (J = 10N, or the 8 jobs of Table V). */
    int defaultJobs();

    /** The first {@code count} jobs for {@code seed}, in non-decreasing submission order. */
    Iterator<TraceJob> jobs(long count, long seed);

    /** One line for the summary: what the scenario drew from and how. */
    String describe();
}
