/*
 * arg_texts.c — the values of named args of many events at once, as the
 * JSON text written in the file, for bindings that build HTA's frame.
 *
 * HTA's frame has a column per configured arg ("bytes", "Input Dims",
 * "Collective name", ...), most of which the model does not keep.  One
 * call re-reads the rows' raw args objects in file order (raw_args.c) and
 * copies each wanted member's text, so a binding turns a whole column into
 * values with array operations instead of a call per event.
 */
#include "load_internal.h"
#include "json_tree.h"

#include <stdlib.h>
#include <string.h>

typedef struct textbuf {
    char *p;
    size_t n, cap;
} textbuf;

static bool put(textbuf *b, const char *s, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->n + n + 1) cap *= 2;
        char *q = realloc(b->p, cap);
        if (!q) return false;
        b->p = q;
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->p[b->n + n] = '\0';
    b->n += n + 1;
    return true;
}

/* The fields of one row: each key's value text, "" when absent. */
static kt_status row_fields(kt_args_reader *rd, kt_jtree *tree, const kt_rank *r, uint32_t ev,
                            const char *const *keys, size_t nkeys, textbuf *out)
{
    const char *text = NULL, *err = NULL;
    size_t len = 0;
    if (ev < r->ev.n && r->ev.args_at[ev] != 0) {
        kt_status st = kt_args_reader_get(rd, ev, &text, &len);
        if (st != KT_OK) return st;
        if (!kt_jtree_parse(tree, text, len, &err)) return KT_EINPUT;
    }
    for (size_t k = 0; k < nkeys; k++) {
        const kt_jnode *v = text ? kt_jobj_get(tree, &tree->n[0], keys[k]) : NULL;
        if (!put(out, v ? text + v->off : "", v ? v->len : 0)) return KT_ENOMEM;
    }
    return KT_OK;
}

kt_status kt_trace_arg_texts(const kt_trace *t, size_t pos, const char *const *keys, size_t nkeys,
                             const uint32_t *rows, size_t nrows, char **out, size_t *out_len, kt_diags **diags)
{
    kt_diags_begin(diags);
    *out = NULL;
    *out_len = 0;
    if (!t || pos >= t->nranks || (nkeys && !keys) || (nrows && !rows)) {
        kt_diags_fail(diags, NULL, "kt_trace_arg_texts: no such rank, or keys/rows missing");
        return KT_EUSAGE;
    }
    const kt_rank *r = t->ranks[pos];
    kt_args_reader *rd = NULL;
    kt_status st = kt_args_reader_open(r, &rd);
    kt_jtree tree = { 0 };
    textbuf b = { 0 };
    for (size_t i = 0; st == KT_OK && i < nrows; i++)
        st = row_fields(rd, &tree, r, rows[i], keys, nkeys, &b);
    kt_jtree_free(&tree);
    kt_args_reader_close(rd);
    if (st != KT_OK) {
        free(b.p);
        kt_diags_fail(diags, r->file, "%s", st == KT_ENOMEM ? "out of memory reading args"
                      : "cannot re-read the events' args (the file is gone or has changed since it was loaded)");
        return st;
    }
    *out = b.p;
    *out_len = b.n;
    return KT_OK;
}

void kt_arg_texts_free(char *text) { free(text); }
