/*
 * py_sort.c — see py_sort.h.  Follows Objects/listobject.c (3.11) function
 * by function, so that every comparison is the one CPython makes.
 */
#include "analysis/common/py_sort.h"

#include <stdlib.h>
#include <string.h>

#define MIN_GALLOP 7
#define MAX_MERGE_PENDING 85

typedef struct run {
    size_t base, len;
    int power;
} run;

typedef struct merge_state {
    uint32_t *v;
    size_t n;
    kt_py_less_fn less;
    void *ctx;
    size_t min_gallop;
    uint32_t *tmp;
    size_t tmp_cap;
    run pending[MAX_MERGE_PENDING];
    size_t npending;
} merge_state;

static bool lt(merge_state *ms, uint32_t x, uint32_t y) { return ms->less(ms->ctx, x, y); }

static void reverse(uint32_t *lo, uint32_t *hi)
{
    for (--hi; lo < hi; lo++, hi--) {
        uint32_t t = *lo;
        *lo = *hi;
        *hi = t;
    }
}

/* binarysort: [lo, start) is sorted; insert [start, hi). */
static void binarysort(merge_state *ms, uint32_t *lo, uint32_t *hi, uint32_t *start)
{
    if (lo == start) ++start;
    for (; start < hi; ++start) {
        uint32_t *l = lo, *r = start, pivot = *r;
        do {
            uint32_t *p = l + ((r - l) >> 1);
            if (lt(ms, pivot, *p)) r = p;
            else l = p + 1;
        } while (l < r);
        memmove(l + 1, l, (size_t)(start - l) * sizeof *l);
        *l = pivot;
    }
}

static size_t count_run(merge_state *ms, uint32_t *lo, uint32_t *hi, bool *descending)
{
    *descending = false;
    ++lo;
    if (lo == hi) return 1;
    size_t n = 2;
    if (lt(ms, *lo, *(lo - 1))) {
        *descending = true;
        for (lo = lo + 1; lo < hi; ++lo, ++n)
            if (!lt(ms, *lo, *(lo - 1))) break;
    } else {
        for (lo = lo + 1; lo < hi; ++lo, ++n)
            if (lt(ms, *lo, *(lo - 1))) break;
    }
    return n;
}

static size_t gallop_left(merge_state *ms, uint32_t key, uint32_t *a, size_t n, size_t hint)
{
    size_t ofs = 1, lastofs = 0, k;
    a += hint;
    if (lt(ms, *a, key)) {
        size_t maxofs = n - hint;
        while (ofs < maxofs) {
            if (lt(ms, a[ofs], key)) {
                lastofs = ofs;
                ofs = (ofs << 1) + 1;
            } else {
                break;
            }
        }
        if (ofs > maxofs) ofs = maxofs;
        lastofs += hint;
        ofs += hint;
    } else {
        size_t maxofs = hint + 1;
        while (ofs < maxofs) {
            if (lt(ms, *(a - ofs), key)) break;
            lastofs = ofs;
            ofs = (ofs << 1) + 1;
        }
        if (ofs > maxofs) ofs = maxofs;
        k = lastofs;
        lastofs = hint - ofs; /* may wrap to "−1": ++ below brings it to 0 */
        ofs = hint - k;
    }
    a -= hint;
    ++lastofs;
    while (lastofs < ofs) {
        size_t m = lastofs + ((ofs - lastofs) >> 1);
        if (lt(ms, a[m], key)) lastofs = m + 1;
        else ofs = m;
    }
    return ofs;
}

static size_t gallop_right(merge_state *ms, uint32_t key, uint32_t *a, size_t n, size_t hint)
{
    size_t ofs = 1, lastofs = 0, k;
    a += hint;
    if (lt(ms, key, *a)) {
        size_t maxofs = hint + 1;
        while (ofs < maxofs) {
            if (lt(ms, key, *(a - ofs))) {
                lastofs = ofs;
                ofs = (ofs << 1) + 1;
            } else {
                break;
            }
        }
        if (ofs > maxofs) ofs = maxofs;
        k = lastofs;
        lastofs = hint - ofs;
        ofs = hint - k;
    } else {
        size_t maxofs = n - hint;
        while (ofs < maxofs) {
            if (lt(ms, key, a[ofs])) break;
            lastofs = ofs;
            ofs = (ofs << 1) + 1;
        }
        if (ofs > maxofs) ofs = maxofs;
        lastofs += hint;
        ofs += hint;
    }
    a -= hint;
    ++lastofs;
    while (lastofs < ofs) {
        size_t m = lastofs + ((ofs - lastofs) >> 1);
        if (lt(ms, key, a[m])) ofs = m;
        else lastofs = m + 1;
    }
    return ofs;
}

