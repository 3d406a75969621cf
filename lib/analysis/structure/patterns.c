/*
 * patterns.c — `kineta patterns`: frequent GPU launch sequences under an
 * op (HTA get_frequent_cuda_kernel_sequences, spec A4.8).
 *
 * Map: per rank, the op tree (op_tree.c), the ops to look at, and the
 * sequences under their roots (pattern_map.c).  Reduce: pattern strings,
 * HTA's order (count desc, pattern asc), the tables, and the overlay copy
 * of each rank's file (patterns_overlay.c).
 */
#include "analysis/common/copy_names.h"
#include "analysis/structure/pattern_map.h"
#include "analysis/structure/patterns_overlay.h"
#include "table/table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void kt_patterns_options_init(kt_patterns_options *o, size_t size)
{
    const kt_patterns_options d = { .pick_ops = 3, .min_len = 3, .top = 5 };
    kt_options_init(o, size, &d, sizeof d);
}

/* The map's partial result for one rank. */
typedef struct rank_patterns {
    const kt_rank *r;
    kt_pattern_set set;
    size_t nops;
    kt_op_query *ops;
    int64_t *gpu_events, *roots; /* per op; gpu_events -1 = not counted */
} rank_patterns;

static void rank_patterns_free(rank_patterns *rp)
{
    kt_pattern_set_free(&rp->set);
    free(rp->ops);
    free(rp->gpu_events);
    free(rp->roots);
}

static kt_status choose_ops(const kt_trace *t, const kt_op_tree *tr, const kt_patterns_options *o,
                            rank_patterns *rp)
{
    size_t cap = o->op ? 1 : (o->pick_ops ? o->pick_ops : 1);
    rp->ops = calloc(cap, sizeof *rp->ops);
    rp->gpu_events = calloc(cap, sizeof *rp->gpu_events);
    rp->roots = calloc(cap, sizeof *rp->roots);
    uint32_t *names = calloc(cap, sizeof *names);
    kt_status st = rp->ops && rp->gpu_events && rp->roots && names ? KT_OK : KT_ENOMEM;
    if (st == KT_OK && o->op) {
        rp->ops[0] = (kt_op_query){ .substr = o->op, .exact = KT_NONE };
        rp->gpu_events[0] = -1;
        rp->nops = 1;
    } else if (st == KT_OK) {
        st = kt_pick_launching_ops(t, tr, o->pick_ops, names, rp->gpu_events, &rp->nops);
        for (size_t i = 0; st == KT_OK && i < rp->nops; i++) rp->ops[i] = (kt_op_query){ .exact = names[i] };
    }
    free(names);
    return st;
}

static kt_status map_rank(const kt_trace *t, const kt_rank *r, const kt_patterns_options *o, rank_patterns *rp)
{
    memset(rp, 0, sizeof *rp);
    rp->r = r;
    kt_op_tree tr;
    kt_status st = kt_op_tree_build(t, r, &tr);
    if (st != KT_OK) return st;
    st = choose_ops(t, &tr, o, rp);
    for (size_t i = 0; st == KT_OK && i < rp->nops; i++)
        st = kt_patterns_map(t, &tr, &rp->ops[i], o->min_len, &rp->set, &rp->roots[i]);
    kt_op_tree_free(&tr);
    return st;
}

/* ---- reduce ---------------------------------------------------------------- */

typedef struct labelled {
    char **label;    /* by pattern index */
    uint32_t *order; /* pattern indices in table order */
} labelled;

static char *join_names(const kt_strtab *strs, const uint32_t *ids, size_t n)
{
    size_t len = 1;
    for (size_t i = 0; i < n; i++) len += (ids[i] == KT_NONE ? 0 : kt_strtab_len(strs, ids[i])) + 1;
    char *s = malloc(len), *p = s;
    for (size_t i = 0; s && i < n; i++) {
        const char *name = ids[i] == KT_NONE ? "" : kt_strtab_get(strs, ids[i]);
        size_t k = strlen(name);
        if (i) *p++ = '|';
        memcpy(p, name, k);
        p += k;
    }
    if (s) *p = '\0';
    return s;
}

static int by_count_then_label(const void *a, const void *b, void *user)
{
    const rank_patterns *rp = ((void **)user)[0];
    char **label = ((void **)user)[1];
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    if (rp->set.p[x].count != rp->set.p[y].count) return rp->set.p[x].count > rp->set.p[y].count ? -1 : 1;
    return strcmp(label[x], label[y]);
}

