/*
 * event_locate.c — see event_locate.h.
 */
#include "event_locate.h"
#include "model/model.h"

#include <stdlib.h>
#include <string.h>

const signed char kt_json_bracket_step[256] = { ['{'] = 1, ['['] = 1, ['}'] = -1, [']'] = -1 };

const char *kt_json_string_end(const char *s, const char *end)
{
    for (const char *q; (q = memchr(s, '"', (size_t)(end - s))) != NULL; s = q + 1) {
        const char *b = q;
        while (b > s && b[-1] == '\\') b--;
        if ((q - b) % 2 == 0) return q;
    }
    return end;
}

bool kt_args_index_init(kt_args_index *a, const uint64_t *at, size_t n, size_t open, size_t close)
{
    *a = (kt_args_index){ .at = at, .n = n, .open = open, .close = close };
    size_t with = 0;
    uint64_t last = open;
    for (size_t i = 0; i < n; i++) {
        if (!at[i]) continue;
        uint64_t off = kt_args_at_off(at[i]), len = kt_args_at_len(at[i]);
        if (off <= last || len < 2 || off + len > close) return false;
        last = off + len - 1;
        with++;
    }
    if (n > UINT32_MAX || !(a->with_args = kt_alloc_written(with * sizeof *a->with_args))) return false;
    for (size_t i = 0; i < n; i++)
        if (at[i]) a->with_args[a->nwith++] = (uint32_t)i;
    return true;
}

/* Where the k-th args object of the index starts, and one past its end. */
static uint64_t off_at(const kt_args_index *a, size_t k) { return kt_args_at_off(a->at[a->with_args[k]]); }
static uint64_t end_at(const kt_args_index *a, size_t k)
{
    uint64_t at = a->at[a->with_args[k]];
    return kt_args_at_off(at) + kt_args_at_len(at);
}

void kt_args_index_free(kt_args_index *a)
{
    free(a->with_args);
    a->with_args = NULL;
}

/* Position in with_args of the event whose args open at off, or nwith.
 * Searched from *hint forward when off lies past it (offsets asked for in
 * file order: each search is a few steps over memory just read), else in
 * the whole list; *hint becomes the position found.                      */
static size_t position_of(const kt_args_index *a, uint64_t off, size_t *hint)
{
    size_t lo = 0, hi = a->nwith;
    if (hint && *hint < a->nwith && off_at(a, *hint) <= off) {
        size_t step = 1;
        lo = *hint;
        while (lo + step < a->nwith && off_at(a, lo + step) < off) lo += step, step *= 2;
        hi = lo + step < a->nwith ? lo + step + 1 : a->nwith;
    }
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (off_at(a, mid) < off) lo = mid + 1;
        else hi = mid;
    }
    if (lo >= a->nwith || off_at(a, lo) != off) return a->nwith;
    if (hint) *hint = lo;
    return lo;
}

/* Reads text[from, limit) from inside an event (depth 2): one past the
 * '}' that closes it, or SIZE_MAX.                                      */
static size_t event_end(const char *text, size_t from, size_t limit)
{
    const char *end = text + limit;
    int depth = 2;
    for (const char *p = text + from; p < end; p++) {
        if (*p == '"') {
            if ((p = kt_json_string_end(p + 1, end)) == end) return SIZE_MAX;
            continue;
        }
        if ((depth += kt_json_bracket_step[(unsigned char)*p]) == 1)
            return *p == '}' ? (size_t)(p - text) + 1 : SIZE_MAX;
    }
    return SIZE_MAX;
}

bool kt_locate_event_in(const char *text, uint64_t base, size_t n, const kt_args_index *a, uint64_t args_off,
                        size_t *hint, kt_span *out, kt_span *need)
{
    *need = (kt_span){ 0 };
    size_t k = position_of(a, args_off, hint);
    if (k == a->nwith) return false;
    size_t args_end = (size_t)end_at(a, k), from = a->open + 1, limit = a->close, top = (size_t)base + n;
    int depth = 1;
    if (k > 0) from = (size_t)end_at(a, k - 1), depth = 2;
    if (k + 1 < a->nwith) limit = (size_t)off_at(a, k + 1);
    size_t first = from - (k > 0);
    if (first < base || args_end > top) {
        *need = (kt_span){ first, args_end };
        return false;
    }
    size_t b = (size_t)base;
    if (text[args_off - b] != '{' || text[args_end - 1 - b] != '}' || (k > 0 && text[from - 1 - b] != '}')) return false;
    size_t start = kt_object_start_before(text, n, from - b, (size_t)args_off - b, depth);
    size_t stop = limit < top ? limit : top;
    size_t end = start == SIZE_MAX ? SIZE_MAX : event_end(text, args_end - b, stop - b);
    if (end == SIZE_MAX) {
        if (start != SIZE_MAX && stop < limit) *need = (kt_span){ first, limit };
        return false;
    }
    *out = (kt_span){ start + b, end + b };
    return true;
}

bool kt_locate_event(const char *text, const kt_args_index *a, uint64_t args_off, size_t *hint, kt_span *out)
{
    kt_span need;
    return kt_locate_event_in(text, 0, a->close + 1, a, args_off, hint, out, &need);
}
