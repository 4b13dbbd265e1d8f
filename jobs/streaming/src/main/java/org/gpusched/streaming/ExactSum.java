package org.gpusched.streaming;

import java.math.BigDecimal;
import java.math.BigInteger;

/**
 * A sum of doubles and of products of two doubles, held exactly as an integer count of units of 2^-scale, so that it
 * does not depend on the order terms came and went in, and read as the double nearest to it (ties to even). Binary,
 * because every term is a binary fraction: adding one is a shift and an add, and reading it is {@link
 * BigInteger#doubleValue}, where a decimal sum ({@link BigDecimal}) converts each term to decimal and, on Java 17, reads
 * its value back by printing and parsing it (the largest share of a queue baseline's work per event on a long queue).
 */
final class ExactSum {
    private BigInteger units = BigInteger.ZERO;
    /** The value is units x 2^-scale; the scale only grows, to the finest term seen. */
    private int scale;

    void add(double x) {
        addScaled(x, 1);
    }

    void subtract(double x) {
        addScaled(x, -1);
    }

    void addProduct(double a, double b) {
        addProduct(a, b, 1);
    }

    void subtractProduct(double a, double b) {
        addProduct(a, b, -1);
    }

    boolean isZero() {
        return units.signum() == 0;
    }

    /** The double nearest to the sum. */
    double doubleValue() {
        return nearest(units, scale);
    }

    /** The double nearest to this sum x {@code factor} + {@code other}, rounded once. */
    double timesPlus(double factor, ExactSum other) {
        ExactSum exact = new ExactSum();
        exact.units = units;
        exact.scale = scale;
        exact.multiplyBy(factor);
        exact.addSum(other);
        return exact.doubleValue();
    }

    private void addScaled(double x, int sign) {
        checkFinite(x);
        if (x == 0) return;
        long mantissa = mantissa(x);
        addUnits(BigInteger.valueOf(sign * mantissa), exponent(x));
    }

    private void addProduct(double a, double b, int sign) {
        checkFinite(a);
        checkFinite(b);
        if (a == 0 || b == 0) return;
        BigInteger product = BigInteger.valueOf(sign * mantissa(a)).multiply(BigInteger.valueOf(mantissa(b)));
        addUnits(product, exponent(a) + exponent(b));
    }

    private void multiplyBy(double factor) {
        checkFinite(factor);
        if (factor == 0 || units.signum() == 0) {
            units = BigInteger.ZERO;
            return;
        }
        units = units.multiply(BigInteger.valueOf(mantissa(factor)));
        int exponent = exponent(factor);
        if (exponent >= 0) {
            units = units.shiftLeft(exponent);
        } else {
            scale -= exponent;
        }
    }

    private void addSum(ExactSum other) {
        if (other.units.signum() != 0) addUnits(other.units, -other.scale);
    }

    /** Adds {@code value} x 2^{@code exponent}. */
    private void addUnits(BigInteger value, int exponent) {
        if (-exponent > scale) {
            units = units.shiftLeft(-exponent - scale);
            scale = -exponent;
        }
        units = units.add(value.shiftLeft(exponent + scale));
    }

    /** x = mantissa(x) x 2^exponent(x), the mantissa signed and odd. */
    private static long mantissa(double x) {
        long bits = Double.doubleToRawLongBits(x);
        long m = bits & 0x000FFFFFFFFFFFFFL;
        if (((bits >>> 52) & 0x7FF) != 0) m |= 1L << 52;
        m >>= Long.numberOfTrailingZeros(m);
        return bits < 0 ? -m : m;
    }

    private static int exponent(double x) {
        long bits = Double.doubleToRawLongBits(x);
        long m = bits & 0x000FFFFFFFFFFFFFL;
        int biased = (int) ((bits >>> 52) & 0x7FF);
        if (biased != 0) m |= 1L << 52;
        return (biased == 0 ? -1074 : biased - 1075) + Long.numberOfTrailingZeros(m);
    }

    private static double nearest(BigInteger units, int scale) {
        if (units.signum() == 0) return 0;
        if (units.bitLength() < Double.MAX_EXPONENT) {
            // BigInteger rounds to 53 bits once, and a power of two scales a normal result exactly
            double rounded = Math.scalb(units.doubleValue(), -scale);
            if (Math.abs(rounded) >= Double.MIN_NORMAL) return rounded;
        }
        return new BigDecimal(units)
                .divide(new BigDecimal(BigInteger.ONE.shiftLeft(scale)))
                .doubleValue();
    }

    private static void checkFinite(double x) {
        if (!Double.isFinite(x)) throw new IllegalArgumentException("an exact sum takes finite terms, got " + x);
    }
}
