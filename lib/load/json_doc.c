/*
 * json_doc.c — by-value lookups in a JSON document held in memory (see
 * json_doc.h for why).
 */
#include "json_doc.h"

#include <stdlib.h>

static kt_jv span(const char *s, const char *e) { return (kt_jv){ s, e }; }
static bool is_container(const char *q) { return *q == '{' || *q == '['; }

kt_jv kt_jv_root(const char *data, size_t len, int64_t *damaged_at)
{
    const char *end = data + len, *next;
    const char *s = kt_skip_ws(data, end);
    unsigned fl;
    *damaged_at = -1;
    kt_scan_res r = kt_skip_value(s, end, true, &next, &fl);
    if (r == KT_SCAN_OK) return span(s, next);
    if (s >= end || (*s != '{' && *s != '[')) return span(NULL, NULL);
    *damaged_at = (int64_t)len; /* read on to where it breaks */
    return span(s, end);
}

kt_jv kt_jv_walk_root(const char *data, size_t len)
{
    const char *end = data + len, *s = kt_skip_ws(data, end);
    return s < end && is_container(s) ? span(s, end + 1) : span(NULL, NULL);
}

/* A value running past the end of its container (a truncated file): the
 * rest of the container, so that the records before the cut are read.  */
static bool cut_value(const char *v, const char *end, const char **it, kt_jv *val)
{
    if (v >= end || (*v != '{' && *v != '[' && *v != '"')) return false;
    *val = span(v, end);
    *it = end;
    return true;
}

bool kt_jv_next_member(kt_jv obj, const char **it, kt_pair *pr, kt_jv *val)
{
    if (!kt_jv_is(obj, '{') || *it == obj.e) return false;
    kt_obj o = { .q = *it ? *it : obj.s + 1, .end = obj.e, .eof = true };
    bool closed;
    if (kt_member_key(&o, pr, &closed) != KT_SCAN_OK || closed) return false;
    kt_scan_res r = kt_member_skip(&o, pr);
    if (r == KT_SCAN_TRUNC) return cut_value(pr->v, obj.e, it, val);
    if (r != KT_SCAN_OK) return false;
    *val = span(pr->v, pr->vend);
    if (kt_member_sep(&o, pr->vend, &closed) != KT_SCAN_OK) {
        *it = obj.e; /* this member is the last one read */
        return true;
    }
    *it = closed ? obj.e : o.q;
    return true;
}

kt_jv kt_jv_get(kt_jv obj, const char *key)
{
    size_t n = strlen(key);
    const char *it = NULL;
    kt_pair pr;
    kt_jv v;
    while (kt_jv_next_member(obj, &it, &pr, &v))
        if (kt_key_is(&pr, key, n)) return v;
    return span(NULL, NULL);
}

bool kt_jv_next(kt_jv v, const char **it, kt_jv *item)
{
    if (kt_jv_is(v, '{')) {
        kt_pair pr;
        return kt_jv_next_member(v, it, &pr, item);
    }
    if (!kt_jv_is(v, '[') || *it == v.e) return false;
    const char *q = kt_skip_ws(*it ? *it : v.s + 1, v.e), *next;
    if (q >= v.e || *q == ']') return false;
    unsigned fl;
    kt_scan_res r = kt_skip_value(q, v.e, true, &next, &fl);
    if (r == KT_SCAN_TRUNC) return cut_value(q, v.e, it, item);
    if (r != KT_SCAN_OK) return false;
    *item = span(q, next);
    q = kt_skip_ws(next, v.e);
    *it = q < v.e && *q == ',' ? q + 1 : v.e;
    return true;
}

/* The walk of v stops where its JSON breaks: *it at v's end, so that a
 * walk that handed v over stops there too (nothing after the break is
 * read as a member of what encloses it).  Always false.              */
static bool walk_broken(kt_jv v, const char **it)
{
    *it = v.e;
    return false;
}

