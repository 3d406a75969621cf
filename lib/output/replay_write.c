/*
 * replay_write.c — the replay IR's files (replay_write.h).  Each op is one
 * JSON object (its replay_ops row, its replay_args rows as "args", its
 * replay_kernels rows as "kernels"): replay_ir.json lists them, and every
 * script carries those it replays as Python string literals, so a script
 * runs alone, copied anywhere.
 */
#include "output/replay_write.h"
#include "output/sqlite_target.h"
#include "table/number_text.h"
#include "table/text_buf.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* s as a JSON string ("..."), or, python: as a single-quoted Python
 * string literal of those bytes. */
static void put_quoted(kt_tbuf *b, const char *s, bool python)
{
    char q = python ? '\'' : '"', esc[8];
    kt_tbuf_put(b, &q, 1);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == (unsigned char)q || *p == '\\') {
            esc[0] = '\\';
            esc[1] = (char)*p;
            kt_tbuf_put(b, esc, 2);
        } else if (*p < 0x20) {
            snprintf(esc, sizeof esc, python ? "\\x%02x" : "\\u%04x", *p);
            kt_tbuf_puts(b, esc);
        } else {
            kt_tbuf_put(b, (const char *)p, 1);
        }
    }
    kt_tbuf_put(b, &q, 1);
}

/* Columns holding JSON text (replay_args' dims and strides), written as is. */
static bool is_json_col(const char *name)
{
    return !strcmp(name, "dims") || !strcmp(name, "strides");
}

/* Row r of t as a JSON object, every column but skip (a name, or NULL). */
static void put_row(kt_tbuf *b, const kt_table *t, size_t r, const char *skip)
{
    char num[KT_NUMBER_TEXT_MAX];
    bool first = true;
    kt_tbuf_puts(b, "{");
    for (size_t c = 0; c < kt_table_ncols(t); c++) {
        const char *name = kt_table_col_name(t, c);
        if (skip && !strcmp(name, skip)) continue;
        kt_tbuf_puts(b, first ? "" : ", ");
        first = false;
        put_quoted(b, name, false);
        kt_tbuf_puts(b, ": ");
        int type = kt_table_col_type(t, c);
        double d = type == KT_COL_FLOAT ? kt_table_float(t, r, c) : 0;
        if (kt_table_is_null(t, r, c) || (type == KT_COL_FLOAT && !isfinite(d))) kt_tbuf_puts(b, "null");
        else if (type == KT_COL_INT) kt_tbuf_put(b, num, kt_int_text(num, kt_table_int(t, r, c)));
        else if (type == KT_COL_FLOAT) kt_tbuf_put(b, num, kt_shortest_text(num, d));
        else if (is_json_col(name)) kt_tbuf_puts(b, kt_table_str(t, r, c)[0] ? kt_table_str(t, r, c) : "null");
        else put_quoted(b, kt_table_str(t, r, c), false);
    }
    kt_tbuf_puts(b, "}");
}

/* The rows of t with id, from *cursor on (rows are in id order), as a
 * JSON list named key. */
static void put_children(kt_tbuf *b, const kt_table *t, int64_t id, size_t *cursor, const char *key)
{
    bool first = true;
    kt_tbuf_puts(b, ", ");
    put_quoted(b, key, false);
    kt_tbuf_puts(b, ": [");
    for (; *cursor < kt_table_nrows(t) && kt_table_int(t, *cursor, 0) == id; (*cursor)++) {
        kt_tbuf_puts(b, first ? "" : ", ");
        first = false;
        put_row(b, t, *cursor, "id");
    }
    kt_tbuf_puts(b, "]");
}

typedef struct ir_json {
    char **op;      /* one JSON object per op (malloc'd) */
    size_t n;
} ir_json;

static void ir_json_free(ir_json *j)
{
    for (size_t i = 0; i < j->n; i++) free(j->op[i]);
    free(j->op);
}

static kt_status ops_json(const kt_tables *ir, ir_json *j, char *err, size_t errlen)
{
    const kt_table *ops = kt_tables_find(ir, "replay_ops"), *args = kt_tables_find(ir, "replay_args");
    const kt_table *kernels = kt_tables_find(ir, "replay_kernels");
    if (!ops || !args || !kernels) {
        snprintf(err, errlen, "not a replay IR (replay_ops, replay_args, replay_kernels)");
        return KT_EUSAGE;
    }
    *j = (ir_json){ calloc(kt_table_nrows(ops) + 1, sizeof *j->op), 0 };
    if (!j->op) return KT_ENOMEM;
    size_t ca = 0, ck = 0;
    for (size_t r = 0; r < kt_table_nrows(ops); r++) {
        kt_tbuf b = { 0 };
        int64_t id = kt_table_int(ops, r, 0);
        put_row(&b, ops, r, NULL);
        if (!b.failed) b.n--; /* reopen the object */
        put_children(&b, args, id, &ca, "args");
        put_children(&b, kernels, id, &ck, "kernels");
        kt_tbuf_puts(&b, "}");
        if (b.failed) {
            free(b.s);
            return KT_ENOMEM;
        }
        j->op[j->n++] = b.s;
    }
    return KT_OK;
}

/* ---- the files ------------------------------------------------------------------ */