static bool label_patterns(const kt_trace *t, const rank_patterns *rp, labelled *l)
{
    size_t n = rp->set.n;
    l->label = calloc(n ? n : 1, sizeof *l->label);
    l->order = malloc((n ? n : 1) * sizeof *l->order);
    if (!l->label || !l->order) return false;
    for (size_t i = 0; i < n; i++) {
        l->label[i] = join_names(t->strs, rp->set.seqs + rp->set.p[i].seq, rp->set.p[i].len);
        if (!l->label[i]) return false;
        l->order[i] = (uint32_t)i;
    }
    void *ctx[2] = { (void *)rp, l->label };
    qsort_r(l->order, n, sizeof *l->order, by_count_then_label, ctx);
    return true;
}

static void labelled_free(labelled *l, size_t n)
{
    for (size_t i = 0; l->label && i < n; i++) free(l->label[i]);
    free(l->label);
    free(l->order);
}

enum { T_PATTERNS, T_OPS, T_FILES, T_COUNT };

static kt_table *new_table(const char *name, const char *const *cols, const kt_col_type *types, size_t n)
{
    kt_table *t = kt_table_new(name);
    for (size_t i = 0; t && i < n; i++) kt_table_add_col(t, cols[i], types[i], types[i] == KT_COL_FLOAT ? 3 : 0);
    return t;
}

static bool make_tables(kt_table **tb, bool compat, bool files)
{
    static const char *const pc[] = { "pattern", "count", "GPU kernel duration (us)", "CPU op duration (us)", "rank" };
    static const kt_col_type pt[] = { KT_COL_STR, KT_COL_INT, KT_COL_FLOAT, KT_COL_FLOAT, KT_COL_INT };
    static const char *const oc[] = { "rank", "op", "match", "gpu_events", "roots" };
    static const kt_col_type ot[] = { KT_COL_INT, KT_COL_STR, KT_COL_STR, KT_COL_INT, KT_COL_INT };
    static const char *const fc[] = { "rank", "input", "output", "marked_events", "unmarkable_events",
                                      "renamed_events", "bytes" };
    static const kt_col_type ft[] = { KT_COL_INT, KT_COL_STR, KT_COL_STR, KT_COL_INT, KT_COL_INT, KT_COL_INT, KT_COL_INT };
    tb[T_PATTERNS] = new_table("patterns", pc, pt, compat ? 4 : 5);
    tb[T_OPS] = new_table("ops", oc, ot, 5);
    tb[T_FILES] = files ? new_table("files", fc, ft, 7) : NULL;
    return tb[T_PATTERNS] && tb[T_OPS] && (!files || tb[T_FILES]);
}

static void pattern_rows(kt_table *tb, const rank_patterns *rp, const labelled *l, bool compat)
{
    for (size_t i = 0; i < rp->set.n; i++) {
        const kt_pattern *p = &rp->set.p[l->order[i]];
        kt_table_add_row(tb);
        kt_table_set_str(tb, 0, l->label[l->order[i]]);
        kt_table_set_int(tb, 1, p->count);
        kt_table_set_float(tb, 2, (double)p->gpu_dur / 1e3);
        kt_table_set_float(tb, 3, (double)p->cpu_dur / 1e3);
        if (!compat) kt_table_set_int(tb, 4, rp->r->rank);
    }
}

static void op_rows(kt_table *tb, const kt_trace *t, const rank_patterns *rp)
{
    for (size_t i = 0; i < rp->nops; i++) {
        const kt_op_query *q = &rp->ops[i];
        kt_table_add_row(tb);
        kt_table_set_int(tb, 0, rp->r->rank);
        kt_table_set_str(tb, 1, q->substr ? q->substr : kt_strtab_get(t->strs, q->exact));
        kt_table_set_str(tb, 2, q->substr ? "substring" : "exact");
        if (rp->gpu_events[i] >= 0) kt_table_set_int(tb, 3, rp->gpu_events[i]);
        kt_table_set_int(tb, 4, rp->roots[i]);
    }
}

/* ---- overlay files ----------------------------------------------------------- */

/* Is dir the directory the input file is in?  Overlays never go there:
 * a trace directory is read by loaders that would take the copy for
 * another rank.                                                          */
