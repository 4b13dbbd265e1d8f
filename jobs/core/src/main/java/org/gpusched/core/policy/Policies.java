package org.gpusched.core.policy;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/** Every scheduling policy by its name, as the CLI, the streaming job and the experiments select them. */
public final class Policies {
    private static final Map<String, Function<PolicyConfig, SchedulingPolicy>> FACTORIES = new LinkedHashMap<>();

    static {
        FACTORIES.put(AndreasRandomizedGreedyPolicy.NAME, AndreasRandomizedGreedyPolicy::new);
        FACTORIES.put(AndreasRandomizedGreedyPolicy.FOBJ_NAME, AndreasRandomizedGreedyPolicy::byFObj);
        FACTORIES.put(GreedyPolicy.NAME, GreedyPolicy::new);
        FACTORIES.put(GreedyPolicy.VM_PER_JOB_NAME, GreedyPolicy::vmPerJob);
        FACTORIES.put(GreedyPolicy.LARGEST_VM_NAME, GreedyPolicy::largestVm);
        FACTORIES.put(LocalSearchPolicy.NAME, LocalSearchPolicy::new);
        FACTORIES.put(LocalSearchPolicy.SHRINK_AND_INSERT_NAME, LocalSearchPolicy::withShrinkAndInsert);
        FACTORIES.put(LocalSearchPolicy.GUARDED_NAME, LocalSearchPolicy::guarded);
        FACTORIES.put(MilpPolicy.NAME, MilpPolicy::new);
        FACTORIES.put(MilpPolicy.RELAXED_NAME, MilpPolicy::relaxed);
        FACTORIES.put(FifoPolicy.NAME, FifoPolicy::new);
        FACTORIES.put(EdfPolicy.NAME, EdfPolicy::new);
        FACTORIES.put(PriorityPolicy.NAME, PriorityPolicy::new);
        FACTORIES.put(FifoPolicy.FASTEST_NAME, FifoPolicy::fastest);
        FACTORIES.put(EdfPolicy.FASTEST_NAME, EdfPolicy::fastest);
        FACTORIES.put(PriorityPolicy.FASTEST_NAME, PriorityPolicy::fastest);
    }

    private Policies() {}

    /**
     * A new policy instance (policies keep scratch memory, so each caller/controller gets its own).
     *
     * @throws IllegalArgumentException naming the known policies when {@code name} is not one of them
     */
    public static SchedulingPolicy create(String name, PolicyConfig config) {
        Function<PolicyConfig, SchedulingPolicy> factory = name == null ? null : FACTORIES.get(name);
        if (factory == null)
            throw new IllegalArgumentException(
                    "unknown policy '" + name + "' (known: " + String.join(", ", names()) + ")");
        return factory.apply(config == null ? PolicyConfig.DEFAULTS : config);
    }

    /** The known policy names, in a stable order. */
    public static List<String> names() {
        return List.copyOf(FACTORIES.keySet());
    }
}