static kt_status write_file(const char *dir, const char *name, const kt_tbuf *b, char *err, size_t errlen)
{
    if (b->failed) return KT_ENOMEM;
    size_t cap = strlen(dir) + strlen(name) + 2;
    char *path = malloc(cap), *tmp = NULL;
    if (!path) return KT_ENOMEM;
    snprintf(path, cap, "%s/%s", dir, name);
    kt_status st = sqlite_target_begin(path, &tmp, err, errlen);
    if (st == KT_OK) {
        FILE *f = fopen(tmp, "wb");
        bool ok = f && fwrite(b->s, 1, b->n, f) == b->n;
        if (f && fclose(f) != 0) ok = false;
        if (!ok) snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
        st = sqlite_target_end(tmp, path, ok, ok ? err : NULL, ok ? errlen : 0);
    }
    free(path);
    return st;
}

static kt_status write_ir_json(const ir_json *j, const char *source, const char *dir, char *err, size_t errlen)
{
    kt_tbuf b = { 0 };
    kt_tbuf_puts(&b, "{\"source\": ");
    put_quoted(&b, source, false);
    kt_tbuf_puts(&b, ",\n \"ops\": [\n");
    for (size_t i = 0; i < j->n; i++) {
        kt_tbuf_puts(&b, "  ");
        kt_tbuf_puts(&b, j->op[i]);
        kt_tbuf_puts(&b, i + 1 < j->n ? ",\n" : "\n");
    }
    kt_tbuf_puts(&b, " ]}\n");
    kt_status st = write_file(dir, "replay_ir.json", &b, err, errlen);
    free(b.s);
    return st;
}

/* s in a docstring: quotes and backslashes as '_'. */
static void put_doc_text(kt_tbuf *b, const char *s)
{
    for (; *s; s++) kt_tbuf_put(b, *s == '"' || *s == '\\' || (unsigned char)*s < 0x20 ? "_" : s, 1);
}

/* A script replaying ops[first .. first+n). */
static kt_status write_script(const ir_json *j, size_t first, size_t n, const char *what, const char *source,
                              const char *dir, const char *name, char *err, size_t errlen)
{
    kt_tbuf b = { 0 };
    kt_tbuf_puts(&b, "#!/usr/bin/env python3\n\"\"\"Replay of ");
    put_doc_text(&b, what);
    kt_tbuf_puts(&b, " as recorded in a trace (kineta replay).\n\nTrace: ");
    put_doc_text(&b, source);
    kt_tbuf_puts(&b, "\nInputs are random tensors of the recorded shapes, strides and dtypes; the op is called\n"
              "through torch.ops (the overload whose schema takes the recorded arguments), warmed up and\n"
              "timed: CUDA events on a GPU, time.perf_counter on a CPU.  --check prints JSON of the\n"
              "inputs built and each op's status instead.\n\"\"\"\n");
    kt_tbuf_puts(&b, "import json as _json\n\nOPS = [_json.loads(_s) for _s in (\n");
    for (size_t i = first; i < first + n; i++) {
        kt_tbuf_puts(&b, "    ");
        put_quoted(&b, j->op[i], true);
        kt_tbuf_puts(&b, ",\n");
    }
    kt_tbuf_puts(&b, ")]\n\n");
    kt_tbuf_puts(&b, kt_replay_runtime);
    kt_tbuf_puts(&b, "\n\nif __name__ == \"__main__\":\n    main(OPS)\n");
    kt_status st = write_file(dir, name, &b, err, errlen);
    free(b.s);
    return st;
}

/* replay_<id>_<op name with [A-Za-z0-9] kept, others '_'>.py */
static void script_name(const kt_table *ops, size_t r, char *out, size_t cap)
{
    const char *op = kt_table_str(ops, r, 1);
    int k = snprintf(out, cap, "replay_%lld_", (long long)kt_table_int(ops, r, 0));
    for (; *op && (size_t)k + 4 < cap; op++) {
        char c = *op;
        bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        if (keep || (k > 0 && out[k - 1] != '_')) out[k++] = keep ? c : '_';
    }
    snprintf(out + k, cap - (size_t)k, ".py");
}

kt_status kt_replay_write(const kt_tables *ir, const char *source, const char *dir, size_t *nfiles, char *err,
                          size_t errlen)
{
    ir_json j;
    *nfiles = 0;
    kt_status st = ops_json(ir, &j, err, errlen);
    if (st != KT_OK) return st;
    const kt_table *ops = kt_tables_find(ir, "replay_ops");
    st = write_ir_json(&j, source, dir, err, errlen);
    char name[160], what[160];
    for (size_t i = 0; st == KT_OK && i < j.n; i++) {
        script_name(ops, i, name, sizeof name);
        snprintf(what, sizeof what, "op %lld, %s", (long long)kt_table_int(ops, i, 0), kt_table_str(ops, i, 1));
        st = write_script(&j, i, 1, what, source, dir, name, err, errlen);
    }
    snprintf(what, sizeof what, "%zu ops", j.n);
    if (st == KT_OK) st = write_script(&j, 0, j.n, what, source, dir, "replay_all.py", err, errlen);
    if (st == KT_OK) *nfiles = j.n + 2;
    ir_json_free(&j);
    return st;
}
