package org.gpusched.streaming;

import java.util.Comparator;
import java.util.TreeSet;

/**
 * The f_OBJ term of a key's waiting jobs, rho x weight x max(0, now + H + slowest remaining - due) / 3600 summed
 * over them, kept as jobs come and go so that pricing a long queue costs no walk over it. Each job enters with its
 * weight w and offset c = H + slowest remaining - due (fixed while it waits); it is late once now + c > 0, and time
 * only moves forward, so jobs move once from a set ordered by -c to the late sums, where w and w x c are added
 * exactly ({@link ExactSum}): the total does not depend on the order jobs came, left or became late in, so it is the same
 * after a restore. Derived working memory of {@link ActiveJobs}, never state.
 */
final class PostponedPenalty {
    /** One waiting job's figures: weight per hour, offset, and where it is counted. */
    static final class Term {
        final double weight;
        final double offset;
        final long order;
        boolean late;

        Term(double weight, double offset, long order) {
            this.weight = weight;
            this.offset = offset;
            this.order = order;
        }
    }

    private static final Comparator<Term> BY_LATENESS =
            Comparator.<Term>comparingDouble(t -> -t.offset).thenComparingLong(t -> t.order);

    private final double rho;
    /** Jobs not late yet, the first to become late first. */
    private final TreeSet<Term> onTime = new TreeSet<>(BY_LATENESS);

    private final ExactSum lateWeight = new ExactSum();
    private final ExactSum lateWeightedOffset = new ExactSum();
    private long nextOrder;

    PostponedPenalty(double rho) {
        this.rho = rho;
    }

    Term add(double weightPerHour, double offsetSeconds) {
        Term t = new Term(weightPerHour, offsetSeconds, nextOrder++);
        if (weightPerHour > 0) onTime.add(t);
        return t;
    }

    void remove(Term t) {
        if (t.weight <= 0) return;
        if (t.late) {
            lateWeight.subtract(t.weight);
            lateWeightedOffset.subtractProduct(t.weight, t.offset);
        } else {
            onTime.remove(t);
        }
    }

    /** The sum at {@code nowSeconds}, which never decreases from call to call. */
    double total(double nowSeconds) {
        while (!onTime.isEmpty() && nowSeconds + onTime.first().offset > 0) {
            Term t = onTime.pollFirst();
            t.late = true;
            lateWeight.add(t.weight);
            lateWeightedOffset.addProduct(t.weight, t.offset);
        }
        if (lateWeight.isZero()) return 0;
        return rho * lateWeight.timesPlus(nowSeconds, lateWeightedOffset) / 3600.0;
    }
}
