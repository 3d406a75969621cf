/*
 * cli_checks.c — early checks of the command line (see cli_checks.h).
 *
 * A misspelt table or a missing output directory found after a minute of
 * loading wastes that minute; a rank or step that is not in the trace would
 * otherwise print empty tables and exit 0, which reads as "nothing there".
 */
#include "cli_checks.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int cli_check_table(const cli_command *cmd, const char *table)
{
    if (!table || !cmd->tables) return 0;
    for (size_t i = 0; cmd->tables[i]; i++)
        if (!strcmp(cmd->tables[i], table)) return 0;
    fprintf(stderr, "kineta %s: no table '%s'; tables:", cmd->name, table);
    for (size_t i = 0; cmd->tables[i]; i++) fprintf(stderr, " %s", cmd->tables[i]);
    fprintf(stderr, "\n");
    return 2;
}

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* mkdir -p path; false with errno set. */
static bool make_dirs(const char *path)
{
    char *p = strdup(path);
    if (!p) return false;
    bool ok = true;
    for (char *s = p + 1; ok && *s; s++) {
        if (*s != '/') continue;
        *s = '\0';
        ok = is_dir(p) || mkdir(p, 0777) == 0 || errno == EEXIST;
        *s = '/';
    }
    ok = ok && (is_dir(p) || mkdir(p, 0777) == 0 || (errno == EEXIST && is_dir(p)));
    free(p);
    return ok;
}

int cli_check_output_file(const char *command, const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash || slash == path) return 0;
    char *dir = strndup(path, (size_t)(slash - path));
    bool ok = !dir || is_dir(dir);
    if (!ok) fprintf(stderr, "kineta %s: cannot write %s: directory %s does not exist\n", command, path, dir);
    free(dir);
    return ok ? 0 : 3;
}

int cli_check_output(const cli_command *cmd, const char *out_path)
{
    if (!out_path) return 0;
    if (!cmd->output_dir) return cli_check_output_file(cmd->name, out_path);
    if (make_dirs(out_path)) return 0;
    fprintf(stderr, "kineta %s: cannot create directory %s: %s\n", cmd->name, out_path, strerror(errno));
    return 3;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The distinct values of column col over tables t[0..nt) (NULL ones
 * skipped), sorted (malloc'd; *n of them).                               */
static int64_t *distinct_values(const kt_table *const *t, size_t nt, const char *col, size_t *n)
{
    size_t rows = 0, k = 0;
    for (size_t i = 0; i < nt; i++) rows += t[i] ? kt_table_nrows(t[i]) : 0;
    int64_t *v = malloc((rows ? rows : 1) * sizeof *v);
    *n = 0;
    for (size_t i = 0; v && i < nt; i++) {
        long c = t[i] ? kt_table_col_index(t[i], col) : -1;
        for (size_t r = 0; c >= 0 && r < kt_table_nrows(t[i]); r++) v[k++] = kt_table_int(t[i], r, (size_t)c);
    }
    if (!v) return NULL;
    qsort(v, k, sizeof *v, cmp_i64);
    for (size_t r = 0; r < k; r++)
        if (!*n || v[*n - 1] != v[r]) v[(*n)++] = v[r];
    return v;
}

static bool contains(const int64_t *v, size_t n, int64_t x)
{
    return bsearch(&x, v, n, sizeof *v, cmp_i64) != NULL;
}

/* "0-3, 5, 7-9" (or "none"). */
static void print_ranges(const int64_t *v, size_t n)
{
    if (!n) fputs(" none", stderr);
    for (size_t a = 0, b; a < n; a = b) {
        for (b = a + 1; b < n && v[b] == v[b - 1] + 1;) b++;
        fprintf(stderr, "%s %lld", a ? "," : "", (long long)v[a]);
        if (b - a > 1) fprintf(stderr, "-%lld", (long long)v[b - 1]);
    }
    fputc('\n', stderr);
}

static int check_ranks(const cli_command *cmd, const cli_ctx *ctx, const kt_tables *info)
{
    size_t n;
    const kt_table *ranks = kt_tables_find(info, "ranks");
    int64_t *have = distinct_values(&ranks, 1, "rank", &n);
    if (!have) return 1;
    int rc = 0;
    for (size_t i = 0; i < ctx->sel.nranks && !rc; i++)
        if (!contains(have, n, ctx->sel.ranks[i])) {
            fprintf(stderr, "kineta %s: no rank %d in these traces; ranks:", cmd->name, ctx->sel.ranks[i]);
            print_ranges(have, n);
            rc = 1;
        }
    free(have);
    return rc;
}

int cli_check_step(const cli_command *cmd, int64_t step, const kt_table *const *steps, size_t nsteps)
{
    size_t n;
    int64_t *have = distinct_values(steps, nsteps, "step", &n);
    if (!have) return 1;
    int rc = 0;
    if (!contains(have, n, step)) {
        fprintf(stderr, "kineta %s: no ProfilerStep#%lld in the selected ranks; steps:", cmd->name, (long long)step);
        print_ranges(have, n);
        rc = 1;
    }
    free(have);
    return rc;
}

int cli_check_selection(const cli_command *cmd, const cli_ctx *ctx, const kt_trace *t, const void *state)
{
    int64_t step = cmd->selected_step ? cmd->selected_step(state) : -1;
    if (!ctx->sel.nranks && step < 0) return 0;
    kt_tables *all = NULL, *sel = NULL;
    kt_status s = kt_info(t, NULL, &all);
    if (s == KT_OK && step >= 0) s = kt_info(t, &ctx->sel, &sel);
    int rc = s != KT_OK ? 1 : check_ranks(cmd, ctx, all);
    const kt_table *steps = sel ? kt_tables_find(sel, "steps") : NULL;
    if (!rc && step >= 0) rc = cli_check_step(cmd, step, &steps, 1);
    kt_tables_free(all);
    kt_tables_free(sel);
    return rc;
}
