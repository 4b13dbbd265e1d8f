package org.gpusched.streaming.placement;

import java.io.Serializable;
import org.gpusched.placement.experiment.PolicySpec;

/**
 * One run of a placement replay: a policy with its seed. Several runs share one Flink job (place-replay has one,
 * compare one per policy and seed); each is a key of the placement operator with its own state.
 */
public record ReplayRun(PolicySpec policy, long seed) implements Serializable {
    /** The run's key: "pwr-fgd a=0.1 seed 42". */
    public String key() {
        return policy.label() + " seed " + seed;
    }

    /** A file-name-safe name of the policy: "pwr-fgd-a0.1", "fgd". */
    public String dirName() {
        return policy.alphaText().isEmpty() ? policy.name() : policy.name() + "-a" + policy.alphaText();
    }
}
