/*
 * sheet_diff.c — report sheets matched row by row (why: sheet_diff.h).
 *
 * A row's key is its key cells as text joined by a separator; each side's
 * rows are sorted by (key, row) so that the k-th row of a key in base
 * pairs with the k-th in test.  The numbers compared are every numeric
 * column that is not a key.
 */
#include "analysis/compare/sheet_diff.h"

#include "table/table.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_KEYS 16

/* The key columns of each sheet; "param: " stands for every column whose
 * name starts so.  Sheets not listed (the roofline sheets) are keyed by
 * their first column and their "param: " columns.                        */
static const struct sheet_keys {
    const char *sheet;
    const char *keys[6];
} known_keys[] = {
    { "gpu_timeline", { "type" } },
    { "ops_summary", { "name" } },
    { "ops_summary_by_category", { "op category" } },
    { "ops_unique_args", { "name", "Input Dims", "Input type", "Input Strides", "Concrete Inputs" } },
    { "unified_perf_summary", { "name", "Input Dims", "Input type", "Input Strides", "Concrete Inputs" } },
    { "short_kernels_summary", { "Parent cpu_op", "Input dims", "Input strides", "Concrete Inputs", "Kernel name" } },
    { "kernel_summary", { "Parent cpu_op", "Kernel name" } },
    { "perf_by_family", { "family" } },
    { "perf_by_step", { "step" } },
    { "unmodelled_ops", { "op", "reason" } },
    { "unmodelled", { "op", "reason" } },
    { "coverage", { NULL } },
};

typedef struct side {
    const kt_table *t;
    long key[MAX_KEYS];    /* its columns of the key, -1 when it lacks one */
    size_t *order;         /* rows sorted by (key, row)                    */
    char **text;           /* each row's key text                          */
} side;

typedef struct sheet_cols {
    const char *key[MAX_KEYS];
    size_t nkeys;
    const char **val;      /* numeric non-key columns, base's then test's  */
    size_t nval;
} sheet_cols;

static bool is_key(const sheet_cols *sc, const char *col)
{
    for (size_t i = 0; i < sc->nkeys; i++)
        if (!strcmp(sc->key[i], col)) return true;
    return false;
}

static void add_key(sheet_cols *sc, const char *col)
{
    if (sc->nkeys < MAX_KEYS && !is_key(sc, col)) sc->key[sc->nkeys++] = col;
}

/* Key names from the spec, "param: " expanded over both sides' columns. */
static void add_spec_key(sheet_cols *sc, const char *spec, const kt_table *const *t)
{
    if (strcmp(spec, "param: ")) {
        add_key(sc, spec);
        return;
    }
    for (int s = 0; s < 2; s++)
        for (size_t c = 0; t[s] && c < kt_table_ncols(t[s]); c++)
            if (!strncmp(kt_table_col_name(t[s], c), "param: ", 7)) add_key(sc, kt_table_col_name(t[s], c));
}

static void find_keys(sheet_cols *sc, const char *sheet, const kt_table *const *t)
{
    const kt_table *any = t[0] ? t[0] : t[1];
    if (kt_table_col_index(any, "rank") >= 0) add_key(sc, "rank");
    for (size_t i = 0; i < sizeof known_keys / sizeof known_keys[0]; i++)
        if (!strcmp(known_keys[i].sheet, sheet)) {
            for (size_t k = 0; k < 6 && known_keys[i].keys[k]; k++) add_spec_key(sc, known_keys[i].keys[k], t);
            return;
        }
    if (kt_table_ncols(any)) add_key(sc, kt_table_col_name(any, 0)); /* roofline sheets: name + params */
    add_spec_key(sc, "param: ", t);
}

static bool find_values(sheet_cols *sc, const kt_table *const *t)
{
    size_t cap = (t[0] ? kt_table_ncols(t[0]) : 0) + (t[1] ? kt_table_ncols(t[1]) : 0);
    sc->val = malloc((cap ? cap : 1) * sizeof *sc->val);
    if (!sc->val) return false;
    for (int s = 0; s < 2; s++)
        for (size_t c = 0; t[s] && c < kt_table_ncols(t[s]); c++) {
            const char *name = kt_table_col_name(t[s], c);
            bool seen = is_key(sc, name);
            for (size_t i = 0; i < sc->nval && !seen; i++) seen = !strcmp(sc->val[i], name);
            if (!seen && kt_table_col_type(t[s], c) != KT_COL_STR) sc->val[sc->nval++] = name;
        }
    return true;
}

