/*
 * json_tree.c — small JSON documents read whole (see json_tree.h), read
 * by the loader's scanner: values are delimited by kt_skip_value, object
 * members by kt_obj_next, strings decoded by kt_decode_json_string and
 * numbers read by kt_parse_number (model/json_number.c), so a document
 * reads here as it would inside a trace.  On top of the scanner's lenient
 * rules, a value must be whole: a literal or number exactly, no trailing
 * comma, nothing after the top value.  The text is copied into a padded
 * buffer first (the scanner reads ahead a vector width), and strings are
 * decoded into one buffer sized up front, so pointers to them stay valid
 * while nodes are added.
 */
#include "json_tree.h"
#include "load_internal.h"
#include "model/json_number.h"

#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 64

typedef struct builder {
    kt_jtree *t;
    const char *base;
    const char *err;
} builder;

const char *kt_json_skip_ws(const char *p, const char *end)
{
    while (p < end && (unsigned char)*p <= ' ') p++;
    return p;
}

static bool fail(builder *b, const char *why)
{
    if (!b->err) b->err = why;
    return false;
}

static uint32_t new_node(builder *b, kt_jtype type)
{
    kt_jtree *t = b->t;
    if (t->count == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 64;
        kt_jnode *n = cap < UINT32_MAX ? realloc(t->n, cap * sizeof *n) : NULL;
        if (!n) {
            fail(b, "out of memory");
            return UINT32_MAX;
        }
        t->n = n;
        t->cap = cap;
    }
    t->n[t->count] = (kt_jnode){ .type = type, .first = UINT32_MAX, .next = UINT32_MAX };
    return (uint32_t)t->count++;
}

/* The raw string body s[0..n) decoded into the string buffer (sized by
 * kt_jtree_parse for every string of the text), NUL-terminated.          */
static const char *put_str(builder *b, const char *s, size_t n, size_t *len)
{
    char *out = b->t->strs + b->t->slen;
    *len = kt_decode_json_string(s, n, out);
    out[*len] = '\0';
    b->t->slen += *len + 1;
    return out;
}

/* A literal or a number spanning [s, e) exactly. */
static bool scalar(builder *b, kt_jnode *n, const char *s, const char *e)
{
    static const char *const words[] = { "null", "false", "true" };
    size_t len = (size_t)(e - s);
    for (int w = 0; w < 3; w++)
        if (len == strlen(words[w]) && !memcmp(s, words[w], len)) {
            n->type = w ? KT_J_BOOL : KT_J_NULL;
            n->b = w == 2;
            return true;
        }
    kt_num v;
    if (kt_parse_number(s, e, &v) != e) return fail(b, *s == '-' || kt_is_digit(*s) ? "bad number" : "bad literal");
    n->type = KT_J_NUM;
    n->is_int = v.kind == KT_NUM_INT;
    n->i = v.kind == KT_NUM_INT ? v.i : v.kind == KT_NUM_BIGINT ? (v.f < 0 ? INT64_MIN : INT64_MAX) : 0;
    n->d = n->is_int ? (double)v.i : v.f;
    return true;
}

static uint32_t value(builder *b, const char *s, const char *e, int depth);

/* Link kid (named key, or NULL) as the last child of self. */
static void adopt(kt_jtree *t, uint32_t self, uint32_t *last, uint32_t kid, const char *key)
{
    t->n[kid].key = key;
    if (*last == UINT32_MAX) t->n[self].first = kid;
    else t->n[*last].next = kid;
    *last = kid;
    t->n[self].nkids++;
}

/* The elements of the array [s, e) ('[' ... ']'). */
static bool array(builder *b, uint32_t self, const char *s, const char *e, int depth)
{
    uint32_t last = UINT32_MAX;
    const char *q = kt_skip_ws(s + 1, e), *next;
    if (*q == ']') return true;
    for (;;) {
        unsigned fl;
        if (kt_skip_value(q, e, true, &next, &fl) != KT_SCAN_OK) return fail(b, "expected a value");
        uint32_t kid = value(b, q, next, depth + 1);
        if (kid == UINT32_MAX) return false;
        adopt(b->t, self, &last, kid, NULL);
        q = kt_skip_ws(next, e);
        if (q < e && *q == ']') return true;
        if (q >= e || *q != ',') return fail(b, "expected ',' or ']'");
        q = kt_skip_ws(q + 1, e);
    }
}