static bool getmem(merge_state *ms, size_t need)
{
    if (need <= ms->tmp_cap) return true;
    uint32_t *t = realloc(ms->tmp, need * sizeof *t);
    if (!t) return false;
    ms->tmp = t;
    ms->tmp_cap = need;
    return true;
}

static bool merge_lo(merge_state *ms, uint32_t *ssa, size_t na, uint32_t *ssb, size_t nb)
{
    if (!getmem(ms, na)) return false;
    uint32_t *dest = ssa;
    memcpy(ms->tmp, ssa, na * sizeof *ssa);
    ssa = ms->tmp;
    *dest++ = *ssb++;
    --nb;
    if (nb == 0) goto succeed;
    if (na == 1) goto copy_b;
    size_t min_gallop = ms->min_gallop;
    for (;;) {
        size_t acount = 0, bcount = 0;
        for (;;) {
            if (lt(ms, *ssb, *ssa)) {
                *dest++ = *ssb++;
                ++bcount;
                acount = 0;
                --nb;
                if (nb == 0) goto succeed;
                if (bcount >= min_gallop) break;
            } else {
                *dest++ = *ssa++;
                ++acount;
                bcount = 0;
                --na;
                if (na == 1) goto copy_b;
                if (acount >= min_gallop) break;
            }
        }
        ++min_gallop;
        do {
            min_gallop -= min_gallop > 1;
            ms->min_gallop = min_gallop;
            size_t k = gallop_right(ms, *ssb, ssa, na, 0);
            acount = k;
            if (k) {
                memcpy(dest, ssa, k * sizeof *ssa);
                dest += k;
                ssa += k;
                na -= k;
                if (na == 1) goto copy_b;
                if (na == 0) goto succeed;
            }
            *dest++ = *ssb++;
            --nb;
            if (nb == 0) goto succeed;
            k = gallop_left(ms, *ssa, ssb, nb, 0);
            bcount = k;
            if (k) {
                memmove(dest, ssb, k * sizeof *ssb);
                dest += k;
                ssb += k;
                nb -= k;
                if (nb == 0) goto succeed;
            }
            *dest++ = *ssa++;
            --na;
            if (na == 1) goto copy_b;
        } while (acount >= MIN_GALLOP || bcount >= MIN_GALLOP);
        ++min_gallop;
        ms->min_gallop = min_gallop;
    }
succeed:
    if (na) memcpy(dest, ssa, na * sizeof *ssa);
    return true;
copy_b:
    memmove(dest, ssb, nb * sizeof *ssb);
    dest[nb] = *ssa;
    return true;
}

static bool merge_hi(merge_state *ms, uint32_t *ssa, size_t na, uint32_t *ssb, size_t nb)
{
    if (!getmem(ms, nb)) return false;
    uint32_t *dest = ssb + nb - 1, *basea = ssa, *baseb = ms->tmp;
    memcpy(ms->tmp, ssb, nb * sizeof *ssb);
    ssb = ms->tmp + nb - 1;
    ssa += na - 1;
    *dest-- = *ssa--;
    --na;
    if (na == 0) goto succeed;
    if (nb == 1) goto copy_a;
    size_t min_gallop = ms->min_gallop;
    for (;;) {
        size_t acount = 0, bcount = 0;
        for (;;) {
            if (lt(ms, *ssb, *ssa)) {
                *dest-- = *ssa--;
                ++acount;
                bcount = 0;
                --na;
                if (na == 0) goto succeed;
                if (acount >= min_gallop) break;
            } else {
                *dest-- = *ssb--;
                ++bcount;
                acount = 0;
                --nb;
                if (nb == 1) goto copy_a;
                if (bcount >= min_gallop) break;
            }
        }
        ++min_gallop;
        do {
            min_gallop -= min_gallop > 1;
            ms->min_gallop = min_gallop;
            size_t k = na - gallop_right(ms, *ssb, basea, na, na - 1);
            acount = k;
            if (k) {
                dest -= k;
                ssa -= k;
                memmove(dest + 1, ssa + 1, k * sizeof *ssa);
                na -= k;
                if (na == 0) goto succeed;
            }
            *dest-- = *ssb--;
            --nb;
            if (nb == 1) goto copy_a;
            k = nb - gallop_left(ms, *ssa, baseb, nb, nb - 1);
            bcount = k;
            if (k) {
                dest -= k;
                ssb -= k;
                memcpy(dest + 1, ssb + 1, k * sizeof *ssb);
                nb -= k;
                if (nb == 1) goto copy_a;
                if (nb == 0) goto succeed;
            }
            *dest-- = *ssa--;
            --na;
            if (na == 0) goto succeed;
        } while (acount >= MIN_GALLOP || bcount >= MIN_GALLOP);
        ++min_gallop;
        ms->min_gallop = min_gallop;
    }
succeed:
    if (nb) memcpy(dest - (nb - 1), baseb, nb * sizeof *baseb);
    return true;
copy_a:
    dest -= na;
    ssa -= na;
    memmove(dest + 1, ssa + 1, na * sizeof *ssa);
    *dest = *ssb;
    return true;
}

