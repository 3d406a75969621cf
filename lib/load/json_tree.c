/*
 * json_tree.c — small JSON documents read whole (see json_tree.h): a
 * recursive-descent parser into one node array, its numbers read by the
 * scanner's kt_parse_number (model/json_number.c).  Strings are unescaped
 * into one buffer sized up front (an unescaped string is never longer than
 * its JSON text), so pointers to them stay valid while nodes are added.
 */
#include "json_tree.h"
#include "load_internal.h"
#include "model/json_number.h"

#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 64

typedef struct parser {
    kt_jtree *t;
    const char *base, *p, *end;
    const char *err;
} parser;

const char *kt_json_skip_ws(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) p++;
    return p;
}

static void skip_ws(parser *ps) { ps->p = kt_json_skip_ws(ps->p, ps->end); }

static uint32_t new_node(parser *ps, kt_jtype type)
{
    kt_jtree *t = ps->t;
    if (t->count == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 64;
        kt_jnode *n = cap < UINT32_MAX ? realloc(t->n, cap * sizeof *n) : NULL;
        if (!n) {
            ps->err = "out of memory";
            return UINT32_MAX;
        }
        t->n = n;
        t->cap = cap;
    }
    t->n[t->count] = (kt_jnode){ .type = type, .first = UINT32_MAX, .next = UINT32_MAX };
    return (uint32_t)t->count++;
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Append the UTF-8 form of code point cp. */
static void put_utf8(kt_jtree *t, unsigned cp)
{
    char *o = t->strs + t->slen;
    if (cp < 0x80) { o[0] = (char)cp; t->slen += 1; }
    else if (cp < 0x800) { o[0] = (char)(0xc0 | cp >> 6); o[1] = (char)(0x80 | (cp & 0x3f)); t->slen += 2; }
    else {
        o[0] = (char)(0xe0 | cp >> 12);
        o[1] = (char)(0x80 | (cp >> 6 & 0x3f));
        o[2] = (char)(0x80 | (cp & 0x3f));
        t->slen += 3;
    }
}

/* A string at ps->p (on the opening quote); *out points into t->strs. */
static bool parse_string(parser *ps, const char **out, size_t *len)
{
    kt_jtree *t = ps->t;
    size_t start = t->slen;
    ps->p++;
    while (ps->p < ps->end && *ps->p != '"') {
        char c = *ps->p++;
        if ((unsigned char)c < 0x20) break;
        if (c != '\\') {
            t->strs[t->slen++] = c;
            continue;
        }
        if (ps->p >= ps->end) break;
        char e = *ps->p++;
        static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
        const char *k = e ? strchr(from, e) : NULL;
        if (k) {
            t->strs[t->slen++] = to[k - from];
        } else if (e == 'u' && ps->end - ps->p >= 4) {
            unsigned cp = 0;
            for (int i = 0; i < 4; i++) {
                int h = hex_digit(ps->p[i]);
                if (h < 0) goto bad;
                cp = cp << 4 | (unsigned)h;
            }
            ps->p += 4;
            put_utf8(t, cp); /* 6 escape bytes always cover 3 UTF-8 bytes */
        } else {
            goto bad;
        }
    }
    if (ps->p >= ps->end) goto bad;
    ps->p++;
    t->strs[t->slen++] = '\0';
    *out = t->strs + start;
    *len = t->slen - start - 1;
    return true;
bad:
    ps->err = "bad string";
    return false;
}

/* A number read by the scanner's parser (exact integers, correctly rounded
 * doubles, whatever the process locale); an integer beyond int64 is a
 * double, its i saturated.                                               */
static bool parse_number(parser *ps, kt_jnode *n)
{
    kt_num v;
    const char *after = kt_parse_number(ps->p, ps->end, &v);
    if (!after) {
        ps->err = "bad number";
        return false;
    }
    ps->p = after;
    n->is_int = v.kind == KT_NUM_INT;
    n->i = v.kind == KT_NUM_INT ? v.i : v.kind == KT_NUM_BIGINT ? (v.f < 0 ? INT64_MIN : INT64_MAX) : 0;
    n->d = n->is_int ? (double)v.i : v.f;
    return true;
}

static bool literal(parser *ps, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n)) {
        ps->err = "bad literal";
        return false;
    }
    ps->p += n;
    return true;
}