/* The members of the object [s, e) ('{' ... '}'). */
static bool object(builder *b, uint32_t self, const char *s, const char *e, int depth)
{
    uint32_t last = UINT32_MAX;
    kt_obj o = { .q = s + 1, .end = e, .eof = true };
    for (;;) {
        kt_pair pr;
        bool done;
        if (kt_obj_next(&o, &pr, &done) != KT_SCAN_OK) return fail(b, "expected a member");
        if (done) return !o.trailing_comma || fail(b, "trailing comma");
        size_t klen;
        const char *key = put_str(b, pr.key, pr.klen, &klen);
        uint32_t kid = value(b, pr.v, pr.vend, depth + 1);
        if (kid == UINT32_MAX) return false;
        adopt(b->t, self, &last, kid, key);
    }
}

/* The node of the value [s, e) as the scanner delimited it. */
static uint32_t value(builder *b, const char *s, const char *e, int depth)
{
    if (depth > MAX_DEPTH) {
        fail(b, "nested too deeply");
        return UINT32_MAX;
    }
    kt_jtype type = *s == '{' ? KT_J_OBJ : *s == '[' ? KT_J_ARR : *s == '"' ? KT_J_STR : KT_J_NUM;
    uint32_t id = new_node(b, type);
    if (id == UINT32_MAX) return id;
    bool ok = true;
    if (type == KT_J_OBJ) {
        ok = object(b, id, s, e, depth);
    } else if (type == KT_J_ARR) {
        ok = array(b, id, s, e, depth);
    } else if (type == KT_J_STR) {
        size_t len;
        const char *str = put_str(b, s + 1, (size_t)(e - s - 2), &len);
        b->t->n[id].s = str;
        b->t->n[id].slen = len;
    } else {
        ok = scalar(b, &b->t->n[id], s, e);
    }
    if (!ok) return UINT32_MAX;
    b->t->n[id].off = (size_t)(s - b->base);
    b->t->n[id].len = (size_t)(e - s);
    return id;
}

/* buf at least need bytes (contents not kept); false when out of memory. */
static bool room(char **buf, size_t *cap, size_t need)
{
    if (*cap >= need) return true;
    free(*buf);
    *buf = malloc(need);
    *cap = *buf ? need : 0;
    return *buf != NULL;
}

bool kt_jtree_parse(kt_jtree *t, const char *text, size_t len, const char **err)
{
    t->count = 0;
    t->slen = 0;
    /* a decode needs 4 n + 16 bytes and leaves at most 3 n + 1 of them */
    if (!room(&t->src, &t->srccap, len + KT_WIN_PAD) || !room(&t->strs, &t->scap, 8 * len + 64)) {
        kt_jtree_free(t);
        *err = "out of memory";
        return false;
    }
    memcpy(t->src, text, len);
    memset(t->src + len, 0, KT_WIN_PAD);
    builder b = { .t = t, .base = t->src };
    const char *end = t->src + len, *s = kt_skip_ws(t->src, end), *next;
    unsigned fl;
    uint32_t root = UINT32_MAX;
    if (s >= end) fail(&b, "unexpected end");
    else if (kt_skip_value(s, end, true, &next, &fl) != KT_SCAN_OK) fail(&b, "not a whole JSON value");
    else if ((root = value(&b, s, next, 0)) != UINT32_MAX && kt_skip_ws(next, end) != end) fail(&b, "trailing text");
    *err = b.err;
    if (!b.err) return true;
    kt_jtree_free(t);
    return false;
}

void kt_jtree_free(kt_jtree *t)
{
    free(t->n);
    free(t->strs);
    free(t->src);
    *t = (kt_jtree){ 0 };
}

const kt_jnode *kt_jobj_get(const kt_jtree *t, const kt_jnode *obj, const char *key)
{
    if (!obj || obj->type != KT_J_OBJ) return NULL;
    for (uint32_t k = obj->first; k != UINT32_MAX; k = t->n[k].next)
        if (t->n[k].key && !strcmp(t->n[k].key, key)) return &t->n[k];
    return NULL;
}

const kt_jnode *kt_jchild(const kt_jtree *t, const kt_jnode *arr, size_t i)
{
    if (!arr || (arr->type != KT_J_ARR && arr->type != KT_J_OBJ)) return NULL;
    uint32_t k = arr->first;
    while (k != UINT32_MAX && i--) k = t->n[k].next;
    return k == UINT32_MAX ? NULL : &t->n[k];
}
