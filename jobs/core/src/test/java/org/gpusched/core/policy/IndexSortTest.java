package org.gpusched.core.policy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.util.Arrays;
import java.util.Comparator;
import java.util.Random;
import java.util.stream.IntStream;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/**
 * The index sort against a stable sort of boxed indices by the same comparisons, for the sizes each method serves
 * (insertion, merge, radix), keys with many ties, both zeros, infinities and negative values; with a NaN key the
 * radix path steps aside for the merge sort.
 */
class IndexSortTest {

    private static double[] keys(long seed, int count, int distinct) {
        Random random = new Random(seed);
        double[] pool = {0.0, -0.0, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, Double.MIN_VALUE, -1e300};
        double[] key = new double[count];
        for (int i = 0; i < count; i++) {
            int pick = random.nextInt(distinct + pool.length);
            // about a fifth special values, the others from a small set of magnitudes, so that ties are common
            key[i] = pick < pool.length && random.nextInt(5) == 0
                    ? pool[pick]
                    : (random.nextInt(distinct) - distinct / 2) * Math.pow(10, random.nextInt(7) - 3)
                            + (seed % 2 == 0 ? 1e6 : 0);
        }
        return key;
    }

    /** A stable sort by the comparisons IndexSort makes: {@code <} (or {@code >}), so -0.0 and 0.0 are equal. */
    private static int[] reference(int[] idx, int count, double[] key, boolean descending) {
        Comparator<Integer> order = (a, b) -> {
            double x = key[a], y = key[b];
            int c = x < y ? -1 : x > y ? 1 : 0;
            return descending ? -c : c;
        };
        Integer[] boxed = IntStream.of(idx).limit(count).boxed().toArray(Integer[]::new);
        Arrays.sort(boxed, order); // a stable merge sort for objects
        int[] sorted = idx.clone();
        for (int i = 0; i < count; i++) sorted[i] = boxed[i];
        return sorted;
    }

    private static int[] shuffled(long seed, int size) {
        int[] idx = IntStream.range(0, size).toArray();
        Random random = new Random(seed ^ 0x5DEECE66DL);
        for (int i = size - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int t = idx[i];
            idx[i] = idx[j];
            idx[j] = t;
        }
        return idx;
    }

    @Property(tries = 300)
    void sortsAsAStableSortByTheComparisons(
            @ForAll long seed,
            @ForAll @IntRange(min = 0, max = 1500) int size,
            @ForAll @IntRange(min = 1, max = 400) int distinct,
            @ForAll boolean descending) {
        double[] key = keys(seed, size, distinct);
        int[] idx = shuffled(seed, size);
        // only a prefix is sorted; the rest stays as it is
        int count = size == 0 ? 0 : (int) Math.floorMod(seed, (long) size) + 1;
        int[] expected = reference(idx, count, key, descending);
        IndexSort sorter = new IndexSort();
        int[] byRadix = idx.clone();
        sorter.sort(byRadix, count, key, descending);
        assertArrayEquals(expected, byRadix);
        int[] byMerge = idx.clone();
        sorter.mergeSort(byMerge, count, key, descending);
        assertArrayEquals(expected, byMerge);
    }

    @Test
    void aNanKeyLeavesTheRadixPathToTheMergeSort() {
        IndexSort sorter = new IndexSort();
        for (int count : new int[] {IndexSort.RADIX_MIN, 700}) {
            double[] key = keys(count, count, 50);
            key[count / 3] = Double.NaN;
            int[] idx = shuffled(count, count);
            int[] expected = idx.clone();
            new IndexSort().mergeSort(expected, count, key, true);
            int[] sorted = idx.clone();
            sorter.sort(sorted, count, key, true);
            assertArrayEquals(expected, sorted);
        }
    }

    @Test
    void reusesItsScratchAcrossSizes() {
        IndexSort sorter = new IndexSort();
        for (int count : new int[] {2000, 130, 25, 900, 5}) {
            double[] key = keys(count * 31L, count, 7);
            int[] idx = shuffled(count, count);
            int[] expected = reference(idx, count, key, false);
            sorter.sort(idx, count, key, false);
            assertArrayEquals(expected, idx);
        }
    }
}
