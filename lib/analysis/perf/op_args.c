/*
 * op_args.c — a cpu_op's recorded shapes from its raw args text, the
 * Python reprs TraceLens prints them with, and dtype sizes (op_args.h).
 */
#include "analysis/perf/op_args.h"
#include "model/model.h"
#include "model/json_number.h"
#include "table/text_buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A flat list of non-negative integers into v; -1 when it is anything else. */
static int int_list(const kt_jtree *t, const kt_jnode *l, int64_t *v)
{
    if (!l || l->type != KT_J_ARR || l->nkids > KT_OP_MAX_DIMS) return -1;
    int n = 0;
    for (uint32_t k = l->first; k != UINT32_MAX; k = t->n[k].next) {
        const kt_jnode *x = &t->n[k];
        if (x->type != KT_J_NUM || !x->is_int || x->i < 0) return -1;
        v[n++] = x->i;
    }
    return n;
}

static const char *str_at(const kt_jtree *t, const kt_jnode *l, size_t i)
{
    const kt_jnode *x = kt_jchild(t, l, i);
    return x && x->type == KT_J_STR ? x->s : "";
}

/* Only the inputs the last parse described are zeroed: a parse writes no
 * others, and clearing all 32 (5 KB) for every op was a tenth of perf.   */
void kt_op_args_clear(kt_op_args *a)
{
    memset(a->in, 0, a->n * sizeof a->in[0]);
    a->has_dims = false;
    a->n = 0;
    a->dims = a->types = a->strides = a->concrete = NULL;
    a->tree.count = 0;
}

bool kt_op_args_parse(kt_op_args *a, const char *text, size_t len)
{
    const char *err;
    kt_op_args_clear(a);
    if (!kt_jtree_parse(&a->tree, text, len, &err)) return false;
    const kt_jtree *t = &a->tree;
    const kt_jnode *root = &t->n[0];
    a->dims = kt_jobj_get(t, root, "Input Dims");
    a->types = kt_jobj_get(t, root, "Input type");
    a->strides = kt_jobj_get(t, root, "Input Strides");
    a->concrete = kt_jobj_get(t, root, "Concrete Inputs");
    a->has_dims = a->dims && a->dims->type == KT_J_ARR;
    size_t n = a->has_dims ? a->dims->nkids : 0;
    a->n = n < KT_OP_MAX_INPUTS ? n : KT_OP_MAX_INPUTS;
    for (size_t i = 0; i < a->n; i++) {
        kt_op_input *in = &a->in[i];
        in->ndims = int_list(t, kt_jchild(t, a->dims, i), in->dims);
        in->nstrides = int_list(t, kt_jchild(t, a->strides, i), in->strides);
        in->type = str_at(t, a->types, i);
        in->concrete = str_at(t, a->concrete, i);
    }
    return true;
}

void kt_op_args_free(kt_op_args *a)
{
    kt_jtree_free(&a->tree);
    memset(a, 0, sizeof *a);
}

bool kt_json_compact(const char *text, const kt_jnode *v, char *out, size_t cap)
{
    const char *s = text + v->off, *end = s + v->len;
    size_t k = 0;
    bool in_str = false;
    for (; s < end; s++) {
        char c = *s;
        if (!in_str && (c == ' ' || c == '\n' || c == '\r' || c == '\t')) continue;
        if (k + 1 >= cap) return false;
        out[k++] = c;
        if (in_str && c == '\\' && s + 1 < end) {
            if (k + 1 >= cap) return false;
            out[k++] = *++s;
        } else if (c == '"') {
            in_str = !in_str;
        }
    }
    out[k] = '\0';
    return true;
}

/* ---- the bytes that decide a parse ----------------------------------------- */

/* Bytes value_end stops at: a table, as the scan is most of a call's
 * cost on traces with shapes.                                           */
enum { C_QUOTE = 1, C_OPEN = 2, C_CLOSE = 4, C_SEP = 8 };
static const unsigned char char_class[256] = {
    ['"'] = C_QUOTE, ['['] = C_OPEN,         ['{'] = C_OPEN, [']'] = C_CLOSE | C_SEP, ['}'] = C_CLOSE | C_SEP,
    [','] = C_SEP,   [' '] = C_SEP,          ['\n'] = C_SEP, ['\r'] = C_SEP,         ['\t'] = C_SEP,
};