/* A cell as text ("" for null), numbers with every digit. */
static size_t cell_text(const kt_table *t, size_t r, long c, char *buf, size_t cap)
{
    if (c < 0 || kt_table_is_null(t, r, (size_t)c)) return (size_t)snprintf(buf, cap, "%s", "");
    switch (kt_table_col_type(t, (size_t)c)) {
    case KT_COL_STR: return (size_t)snprintf(buf, cap, "%s", kt_table_str(t, r, (size_t)c));
    case KT_COL_INT: return (size_t)snprintf(buf, cap, "%lld", (long long)kt_table_int(t, r, (size_t)c));
    default: return (size_t)snprintf(buf, cap, "%.17g", kt_table_float(t, r, (size_t)c));
    }
}

static char *key_text(const side *s, const sheet_cols *sc, size_t r)
{
    size_t len = 1;
    for (size_t k = 0; k < sc->nkeys; k++) len += cell_text(s->t, r, s->key[k], NULL, 0) + 1;
    char *out = malloc(len), *p = out;
    for (size_t k = 0; out && k < sc->nkeys; k++) {
        p += cell_text(s->t, r, s->key[k], p, len - (size_t)(p - out));
        *p++ = '\x1f';
    }
    if (out) *p = '\0';
    return out;
}

static int by_key_then_row(const void *a, const void *b, void *ctx)
{
    const side *s = ctx;
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    int d = strcmp(s->text[x], s->text[y]);
    return d ? d : (x > y) - (x < y);
}

static bool side_init(side *s, const kt_table *t, const sheet_cols *sc)
{
    size_t n = t ? kt_table_nrows(t) : 0;
    *s = (side){ .t = t, .order = malloc((n ? n : 1) * sizeof *s->order), .text = calloc(n ? n : 1, sizeof *s->text) };
    if (!s->order || !s->text) return false;
    for (size_t k = 0; k < sc->nkeys; k++) s->key[k] = t ? kt_table_col_index(t, sc->key[k]) : -1;
    for (size_t r = 0; r < n; r++) {
        s->order[r] = r;
        if (!(s->text[r] = key_text(s, sc, r))) return false;
    }
    qsort_r(s->order, n, sizeof *s->order, by_key_then_row, s);
    return true;
}

static void side_free(side *s)
{
    for (size_t r = 0; s->t && s->text && r < kt_table_nrows(s->t); r++) free(s->text[r]);
    free(s->text);
    free(s->order);
}

/* match[r] = test's row paired with base's row r, or SIZE_MAX; matched[]
 * marks test's rows taken.  A merge of the two sorted orders.            */
static void pair_rows(const side *a, const side *b, size_t *match, bool *matched)
{
    size_t na = a->t ? kt_table_nrows(a->t) : 0, nb = b->t ? kt_table_nrows(b->t) : 0, i = 0, j = 0;
    for (size_t r = 0; r < na; r++) match[r] = SIZE_MAX;
    while (i < na && j < nb) {
        int d = strcmp(a->text[a->order[i]], b->text[b->order[j]]);
        if (d < 0) i++;
        else if (d > 0) j++;
        else {
            match[a->order[i++]] = b->order[j];
            matched[b->order[j++]] = true;
        }
    }
}

static double number(const kt_table *t, size_t r, long c)
{
    if (!t || c < 0 || kt_table_is_null(t, r, (size_t)c)) return NAN;
    if (kt_table_col_type(t, (size_t)c) == KT_COL_INT) return (double)kt_table_int(t, r, (size_t)c);
    return kt_table_col_type(t, (size_t)c) == KT_COL_FLOAT ? kt_table_float(t, r, (size_t)c) : NAN;
}

/* The type of column name on whichever side has it (text when neither). */
static kt_col_type col_type(const kt_table *const *t, const char *name)
{
    for (int s = 0; s < 2; s++) {
        long c = t[s] ? kt_table_col_index(t[s], name) : -1;
        if (c >= 0) return kt_table_col_type(t[s], (size_t)c);
    }
    return KT_COL_STR;
}

static kt_table *diff_table(const char *sheet, const sheet_cols *sc, const kt_table *const *t, const char *a,
                            const char *b)
{
    kt_table *out = kt_table_new(sheet);
    for (size_t k = 0; out && k < sc->nkeys; k++) kt_table_add_col(out, sc->key[k], col_type(t, sc->key[k]), -1);
    if (out) kt_table_add_col(out, "status", KT_COL_STR, 0);
    for (size_t v = 0; out && v < sc->nval; v++) {
        char name[600];
        snprintf(name, sizeof name, "%s::%s", a, sc->val[v]);
        kt_table_add_col(out, name, KT_COL_FLOAT, -1);
        snprintf(name, sizeof name, "%s::%s", b, sc->val[v]);
        kt_table_add_col(out, name, KT_COL_FLOAT, -1);
        snprintf(name, sizeof name, "%s__diff", sc->val[v]);
        kt_table_add_col(out, name, KT_COL_FLOAT, -1);
        snprintf(name, sizeof name, "%s__ratio", sc->val[v]);
        kt_table_add_col(out, name, KT_COL_FLOAT, -1);
    }
    return out;
}