static bool next_to_input(const char *dir, const char *file)
{
    const char *slash = strrchr(file, '/');
    char in_dir[4096];
    int n = slash ? snprintf(in_dir, sizeof in_dir, "%.*s", (int)(slash - file), file)
                  : snprintf(in_dir, sizeof in_dir, ".");
    if (slash == file) snprintf(in_dir, sizeof in_dir, "/");
    struct stat a, b;
    return n > 0 && (size_t)n < sizeof in_dir && stat(dir, &a) == 0 && stat(in_dir, &b) == 0 &&
           a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

static kt_status write_overlay(const kt_trace *t, const kt_rank_sel *sel, const kt_patterns_options *o,
                               kt_overlay_write_fn write, const rank_patterns *rp, const labelled *l, kt_table *files,
                               kt_diags **diags)
{
    if (next_to_input(o->out_dir, rp->r->file)) {
        kt_diags_fail(diags, rp->r->file, "refusing to write the overlay next to the input %s (-o another directory)",
                      rp->r->file);
        return KT_EUSAGE;
    }
    char out[4096], tag[32] = "";
    if (kt_file_name_shared(t, sel, rp->r)) snprintf(tag, sizeof tag, "rank%d_", rp->r->rank);
    int n = snprintf(out, sizeof out, "%s/overlaid_%s%s", o->out_dir, tag, kt_base_name(rp->r->file));
    if (n <= 0 || (size_t)n >= sizeof out) return KT_EUSAGE;
    size_t ntop = rp->set.n < o->top ? rp->set.n : o->top;
    const char **labels = malloc((ntop ? ntop : 1) * sizeof *labels);
    if (!labels) return KT_ENOMEM;
    for (size_t i = 0; i < ntop; i++) labels[i] = l->label[l->order[i]];
    kt_overlay_result res;
    char err[512] = "";
    kt_status st = kt_write_patterns_overlay(t, rp->r, &rp->set, l->order, labels, ntop, out, o->keep_names, write,
                                             &res, err, sizeof err);
    free(labels);
    if (st != KT_OK) {
        kt_diags_fail(diags, rp->r->file, "%s", err[0] ? err : kt_status_str(st));
        return st;
    }
    kt_table_add_row(files);
    kt_table_set_int(files, 0, rp->r->rank);
    kt_table_set_str(files, 1, rp->r->file);
    kt_table_set_str(files, 2, out);
    kt_table_set_int(files, 3, res.marked);
    kt_table_set_int(files, 4, res.unmarkable);
    kt_table_set_int(files, 5, res.renamed);
    kt_table_set_int(files, 6, (int64_t)res.bytes);
    return KT_OK;
}

static kt_status reduce_rank(const kt_trace *t, const kt_rank_sel *sel, const kt_patterns_options *o,
                             kt_overlay_write_fn write, const rank_patterns *rp, kt_table **tb, kt_diags **diags)
{
    labelled l = { 0 };
    kt_status st = label_patterns(t, rp, &l) ? KT_OK : KT_ENOMEM;
    if (st == KT_OK) {
        pattern_rows(tb[T_PATTERNS], rp, &l, t->hta_compat);
        op_rows(tb[T_OPS], t, rp);
        if (o->out_dir) st = write_overlay(t, sel, o, write, rp, &l, tb[T_FILES], diags);
    }
    labelled_free(&l, rp->set.n);
    return st;
}

kt_status kt_patterns_writing(const kt_trace *t, const kt_rank_sel *sel, const kt_patterns_options *opt,
                              kt_overlay_write_fn write, kt_tables **out, kt_diags **diags)
{
    *out = NULL;
    kt_diags_begin(diags);
    kt_patterns_options o = kt_patterns_defaults();
    if (!kt_options_take(&o, sizeof o, opt) || (o.out_dir && !write)) return KT_EUSAGE;
    if (o.op && !o.op[0]) return KT_EUSAGE;
    kt_table *tb[T_COUNT] = { 0 };
    kt_status st = make_tables(tb, t->hta_compat, o.out_dir != NULL) ? KT_OK : KT_ENOMEM;
    for (size_t i = 0; st == KT_OK && i < t->nranks; i++) {
        const kt_rank *r = t->ranks[i];
        if (!kt_rank_selected(sel, r->rank)) continue;
        rank_patterns rp;
        st = map_rank(t, r, &o, &rp);
        if (st == KT_OK) st = reduce_rank(t, sel, &o, write, &rp, tb, diags);
        rank_patterns_free(&rp);
        if (t->hta_compat) break; /* HTA analyses one rank */
    }
    if (st != KT_OK) {
        for (size_t i = 0; i < T_COUNT; i++) kt_table_free(tb[i]);
        return st;
    }
    return kt_tables_from(tb, o.out_dir ? 3 : 2, out);
}