static const char *skip_until(const char *q, const char *end, unsigned char stop)
{
    while (q < end && !(char_class[(unsigned char)*q] & stop)) q++;
    return q;
}

/* The end of the value at p, or NULL when unsure: a string to its quote
 * (the caller saw no backslash), a list or object to its bracket, other
 * values to the next separator.  What is inside is not checked: equal
 * bytes parse alike.                                                     */
static const char *value_end(const char *p, const char *end)
{
    if (*p == '"') {
        const char *q = skip_until(p + 1, end, C_QUOTE);
        return q < end ? q + 1 : NULL;
    }
    if (char_class[(unsigned char)*p] & C_OPEN) {
        int depth = 0;
        for (const char *q = p; (q = skip_until(q, end, C_QUOTE | C_OPEN | C_CLOSE)) < end; q++) {
            if (*q == '"' && (q = skip_until(q + 1, end, C_QUOTE)) == end) return NULL;
            if (char_class[(unsigned char)*q] & C_OPEN) depth++;
            else if (char_class[(unsigned char)*q] & C_CLOSE && --depth == 0) return q + 1;
        }
        return NULL;
    }
    const char *q = skip_until(p, end, C_SEP);
    return q > p ? q : NULL;
}

/* A plain integer: kt_jtree_parse reads it, whatever its neighbours. */
static bool plain_int(const char *p, const char *end)
{
    p += p < end && *p == '-';
    if (p == end || end - p > 40) return false;
    for (; p < end; p++)
        if (*p < '0' || *p > '9') return false;
    return true;
}

/* The closing quote of a key starting at k, or NULL when the key holds a
 * control character (left to kt_jtree_parse) or does not end.            */
static const char *key_end(const char *k, const char *end)
{
    while (k < end && *k != '"' && (unsigned char)*k >= 0x20) k++;
    return k < end && *k == '"' ? k : NULL;
}

static char *put_part(char *o, const char *s, size_t n)
{
    uint32_t n32 = (uint32_t)n;
    memcpy(o, &n32, sizeof n32);
    memcpy(o + sizeof n32, s, n);
    return o + sizeof n32 + n;
}

bool kt_op_args_shape_bytes(const char *text, size_t len, char *out, size_t *outlen)
{
    const char *end = text + len, *p = kt_json_skip_ws(text, end);
    char *o = out;
    if (len > UINT32_MAX || memchr(text, '\\', len) || p == end || *p++ != '{') return false;
    p = kt_json_skip_ws(p, end);
    bool more = p < end && *p != '}';
    while (more) {
        if (p == end || *p != '"') return false;
        const char *k = p + 1, *ke = key_end(k, end);
        if (!ke) return false;
        p = kt_json_skip_ws(ke + 1, end);
        if (p == end || *p++ != ':') return false;
        const char *v = kt_json_skip_ws(p, end), *ve = v < end ? value_end(v, end) : NULL;
        if (!ve) return false;
        if (!plain_int(v, ve) || kt_shape_key(k, (size_t)(ke - k)))
            o = put_part(put_part(o, k, (size_t)(ke - k)), v, (size_t)(ve - v));
        p = kt_json_skip_ws(ve, end);
        more = p < end && *p == ',';
        if (more) p = kt_json_skip_ws(p + 1, end);
    }
    if (p == end || *p != '}' || kt_json_skip_ws(p + 1, end) != end) return false;
    *outlen = (size_t)(o - out);
    return true;
}

/* ---- Python reprs ---------------------------------------------------------- */


void kt_py_float(double d, char *out, size_t outlen)
{
    char tmp[40];
    for (int prec = 1; prec <= 17; prec++) {
        int n = kt_c_snprintf(tmp, sizeof tmp, "%.*g", prec, d);
        kt_num back;
        if (!kt_parse_number(tmp, tmp + n, &back) || back.f == d) break; /* inf, nan: as printf writes them */
    }
    /* Python writes 1e-05 as C does, but integral values with ".0" */
    snprintf(out, outlen, "%s%s", tmp, strpbrk(tmp, ".eEni") ? "" : ".0");
}