static bool merge_at(merge_state *ms, size_t i)
{
    run *p = ms->pending;
    uint32_t *ssa = ms->v + p[i].base, *ssb = ms->v + p[i + 1].base;
    size_t na = p[i].len, nb = p[i + 1].len;
    p[i].len = na + nb;
    if (i + 3 == ms->npending) p[i + 1] = p[i + 2];
    --ms->npending;
    size_t k = gallop_right(ms, *ssb, ssa, na, 0);
    ssa += k;
    na -= k;
    if (na == 0) return true;
    nb = gallop_left(ms, ssa[na - 1], ssb, nb, nb - 1);
    if (nb == 0) return true;
    return na <= nb ? merge_lo(ms, ssa, na, ssb, nb) : merge_hi(ms, ssa, na, ssb, nb);
}

static int powerloop(size_t s1, size_t n1, size_t n2, size_t n)
{
    int result = 0;
    size_t a = 2 * s1 + n1, b = a + n1 + n2;
    for (;;) {
        ++result;
        if (a >= n) {
            a -= n;
            b -= n;
        } else if (b >= n) {
            break;
        }
        a <<= 1;
        b <<= 1;
    }
    return result;
}

static bool found_new_run(merge_state *ms, size_t n2)
{
    if (!ms->npending) return true;
    run *p = ms->pending;
    size_t s1 = p[ms->npending - 1].base, n1 = p[ms->npending - 1].len;
    int power = powerloop(s1, n1, n2, ms->n);
    while (ms->npending > 1 && p[ms->npending - 2].power > power)
        if (!merge_at(ms, ms->npending - 2)) return false;
    p[ms->npending - 1].power = power;
    return true;
}

static bool merge_force_collapse(merge_state *ms)
{
    run *p = ms->pending;
    while (ms->npending > 1) {
        size_t n = ms->npending - 2;
        if (n > 0 && p[n - 1].len < p[n + 1].len) --n;
        if (!merge_at(ms, n)) return false;
    }
    return true;
}

static size_t compute_minrun(size_t n)
{
    size_t r = 0;
    while (n >= 64) {
        r |= n & 1;
        n >>= 1;
    }
    return n + r;
}

bool kt_py_sort(uint32_t *v, size_t n, kt_py_less_fn less, void *ctx)
{
    if (n < 2) return true;
    merge_state ms = { .v = v, .n = n, .less = less, .ctx = ctx, .min_gallop = MIN_GALLOP };
    size_t minrun = compute_minrun(n), lo = 0, remaining = n;
    bool ok = true;
    do {
        bool descending;
        size_t run_len = count_run(&ms, v + lo, v + lo + remaining, &descending);
        if (descending) reverse(v + lo, v + lo + run_len);
        if (run_len < minrun) {
            size_t force = remaining <= minrun ? remaining : minrun;
            binarysort(&ms, v + lo, v + lo + force, v + lo + run_len);
            run_len = force;
        }
        ok = found_new_run(&ms, run_len) && ms.npending < MAX_MERGE_PENDING;
        if (!ok) break;
        ms.pending[ms.npending++] = (run){ .base = lo, .len = run_len };
        lo += run_len;
        remaining -= run_len;
    } while (remaining);
    ok = ok && merge_force_collapse(&ms);
    free(ms.tmp);
    return ok;
}
