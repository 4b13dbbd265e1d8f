package org.gpusched.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import org.gpusched.core.model.Cluster;
import org.gpusched.formats.ClusterSpec;

/** What is legal in a cluster file but most likely a mistake, said on stderr before a run starts. */
final class ClusterWarnings {
    private ClusterWarnings() {}

    /** "gpusched replay: warning: c.yaml: node type 'A100x8' is used by no node (no job will ever run as it)". */
    static void print(PrintWriter err, String command, Path file, ClusterSpec spec) {
        Cluster c = spec.cluster();
        for (int t = 0; t < c.typeCount(); t++) {
            if (!c.typeAvailable(t)) {
                err.println(
                        command + ": warning: " + file + ": node type '"
                                + c.type(t).name()
                                + "' is used by no node (no job will ever run as it; a node's type or allowedTypes may be misspelled)");
            }
        }
        err.flush();
    }
}
