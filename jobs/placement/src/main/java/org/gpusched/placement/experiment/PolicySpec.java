package org.gpusched.placement.experiment;

import java.util.Locale;
import java.util.function.Supplier;
import org.gpusched.placement.policy.PlacementPolicies;
import org.gpusched.placement.policy.PlacementPolicy;

/** A policy of the experiment: its name ({@link PlacementPolicies}) and alpha for pwr-fgd (NaN otherwise). */
public record PolicySpec(String name, double alpha) implements java.io.Serializable {
    public PolicySpec {
        PlacementPolicies.byName(name, PlacementPolicies.takesAlpha(name) ? alpha : 0); // validates name and alpha
        if (!PlacementPolicies.takesAlpha(name)) alpha = Double.NaN;
    }

    public Supplier<PlacementPolicy> factory() {
        return PlacementPolicies.byName(name, PlacementPolicies.takesAlpha(name) ? alpha : 0);
    }

    /** "pwr-fgd a=0.05" or the plain name. */
    public String label() {
        return Double.isNaN(alpha) ? name : name + " a=" + formatAlpha(alpha);
    }

    public String alphaText() {
        return Double.isNaN(alpha) ? "" : formatAlpha(alpha);
    }

    static String formatAlpha(double a) {
        String s = String.format(Locale.ROOT, "%.4f", a);
        s = s.replaceAll("0+$", "");
        return s.endsWith(".") ? s + "0" : s;
    }
}