static uint32_t parse_value(parser *ps, int depth);

/* Members or elements up to close; children linked in order. */
static bool parse_children(parser *ps, uint32_t self, char close, bool object, int depth)
{
    uint32_t last = UINT32_MAX;
    ps->p++;
    skip_ws(ps);
    if (ps->p < ps->end && *ps->p == close) {
        ps->p++;
        return true;
    }
    for (;;) {
        const char *key = NULL;
        size_t klen;
        skip_ws(ps);
        if (object) {
            if (ps->p >= ps->end || *ps->p != '"' || !parse_string(ps, &key, &klen)) {
                ps->err = ps->err ? ps->err : "expected a key";
                return false;
            }
            skip_ws(ps);
            if (ps->p >= ps->end || *ps->p++ != ':') {
                ps->err = "expected ':'";
                return false;
            }
        }
        uint32_t kid = parse_value(ps, depth + 1);
        if (kid == UINT32_MAX) return false;
        kt_jnode *n = ps->t->n;
        n[kid].key = key;
        if (last == UINT32_MAX) n[self].first = kid;
        else n[last].next = kid;
        last = kid;
        n[self].nkids++;
        skip_ws(ps);
        if (ps->p < ps->end && *ps->p == ',') {
            ps->p++;
            continue;
        }
        if (ps->p < ps->end && *ps->p == close) {
            ps->p++;
            return true;
        }
        ps->err = "expected ',' or a closing bracket";
        return false;
    }
}

static uint32_t parse_value(parser *ps, int depth)
{
    skip_ws(ps);
    if (depth > MAX_DEPTH) {
        ps->err = "nested too deeply";
        return UINT32_MAX;
    }
    if (ps->p >= ps->end) {
        ps->err = "unexpected end";
        return UINT32_MAX;
    }
    char c = *ps->p;
    kt_jtype type = c == '{' ? KT_J_OBJ : c == '[' ? KT_J_ARR : c == '"' ? KT_J_STR
                  : c == 't' || c == 'f' ? KT_J_BOOL : c == 'n' ? KT_J_NULL : KT_J_NUM;
    uint32_t id = new_node(ps, type);
    if (id == UINT32_MAX) return id;
    const char *start = ps->p;
    bool ok;
    switch (type) {
    case KT_J_OBJ: ok = parse_children(ps, id, '}', true, depth); break;
    case KT_J_ARR: ok = parse_children(ps, id, ']', false, depth); break;
    case KT_J_STR: {
        const char *s;
        size_t len;
        ok = parse_string(ps, &s, &len);
        if (ok) {
            ps->t->n[id].s = s;
            ps->t->n[id].slen = len;
        }
        break;
    }
    case KT_J_BOOL:
        ok = literal(ps, c == 't' ? "true" : "false");
        ps->t->n[id].b = c == 't';
        break;
    case KT_J_NULL: ok = literal(ps, "null"); break;
    default: ok = parse_number(ps, &ps->t->n[id]); break;
    }
    if (!ok) return UINT32_MAX;
    ps->t->n[id].off = (size_t)(start - ps->base);
    ps->t->n[id].len = (size_t)(ps->p - start);
    return id;
}

bool kt_jtree_parse(kt_jtree *t, const char *text, size_t len, const char **err)
{
    *err = NULL;
    t->count = 0;
    t->slen = 0;
    if (t->scap < len + 1) {
        free(t->strs);
        t->scap = len + 1;
        if (!(t->strs = malloc(t->scap))) {
            kt_jtree_free(t);
            *err = "out of memory";
            return false;
        }
    }
    parser ps = { .t = t, .base = text, .p = text, .end = text + len };
    uint32_t root = parse_value(&ps, 0);
    skip_ws(&ps);
    if (root == UINT32_MAX || ps.p != ps.end) {
        *err = ps.err ? ps.err : "trailing text";
        kt_jtree_free(t);
        return false;
    }
    return true;
}

void kt_jtree_free(kt_jtree *t)
{
    free(t->n);
    free(t->strs);
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
