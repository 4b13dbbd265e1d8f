package org.gpusched.core.policy;

/**
 * Allocation-free stable sort of an index array by a double key, so the optimizers can order jobs without boxing.
 * Ties keep the incoming order, which callers make the job index order for determinism.
 */
final class IndexSort {
    private IndexSort() {}

    /**
     * Sorts {@code idx[0..count)} by {@code key[idx[i]]}, ascending or descending, stably.
     *
     * @param scratch at least {@code count} long, reused by the caller
     */
    static void sort(int[] idx, int count, double[] key, boolean descending, int[] scratch) {
        if (count < 2) return;
        if (count <= 24) {
            insertion(idx, 0, count, key, descending);
            return;
        }
        mergeSort(idx, scratch, 0, count, key, descending);
    }

    private static boolean before(double a, double b, boolean descending) {
        return descending ? a > b : a < b;
    }

    private static void insertion(int[] idx, int from, int to, double[] key, boolean descending) {
        for (int i = from + 1; i < to; i++) {
            int v = idx[i];
            double k = key[v];
            int p = i - 1;
            while (p >= from && before(k, key[idx[p]], descending)) {
                idx[p + 1] = idx[p];
                p--;
            }
            idx[p + 1] = v;
        }
    }

    private static void mergeSort(int[] idx, int[] tmp, int from, int to, double[] key, boolean descending) {
        if (to - from <= 24) {
            insertion(idx, from, to, key, descending);
            return;
        }
        int mid = (from + to) >>> 1;
        mergeSort(idx, tmp, from, mid, key, descending);
        mergeSort(idx, tmp, mid, to, key, descending);
        if (!before(key[idx[mid]], key[idx[mid - 1]], descending)) return;
        System.arraycopy(idx, from, tmp, from, to - from);
        int i = from, j = mid, o = from;
        while (i < mid && j < to) {
            // Take from the right run only when strictly before: keeps the sort stable.
            if (before(key[tmp[j]], key[tmp[i]], descending)) idx[o++] = tmp[j++];
            else idx[o++] = tmp[i++];
        }
        while (i < mid) idx[o++] = tmp[i++];
        while (j < to) idx[o++] = tmp[j++];
    }
}
