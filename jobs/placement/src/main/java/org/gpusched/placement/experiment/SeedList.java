package org.gpusched.placement.experiment;

import java.util.ArrayList;
import java.util.List;

/** Parses seed lists as the CLI takes them: "42-51" (inclusive range), "1,5,9", or a mix "1,10-12". */
public final class SeedList {
    private SeedList() {}

    /** @throws IllegalArgumentException naming the bad part */
    public static List<Long> parse(String text) {
        if (text == null || text.isBlank()) throw new IllegalArgumentException("empty seed list");
        List<Long> seeds = new ArrayList<>();
        for (String part : text.split(",")) {
            String p = part.trim();
            int dash = p.indexOf('-', 1);
            try {
                if (dash < 0) {
                    seeds.add(Long.parseLong(p));
                } else {
                    long from = Long.parseLong(p.substring(0, dash).trim()),
                            to = Long.parseLong(p.substring(dash + 1).trim());
                    if (to < from) throw new IllegalArgumentException("seed range '" + p + "' is descending");
                    if (to - from >= 10_000)
                        throw new IllegalArgumentException("seed range '" + p + "' has more than 10000 seeds");
                    for (long s = from; s <= to; s++) seeds.add(s);
                }
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("bad seed '" + p + "': expected N or N-M");
            }
        }
        if (seeds.stream().distinct().count() != seeds.size())
            throw new IllegalArgumentException("repeated seed in '" + text + "'");
        return List.copyOf(seeds);
    }
}
