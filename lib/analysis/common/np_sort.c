/*
 * np_sort.c — see np_sort.h.  Mirrors numpy's introsort step by step:
 * median-of-3 partition, insertion sort below 16 elements, heapsort when
 * the depth budget (2·floor(log2 n)) is spent.  Pointers became indexes.
 */
#include "analysis/common/np_sort.h"

#define SMALL_QUICKSORT 15
#define STACK_SIZE 128

static void swap_u32(uint32_t *a, uint32_t *b)
{
    uint32_t t = *a;
    *a = *b;
    *b = t;
}

static int msb(size_t n)
{
    int d = 0;
    while (n > 1) {
        n >>= 1;
        d++;
    }
    return d;
}

/* numpy aheapsort_ over t[0..n), written with its 1-based heap indexes. */
#define A(i) t[(i) - 1]
static void np_aheapsort(const int64_t *v, uint32_t *t, size_t n)
{
    uint32_t tmp;
    size_t i, j, l;
    for (l = n >> 1; l > 0; --l) {
        tmp = A(l);
        for (i = l, j = l << 1; j <= n;) {
            if (j < n && v[A(j)] < v[A(j + 1)]) j += 1;
            if (!(v[tmp] < v[A(j)])) break;
            A(i) = A(j);
            i = j;
            j += j;
        }
        A(i) = tmp;
    }
    for (; n > 1;) {
        tmp = A(n);
        A(n) = A(1);
        n -= 1;
        for (i = 1, j = 2; j <= n;) {
            if (j < n && v[A(j)] < v[A(j + 1)]) j++;
            if (!(v[tmp] < v[A(j)])) break;
            A(i) = A(j);
            i = j;
            j += j;
        }
        A(i) = tmp;
    }
}
#undef A

/* One median-of-3 partition of t[pl..pr]; returns the pivot position. */
static size_t partition(const int64_t *v, uint32_t *t, size_t pl, size_t pr)
{
    size_t pm = pl + ((pr - pl) >> 1), pi = pl, pj = pr - 1;
    if (v[t[pm]] < v[t[pl]]) swap_u32(&t[pm], &t[pl]);
    if (v[t[pr]] < v[t[pm]]) swap_u32(&t[pr], &t[pm]);
    if (v[t[pm]] < v[t[pl]]) swap_u32(&t[pm], &t[pl]);
    int64_t vp = v[t[pm]];
    swap_u32(&t[pm], &t[pj]);
    for (;;) {
        do ++pi; while (v[t[pi]] < vp);
        do --pj; while (vp < v[t[pj]]);
        if (pi >= pj) break;
        swap_u32(&t[pi], &t[pj]);
    }
    swap_u32(&t[pi], &t[pr - 1]);
    return pi;
}

static void insertion_sort(const int64_t *v, uint32_t *t, size_t pl, size_t pr)
{
    for (size_t pi = pl + 1; pi <= pr; ++pi) {
        uint32_t vi = t[pi];
        int64_t vp = v[vi];
        size_t pj = pi;
        while (pj > pl && vp < v[t[pj - 1]]) {
            t[pj] = t[pj - 1];
            pj--;
        }
        t[pj] = vi;
    }
}

void kt_np_argsort_i64(const int64_t *v, uint32_t *t, size_t num)
{
    if (num < 2) return;
    size_t stack[STACK_SIZE], *sptr = stack, pl = 0, pr = num - 1;
    int depth[STACK_SIZE / 2], *psdepth = depth, cdepth = msb(num) * 2;
    for (;;) {
        if (cdepth < 0) {
            np_aheapsort(v, t + pl, pr - pl + 1);
        } else {
            while (pr - pl > SMALL_QUICKSORT) {
                size_t pi = partition(v, t, pl, pr);
                /* push the larger partition, continue with the smaller */
                if (pi - pl < pr - pi) {
                    *sptr++ = pi + 1;
                    *sptr++ = pr;
                    pr = pi - 1;
                } else {
                    *sptr++ = pl;
                    *sptr++ = pi - 1;
                    pl = pi + 1;
                }
                *psdepth++ = --cdepth;
            }
            insertion_sort(v, t, pl, pr);
        }
        if (sptr == stack) break;
        pr = *(--sptr);
        pl = *(--sptr);
        cdepth = *(--psdepth);
    }
}
