package org.gpusched.streaming;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class ExactSumTest {

    /** A term as the decimal reference sums it: x, or a x b, added or taken away. */
    private record Term(double a, double b, boolean product, boolean minus) {
        BigDecimal exact() {
            BigDecimal v = product ? new BigDecimal(a).multiply(new BigDecimal(b)) : new BigDecimal(a);
            return minus ? v.negate() : v;
        }

        void applyTo(ExactSum sum) {
            if (product && minus) sum.subtractProduct(a, b);
            else if (product) sum.addProduct(a, b);
            else if (minus) sum.subtract(a);
            else sum.add(a);
        }
    }

    private static double anyDouble(SplittableRandom random) {
        double magnitude = Math.scalb(1 + random.nextDouble(), random.nextInt(-60, 60));
        return random.nextBoolean() ? magnitude : -magnitude;
    }

    private static List<Term> terms(SplittableRandom random, int count) {
        List<Term> terms = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            terms.add(new Term(anyDouble(random), anyDouble(random), random.nextBoolean(), random.nextInt(4) == 0));
        }
        return terms;
    }

    private static ExactSum sumOf(List<Term> terms) {
        ExactSum sum = new ExactSum();
        terms.forEach(t -> t.applyTo(sum));
        return sum;
    }

    @Test
    void readsTheDoubleTheDecimalSumRoundsToInAnyOrder() {
        SplittableRandom random = new SplittableRandom(7);
        for (int round = 0; round < 300; round++) {
            List<Term> terms = terms(random, 1 + random.nextInt(200));
            BigDecimal reference = exactOf(terms);
            double factor = anyDouble(random);
            List<Term> otherTerms = terms(random, 5);
            ExactSum other = sumOf(otherTerms);
            List<Term> shuffled = new ArrayList<>(terms);
            Collections.shuffle(shuffled, new java.util.Random(round));

            ExactSum sum = sumOf(terms);
            assertEquals(reference.doubleValue(), sum.doubleValue(), "round " + round);
            assertEquals(
                    Double.doubleToLongBits(sum.doubleValue()),
                    Double.doubleToLongBits(sumOf(shuffled).doubleValue()));
            BigDecimal timesPlus = reference.multiply(new BigDecimal(factor)).add(exactOf(otherTerms));
            assertEquals(timesPlus.doubleValue(), sum.timesPlus(factor, other), "round " + round);
        }
    }

    private static BigDecimal exactOf(List<Term> terms) {
        return terms.stream().map(Term::exact).reduce(BigDecimal.ZERO, BigDecimal::add);
    }

    @Test
    void termsThatCancelLeaveExactlyNothing() {
        ExactSum sum = new ExactSum();
        sum.add(0.1);
        sum.addProduct(1e-30, 3.3);
        sum.add(1e20);
        sum.subtract(1e20);
        sum.subtractProduct(1e-30, 3.3);
        assertEquals(0.1, sum.doubleValue());
        sum.subtract(0.1);
        assertTrue(sum.isZero());
        assertEquals(0.0, sum.doubleValue());
    }

    @Test
    void smallAndLargeEndsOfTheRangeAreRoundedOnce() {
        ExactSum tiny = new ExactSum();
        tiny.addProduct(Double.MIN_NORMAL, 0.75);
        tiny.addProduct(Double.MIN_VALUE, 0.5);
        BigDecimal exactTiny = new BigDecimal(Double.MIN_NORMAL)
                .multiply(new BigDecimal(0.75))
                .add(new BigDecimal(Double.MIN_VALUE).multiply(new BigDecimal(0.5)));
        assertEquals(exactTiny.doubleValue(), tiny.doubleValue());

        ExactSum huge = new ExactSum();
        huge.add(Double.MAX_VALUE);
        huge.add(Math.ulp(Double.MAX_VALUE) / 4);
        huge.add(Double.MIN_VALUE);
        assertEquals(Double.MAX_VALUE, huge.doubleValue());
        huge.add(Double.MAX_VALUE);
        assertEquals(Double.POSITIVE_INFINITY, huge.doubleValue());
    }

    @Test
    void refusesATermThatIsNotFinite() {
        ExactSum sum = new ExactSum();
        assertThrows(IllegalArgumentException.class, () -> sum.add(Double.NaN));
        assertThrows(IllegalArgumentException.class, () -> sum.addProduct(1, Double.POSITIVE_INFINITY));
    }
}