kt_scan_res kt_walk_step(const char *it, const char *first, char close, const char *end, bool eof,
                         const char **at, bool *closed)
{
    const char *q = kt_skip_ws(it ? it : first, end);
    unsigned fl;
    *closed = false;
    if (it && q < end && *q != ',' && *q != close) {
        kt_scan_res r = kt_skip_value(q, end, eof, &q, &fl);
        if (r != KT_SCAN_OK) return r == KT_SCAN_MORE ? r : KT_SCAN_ERR;
        q = kt_skip_ws(q, end);
    }
    if (it) {
        if (q >= end) return eof ? KT_SCAN_ERR : KT_SCAN_MORE;
        if (*q == ',') q = kt_skip_ws(q + 1, end);
        else if (*q != close) return KT_SCAN_ERR;
    }
    if (q >= end) return eof ? KT_SCAN_ERR : KT_SCAN_MORE;
    *closed = *q == close;
    *at = *closed ? q + 1 : q;
    return KT_SCAN_OK;
}

kt_scan_res kt_walk_item(const char *q, const char *end, bool eof, kt_jv *item, const char **it)
{
    const char *next = end;
    unsigned fl;
    if (!is_container(q)) {
        kt_scan_res r = kt_skip_value(q, end, eof, &next, &fl);
        if (r != KT_SCAN_OK) return r == KT_SCAN_MORE ? r : KT_SCAN_ERR;
    }
    *item = span(q, next);
    *it = is_container(q) ? q : next;
    return KT_SCAN_OK;
}

kt_scan_res kt_walk_member(const char *q, const char *end, bool eof, kt_pair *pr, kt_jv *val, const char **it)
{
    kt_obj o = { .q = q, .end = end, .eof = eof };
    bool closed;
    kt_scan_res r = kt_member_key(&o, pr, &closed);
    if (r == KT_SCAN_OK && !closed && !is_container(pr->v)) r = kt_member_skip(&o, pr);
    if (r != KT_SCAN_OK || closed) return r == KT_SCAN_MORE ? r : KT_SCAN_ERR;
    *val = span(pr->v, is_container(pr->v) ? end : pr->vend);
    *it = is_container(pr->v) ? pr->v : pr->vend;
    return KT_SCAN_OK;
}

/* One step of a held walk: the next item or member (member: pr). */
static bool walk_held(kt_jv v, char close, const char **it, kt_pair *pr, kt_jv *val)
{
    const char *q;
    bool closed;
    if (!kt_jv_is(v, close == ']' ? '[' : '{')) return false;
    if (kt_walk_step(*it, v.s + 1, close, v.e, true, &q, &closed) != KT_SCAN_OK) return walk_broken(v, it);
    if (closed) {
        *it = q;
        return false;
    }
    kt_scan_res r = pr ? kt_walk_member(q, v.e, true, pr, val, it) : kt_walk_item(q, v.e, true, val, it);
    return r == KT_SCAN_OK || walk_broken(v, it);
}

bool kt_jv_walk(kt_jv arr, const char **it, kt_jv *item) { return walk_held(arr, ']', it, NULL, item); }

bool kt_jv_walk_member(kt_jv obj, const char **it, kt_pair *pr, kt_jv *val) { return walk_held(obj, '}', it, pr, val); }

bool kt_jv_int(kt_jv v, int64_t *out)
{
    if (!v.s) return false;
    const char *s = v.s, *e = v.e;
    if (*s == '"') s++, e--;
    kt_num n;
    if (s >= e || kt_parse_number(s, e, &n) != e || n.kind != KT_NUM_INT) return false;
    *out = n.i;
    return true;
}

int64_t kt_jv_int_or(kt_jv v, int64_t dflt)
{
    int64_t x;
    return kt_jv_int(v, &x) ? x : dflt;
}

bool kt_jv_str(kt_jv v, char **buf, size_t *cap, const char **text, size_t *n)
{
    if (!kt_jv_is(v, '"') || v.e - v.s < 2) return false;
    const char *s = v.s + 1;
    size_t len = (size_t)(v.e - v.s - 2);
    size_t k = 0;
    while (k < len && s[k] != '\\' && (unsigned char)s[k] < 0x80) k++;
    if (k == len) { /* plain ASCII: used in place */
        *text = s;
        *n = len;
        return true;
    }
    if (4 * len + 16 > *cap) {
        char *b = realloc(*buf, 4 * len + 16);
        if (!b) return false;
        *buf = b;
        *cap = 4 * len + 16;
    }
    *n = kt_decode_json_string(s, len, *buf);
    *text = *buf;
    return true;
}