static void put_float(kt_tbuf *b, double d)
{
    char tmp[48];
    kt_py_float(d, tmp, sizeof tmp);
    kt_tbuf_puts(b, tmp);
}

static void put_py_str(kt_tbuf *b, const char *s, size_t n)
{
    /* Python picks double quotes only for strings with ' and no " */
    bool dq = memchr(s, '\'', n) && !memchr(s, '"', n);
    char q = dq ? '"' : '\'';
    kt_tbuf_put(b, &q, 1);
    size_t run = 0; /* s[run..i) waits to be put in one go */
    for (size_t i = 0; i < n; i++) {
        if (s[i] != '\\' && s[i] != q && s[i] != '\n') continue;
        kt_tbuf_put(b, s + run, i - run);
        kt_tbuf_put(b, s[i] == '\n' ? "\\n" : "\\", s[i] == '\n' ? 2 : 1);
        run = s[i] == '\n' ? i + 1 : i; /* an escaped character is put with the next run */
    }
    kt_tbuf_put(b, s + run, n - run);
    kt_tbuf_put(b, &q, 1);
}

static void repr(kt_tbuf *b, const kt_jtree *t, const kt_jnode *v, bool tuples)
{
    char tmp[32];
    switch (v->type) {
    case KT_J_NULL: kt_tbuf_puts(b, "None"); return;
    case KT_J_BOOL: kt_tbuf_puts(b, v->b ? "True" : "False"); return;
    case KT_J_NUM:
        if (v->is_int) {
            kt_tbuf_put(b, tmp, kt_fmt_i64(v->i, tmp)); /* snprintf was a fifth of the reprs */
        } else {
            put_float(b, v->d);
        }
        return;
    case KT_J_STR: put_py_str(b, v->s, v->slen); return;
    case KT_J_OBJ: /* not in shapes; a dict repr is close enough */
    case KT_J_ARR: {
        bool obj = v->type == KT_J_OBJ;
        kt_tbuf_puts(b, obj ? "{" : tuples ? "(" : "[");
        for (uint32_t k = v->first; k != UINT32_MAX; k = t->n[k].next) {
            if (k != v->first) kt_tbuf_puts(b, ", ");
            if (obj) {
                put_py_str(b, t->n[k].key, strlen(t->n[k].key));
                kt_tbuf_puts(b, ": ");
            }
            repr(b, t, &t->n[k], tuples);
        }
        if (tuples && !obj && v->nkids == 1) kt_tbuf_puts(b, ",");
        kt_tbuf_puts(b, obj ? "}" : tuples ? ")" : "]");
        return;
    }
    }
}

char *kt_py_str_repr(const char *s, size_t n)
{
    kt_tbuf b = { 0 };
    put_py_str(&b, s, n);
    if (b.failed) {
        free(b.s);
        return NULL;
    }
    return b.s;
}

char *kt_py_repr(const kt_jtree *t, const kt_jnode *v, bool tuples)
{
    kt_tbuf b = { 0 };
    if (v) repr(&b, t, v, tuples);
    else kt_tbuf_puts(&b, "None");
    if (b.failed) {
        free(b.s);
        return NULL;
    }
    return b.s;
}

size_t kt_fmt_i64(int64_t v, char *out)
{
    char tmp[24];
    size_t n = 0;
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    do {
        tmp[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    size_t k = 0;
    if (v < 0) out[k++] = '-';
    while (n) out[k++] = tmp[--n];
    out[k] = '\0';
    return k;
}

/* Called once per modelled op for each stride and shape: no printf. */
void kt_py_int_tuple(const int64_t *v, int n, char *out, size_t outlen)
{
    size_t k = 0;
    if (outlen < 4) {
        if (outlen) out[0] = '\0';
        return;
    }
    out[k++] = '(';
    for (int i = 0; i < n; i++) {
        if (k + 2 + 21 + 3 > outlen) break; /* ", " + digits + ",)\0" */
        if (i) {
            out[k++] = ',';
            out[k++] = ' ';
        }
        k += kt_fmt_i64(v[i], out + k);
    }
    if (n == 1) out[k++] = ',';
    out[k++] = ')';
    out[k] = '\0';
}