static void copy_cell(kt_table *out, size_t col, const kt_table *t, size_t r, long c)
{
    if (c < 0 || kt_table_is_null(t, r, (size_t)c)) return;
    switch (kt_table_col_type(t, (size_t)c)) {
    case KT_COL_INT: kt_table_set_int(out, col, kt_table_int(t, r, (size_t)c)); break;
    case KT_COL_FLOAT: kt_table_set_float(out, col, kt_table_float(t, r, (size_t)c)); break;
    case KT_COL_STR: kt_table_set_str(out, col, kt_table_str(t, r, (size_t)c)); break;
    }
}

/* b / a; 1 when equal (0 and 0 too), NaN when a is 0 and b is not. */
static double ratio(double a, double b)
{
    if (a == b) return 1;
    return a == 0 ? NAN : b / a;
}

/* One output row: keys from the side that has the row (base first), then
 * each value on both sides, b − a and b / a.  ra / rb SIZE_MAX: absent.  */
static void diff_row(kt_table *out, const sheet_cols *sc, const side *sa, const side *sb, size_t ra, size_t rb)
{
    const side *ks = ra != SIZE_MAX ? sa : sb;
    size_t kr = ra != SIZE_MAX ? ra : rb, c = 0;
    kt_table_add_row(out);
    for (size_t k = 0; k < sc->nkeys; k++) copy_cell(out, c++, ks->t, kr, ks->key[k]);
    kt_table_set_str(out, c++, ra == SIZE_MAX ? "added" : rb == SIZE_MAX ? "removed" : "matched");
    for (size_t v = 0; v < sc->nval; v++) {
        double x = ra == SIZE_MAX ? NAN : number(sa->t, ra, kt_table_col_index(sa->t, sc->val[v]));
        double y = rb == SIZE_MAX ? NAN : number(sb->t, rb, kt_table_col_index(sb->t, sc->val[v]));
        kt_table_set_float(out, c++, x);
        kt_table_set_float(out, c++, y);
        kt_table_set_float(out, c++, y - x);
        kt_table_set_float(out, c++, isnan(x) || isnan(y) ? NAN : ratio(x, y));
    }
}

/* The comparison of one sheet (t[0] base's, t[1] test's; one may be NULL). */
static kt_table *sheet_diff(const char *sheet, const kt_table *const *t, const char *a, const char *b)
{
    sheet_cols sc = { .nkeys = 0 };
    side sa = { 0 }, sb = { 0 };
    find_keys(&sc, sheet, t);
    size_t na = t[0] ? kt_table_nrows(t[0]) : 0, nb = t[1] ? kt_table_nrows(t[1]) : 0;
    size_t *match = malloc((na ? na : 1) * sizeof *match);
    bool *matched = calloc(nb ? nb : 1, sizeof *matched);
    kt_table *out = NULL;
    if (match && matched && find_values(&sc, t) && side_init(&sa, t[0], &sc) && side_init(&sb, t[1], &sc))
        out = diff_table(sheet, &sc, t, a, b);
    if (out) {
        pair_rows(&sa, &sb, match, matched);
        for (size_t r = 0; r < na; r++) diff_row(out, &sc, &sa, &sb, r, match[r]);
        for (size_t r = 0; r < nb; r++)
            if (!matched[r]) diff_row(out, &sc, &sa, &sb, SIZE_MAX, r);
    }
    side_free(&sa);
    side_free(&sb);
    free(sc.val);
    free(match);
    free(matched);
    return out;
}

static bool add_sheet(kt_tables *out, const char *name, const kt_tables *base, const kt_tables *test, const char *a,
                      const char *b)
{
    if (!strcmp(name, "notes") || kt_tables_find(out, name)) return true;
    const kt_table *t[2] = { kt_tables_find(base, name), kt_tables_find(test, name) };
    kt_table *d = sheet_diff(name, t, a, b);
    if (d && kt_table_failed(d)) {
        kt_table_free(d);
        d = NULL;
    }
    return d && kt_tables_add(out, d);
}

kt_status kt_sheets_diff(const kt_tables *base, const kt_tables *test, const char *a_name, const char *b_name,
                         kt_tables **out)
{
    kt_tables *acc = kt_tables_new();
    bool ok = acc != NULL;
    for (size_t i = 0; ok && i < kt_tables_count(base); i++)
        ok = add_sheet(acc, kt_table_name(kt_tables_get(base, i)), base, test, a_name, b_name);
    for (size_t i = 0; ok && i < kt_tables_count(test); i++)
        ok = add_sheet(acc, kt_table_name(kt_tables_get(test, i)), base, test, a_name, b_name);
    if (!ok) kt_tables_free(acc);
    *out = ok ? acc : NULL;
    return ok ? KT_OK : KT_ENOMEM;
}
