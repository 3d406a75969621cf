/*
 * short_names.c — cutting kernel names to a column width without making two
 * kernels look alike (see short_names.h).
 *
 * ROCm GEMM names (Cijk_Alik_Bljk_..._WG64_4_1) and templated CUDA names
 * differ only in the middle, so a plain head...tail cut prints different
 * kernels under one name.  Colliding names are cut again around the first
 * place they differ, then numbered if still equal.
 */
#include "short_names.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARROW " \xe2\x86\x92 " /* " → " between the two kernels of a transition */
#define DOTS "..."
#define MIN_WIDTH 12     /* narrowest cut of a whole string */
#define MIN_PART_WIDTH 8 /* narrowest cut of each side of a transition */

size_t text_width(const char *s)
{
    size_t n = 0;
    for (; *s; s++) n += ((unsigned char)*s & 0xc0) != 0x80;
    return n;
}

/* Byte offset of code point k of s (or its end). */
static size_t cp_offset(const char *s, size_t k)
{
    size_t i = 0;
    for (; s[i]; i++)
        if (((unsigned char)s[i] & 0xc0) != 0x80 && k-- == 0) return i;
    return i;
}

/* Code points s[a, b) appended to out. */
static char *append_cps(char *out, const char *s, size_t a, size_t b)
{
    size_t from = cp_offset(s, a), to = cp_offset(s, b);
    memcpy(out, s + from, to - from);
    return out + (to - from);
}

/* s with code points [head, mid) and [mid_end, len - tail) left out:
 * head + "..." + s[mid, mid_end) + "..." + tail, or head + "..." + tail
 * when mid == mid_end.                                                     */
static char *compose(const char *s, size_t head, size_t mid, size_t mid_end, size_t tail)
{
    size_t len = text_width(s);
    char *out = malloc(strlen(s) + 2 * sizeof DOTS + 1), *p = out;
    if (!out) return NULL;
    p = append_cps(p, s, 0, head);
    memcpy(p, DOTS, 3), p += 3;
    if (mid_end > mid) {
        p = append_cps(p, s, mid, mid_end);
        memcpy(p, DOTS, 3), p += 3;
    }
    p = append_cps(p, s, len - tail, len);
    *p = '\0';
    return out;
}

/* head...tail in w columns. */
static char *cut_middle(const char *s, size_t w)
{
    size_t len = text_width(s);
    if (len <= w) return strdup(s);
    return compose(s, (w - 3 + 1) / 2, 0, 0, (w - 3) / 2);
}

/* head...s[diff..]...tail in w columns: the window starts a little before
 * code point diff, where names of one colliding group first differ.       */
static char *cut_around(const char *s, size_t w, size_t diff)
{
    if (w < MIN_WIDTH) return cut_middle(s, w);
    size_t len = text_width(s), head = w / 4, tail = w / 4, room = w - head - tail - 6;
    if (len <= w) return strdup(s);
    size_t mid = diff > head + room / 3 ? diff - room / 3 : head;
    if (mid + room > len - tail) mid = len - tail - room;
    if (mid < head) return cut_middle(s, w);
    return compose(s, head, mid, mid + room, tail);
}

/* Distinct strings and their short forms. */
typedef struct uniq {
    const char *full;
    char *shown;
} uniq;

