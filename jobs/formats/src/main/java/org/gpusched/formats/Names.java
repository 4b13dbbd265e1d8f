package org.gpusched.formats;

import java.util.Collection;
import java.util.Locale;
import org.apache.commons.text.similarity.LevenshteinDistance;

/** The nearest valid name to a misspelt one, for "did you mean" in error messages. */
public final class Names {
    private static final LevenshteinDistance DISTANCE = LevenshteinDistance.getDefaultInstance();

    private Names() {}

    /**
     * The valid name closest to {@code given} by edit distance (case ignored), or null when none is close: at most a
     * third of the longer name's letters differ, so "hostWats" finds "hostWatts" and "colour" finds nothing.
     */
    public static String nearest(String given, Collection<String> valid) {
        if (given == null) return null;
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String v : valid) {
            int d = DISTANCE.apply(given.toLowerCase(Locale.ROOT), v.toLowerCase(Locale.ROOT));
            if (d < bestDistance && d <= Math.max(1, Math.max(given.length(), v.length()) / 3)) {
                best = v;
                bestDistance = d;
            }
        }
        return best;
    }
}
