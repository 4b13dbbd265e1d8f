package org.gpusched.streaming;

import org.apache.flink.api.java.functions.KeySelector;
import org.gpusched.streaming.state.ControllerEvent;

/** The key of a controller pipeline: "policy#controller", so several policies run side by side in one job. */
public final class ControllerKey implements KeySelector<ControllerEvent, String> {
    private static final long serialVersionUID = 1L;

    @Override
    public String getKey(ControllerEvent event) {
        return of(event.getPolicy(), event.getController());
    }

    public static String of(String policy, int controller) {
        return policy + "#" + controller;
    }

    public static String policy(String key) {
        return key.substring(0, key.lastIndexOf('#'));
    }

    public static int controller(String key) {
        return Integer.parseInt(key.substring(key.lastIndexOf('#') + 1));
    }
}
