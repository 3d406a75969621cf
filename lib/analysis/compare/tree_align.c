/*
 * tree_align.c — edit-distance alignment of sibling names (tree_align.h).
 *
 * Costs: a gap 1, a substitution 2 (= a gap on each side, so the distance
 * counts the children not matched and the alignment keeps the most
 * matches in order).  Of equally good alignments the backtrace takes the
 * match, then the test's gap, so that read forwards a control child comes
 * before the test child that replaced it.
 */
#include "tree_align.h"

#include <stdlib.h>

/* The DP table of (na+1) x (nb+1) distances, row-major. */
static uint32_t *distances(const uint32_t *a, size_t na, const uint32_t *b, size_t nb)
{
    size_t w = nb + 1;
    uint32_t *d = malloc((na + 1) * w * sizeof *d);
    if (!d) return NULL;
    for (size_t j = 0; j <= nb; j++) d[j] = (uint32_t)j;
    for (size_t i = 1; i <= na; i++) {
        d[i * w] = (uint32_t)i;
        for (size_t j = 1; j <= nb; j++) {
            uint32_t diag = d[(i - 1) * w + j - 1] + (a[i - 1] == b[j - 1] ? 0 : 2);
            uint32_t up = d[(i - 1) * w + j] + 1, left = d[i * w + j - 1] + 1;
            uint32_t m = diag < up ? diag : up;
            d[i * w + j] = m < left ? m : left;
        }
    }
    return d;
}

/* Backtrace from the end; steps come out reversed, then are flipped. */
static size_t backtrace(const uint32_t *d, const uint32_t *a, size_t na, const uint32_t *b, size_t nb,
                        kt_align_step *out)
{
    size_t w = nb + 1, i = na, j = nb, n = 0;
    while (i > 0 || j > 0) {
        uint32_t here = d[i * w + j];
        if (i > 0 && j > 0 && a[i - 1] == b[j - 1] && here == d[(i - 1) * w + j - 1]) {
            out[n++] = (kt_align_step){ (uint32_t)--i, (uint32_t)--j };
        } else if (j > 0 && here == d[i * w + j - 1] + 1) {
            out[n++] = (kt_align_step){ KT_ALIGN_GAP, (uint32_t)--j };
        } else if (i > 0 && here == d[(i - 1) * w + j] + 1) {
            out[n++] = (kt_align_step){ (uint32_t)--i, KT_ALIGN_GAP };
        } else { /* a substitution: both gaps, the control's first */
            out[n++] = (kt_align_step){ KT_ALIGN_GAP, (uint32_t)--j };
            out[n++] = (kt_align_step){ (uint32_t)--i, KT_ALIGN_GAP };
        }
    }
    for (size_t k = 0; k < n / 2; k++) {
        kt_align_step t = out[k];
        out[k] = out[n - 1 - k];
        out[n - 1 - k] = t;
    }
    return n;
}

/* Without the DP: every control child, then every test child, as gaps. */
static size_t all_gaps(size_t na, size_t nb, kt_align_step *out)
{
    size_t n = 0;
    for (size_t i = 0; i < na; i++) out[n++] = (kt_align_step){ (uint32_t)i, KT_ALIGN_GAP };
    for (size_t j = 0; j < nb; j++) out[n++] = (kt_align_step){ KT_ALIGN_GAP, (uint32_t)j };
    return n;
}

/* Leftover control gaps take a leftover test child with the same name;
 * the test's gap step is removed.                                          */
static size_t match_leftovers(const uint32_t *a, const uint32_t *b, kt_align_step *s, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        if (s[k].b != KT_ALIGN_GAP || s[k].a == KT_ALIGN_GAP) continue;
        for (size_t m = 0; m < n; m++)
            if (s[m].a == KT_ALIGN_GAP && s[m].b != KT_ALIGN_GAP && b[s[m].b] == a[s[k].a]) {
                s[k].b = s[m].b;
                s[m].b = KT_ALIGN_GAP; /* now an empty step, dropped below */
                break;
            }
    }
    size_t w = 0;
    for (size_t k = 0; k < n; k++)
        if (s[k].a != KT_ALIGN_GAP || s[k].b != KT_ALIGN_GAP) s[w++] = s[k];
    return w;
}

size_t kt_align_names(const uint32_t *a, size_t na, const uint32_t *b, size_t nb, size_t max_cells,
                      kt_align_step *out)
{
    size_t n;
    if ((na + 1) * (nb + 1) > max_cells) {
        n = all_gaps(na, nb, out);
    } else {
        uint32_t *d = distances(a, na, b, nb);
        if (!d) return (size_t)-1;
        n = backtrace(d, a, na, b, nb, out);
        free(d);
    }
    return match_leftovers(a, b, out, n);
}