static int by_full(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int by_shown(const void *a, const void *b)
{
    const uniq *x = *(const uniq *const *)a, *y = *(const uniq *const *)b;
    int c = strcmp(x->shown, y->shown);
    return c ? c : strcmp(x->full, y->full);
}

/* Code points the strings of g[0..n) have in common at their start. */
static size_t common_prefix(uniq *const *g, size_t n)
{
    const char *a = g[0]->full;
    size_t k = 0;
    for (bool same = true; same && a[k]; k += same) {
        for (size_t i = 1; i < n; i++) same = same && g[i]->full[k] == a[k];
    }
    size_t cps = 0;
    for (size_t i = 0; i < k; i++) cps += ((unsigned char)a[i] & 0xc0) != 0x80;
    return cps && ((unsigned char)a[k] & 0xc0) == 0x80 ? cps - 1 : cps;
}

/* Re-cut one group of different strings that look the same: round 0..2 cut
 * around their first difference, after that number them.                   */
static bool recut_group(uniq **g, size_t n, size_t w, int round)
{
    size_t diff = round < 3 ? common_prefix(g, n) : 0;
    for (size_t i = 0; i < n; i++) {
        if (text_width(g[i]->full) <= w) continue; /* shown in full already */
        char *s;
        if (round < 3) s = cut_around(g[i]->full, w, diff);
        else {
            char tag[24];
            int tl = snprintf(tag, sizeof tag, "#%zu", i + 1);
            char *base = cut_middle(g[i]->full, w > (size_t)tl + MIN_PART_WIDTH ? w - (size_t)tl : MIN_PART_WIDTH);
            s = base ? malloc(strlen(base) + (size_t)tl + 1) : NULL;
            if (s) strcat(strcpy(s, base), tag);
            free(base);
        }
        if (!s) return false;
        free(g[i]->shown);
        g[i]->shown = s;
    }
    return true;
}

/* One pass over the short forms: re-cut every group that collides.
 * *clash says whether there was any.                                       */
static bool resolve_pass(uniq **order, size_t nu, size_t w, int round, bool *clash)
{
    qsort(order, nu, sizeof *order, by_shown);
    *clash = false;
    for (size_t a = 0, b; a < nu; a = b) {
        for (b = a + 1; b < nu && !strcmp(order[b]->shown, order[a]->shown);) b++;
        if (b - a < 2) continue;
        *clash = true;
        if (!recut_group(order + a, b - a, w, round)) return false;
    }
    return true;
}

/* Short forms of the distinct strings u[0..nu). */
static bool shorten_unique(uniq *u, size_t nu, size_t w)
{
    uniq **order = malloc((nu ? nu : 1) * sizeof *order);
    if (!order) return false;
    bool ok = true, clash = true;
    for (size_t i = 0; i < nu; i++) {
        order[i] = &u[i];
        ok = ok && (u[i].shown = cut_middle(u[i].full, w)) != NULL;
    }
    for (int round = 0; ok && clash && round < 5; round++) ok = resolve_pass(order, nu, w, round, &clash);
    free(order);
    return ok;
}

static int by_full_uniq(const void *a, const void *b)
{
    return strcmp(((const uniq *)a)->full, ((const uniq *)b)->full);
}

/* Short forms of strs[0..n) into out[0..n) (malloc'd). */
static bool shorten_into(char *const *strs, size_t n, size_t w, char **out)
{
    char **sorted = malloc((n ? n : 1) * sizeof *sorted);
    uniq *u = calloc(n ? n : 1, sizeof *u);
    size_t nu = 0;
    bool ok = sorted && u;
    if (ok) {
        memcpy(sorted, strs, n * sizeof *sorted);
        qsort(sorted, n, sizeof *sorted, by_full);
        for (size_t i = 0; i < n; i++)
            if (!nu || strcmp(u[nu - 1].full, sorted[i])) u[nu++].full = sorted[i];
        ok = shorten_unique(u, nu, w);
    }
    for (size_t i = 0; ok && i < n; i++) {
        uniq key = { .full = strs[i] };
        const uniq *hit = bsearch(&key, u, nu, sizeof *u, by_full_uniq);
        ok = (out[i] = strdup(hit->shown)) != NULL;
    }
    for (size_t i = 0; u && i < nu; i++) free(u[i].shown);
    free(u);
    free(sorted);
    return ok;
}

/* strs[i] := out[i] on success; out freed on failure. */
static bool take(char **strs, char **out, size_t n, bool ok)
{
    for (size_t i = 0; i < n; i++) {
        if (ok) free(strs[i]), strs[i] = out[i];
        else free(out[i]);
    }
    free(out);
    return ok;
}

/* "A → B" cells: A and B (all of them pooled, as they are kernel names
 * alike) cut to half the width each.                                       */
static bool shorten_transitions(char **strs, size_t n, size_t w)
{
    char **parts = calloc(2 * n + 1, sizeof *parts), **cut = calloc(2 * n + 1, sizeof *cut);
    bool ok = parts && cut;
    for (size_t i = 0; ok && i < n; i++) {
        const char *arrow = strstr(strs[i], ARROW);
        parts[2 * i] = arrow ? strndup(strs[i], (size_t)(arrow - strs[i])) : strdup(strs[i]);
        parts[2 * i + 1] = strdup(arrow ? arrow + strlen(ARROW) : "");
        ok = parts[2 * i] && parts[2 * i + 1];
    }
    size_t part = w > 3 + 2 * MIN_PART_WIDTH ? (w - 3) / 2 : MIN_PART_WIDTH;
    ok = ok && shorten_into(parts, 2 * n, part, cut);
    char **out = ok ? calloc(n + 1, sizeof *out) : NULL;
    ok = ok && out;
    for (size_t i = 0; ok && i < n; i++) {
        bool arrow = strstr(strs[i], ARROW) != NULL;
        out[i] = malloc(strlen(cut[2 * i]) + strlen(ARROW) + strlen(cut[2 * i + 1]) + 1);
        if (!(ok = out[i] != NULL)) break;
        strcpy(out[i], cut[2 * i]);
        if (arrow) strcat(strcat(out[i], ARROW), cut[2 * i + 1]);
    }
    for (size_t i = 0; parts && i < 2 * n; i++) free(parts[i]), free(cut ? cut[i] : NULL);
    free(parts);
    free(cut);
    return out ? take(strs, out, n, ok) : false;
}

bool shorten_distinct(char **strs, size_t n, size_t w)
{
    bool arrows = false;
    for (size_t i = 0; i < n && !arrows; i++) arrows = strstr(strs[i], ARROW) != NULL;
    if (arrows) return shorten_transitions(strs, n, w);
    if (w < MIN_WIDTH) w = MIN_WIDTH;
    char **out = calloc(n + 1, sizeof *out);
    if (!out) return false;
    return take(strs, out, n, shorten_into(strs, n, w, out));
}
