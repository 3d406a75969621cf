/*
 * tables_shown.c — which of a command's tables a format shows, in what
 * order and how many rows, and saying what it left out.
 *
 * A command returns every table in full (csv and json carry them all), but
 * a terminal is read from the top: the summaries come first, the tables of
 * one row per item (critical-path edges, queue series, launches) show their
 * first rows with the command that prints the rest, and tables that say
 * nothing (no rows; a heatmap of zeros) are named instead of printed.  csv
 * holds one table: the others it leaves out are named on stderr, so a pipe
 * never loses tables silently.  The rules are the same for every command;
 * a command only lists its raw tables (cli_command.raw_tables).
 */
#include "cli.h"

#include <math.h>
#include <string.h>

#define RAW_ROWS 10 /* rows of a raw table shown by default, as kernels' --top */

static bool listed(const char *const *names, const char *name)
{
    for (size_t i = 0; names && names[i]; i++)
        if (!strcmp(names[i], name)) return true;
    return false;
}

/* No rows; or no text column and every number past the first column (the
 * row's key: a rank) zero or null, as the all-to-all heatmap of a job
 * without all-to-all.                                                     */
static bool says_nothing(const kt_table *t, bool *all_zero)
{
    *all_zero = false;
    size_t nc = kt_table_ncols(t), nr = kt_table_nrows(t);
    if (nr == 0) return true;
    if (nc < 2) return false;
    for (size_t c = 0; c < nc; c++)
        if (kt_table_col_type(t, c) == KT_COL_STR) return false;
    for (size_t r = 0; r < nr; r++)
        for (size_t c = 1; c < nc; c++) {
            if (kt_table_is_null(t, r, c)) continue;
            double v = kt_table_float(t, r, c);
            if (v != 0 && !isnan(v)) return false;
        }
    return *all_zero = true;
}

/* Appends name to the list line (", " between names). */
static void add_name(char *line, size_t cap, const char *name)
{
    size_t n = strlen(line);
    snprintf(line + n, cap - n, "%s%s", n ? ", " : "", name);
}

/* One table: its first rows when it is raw, then how to get the others. */
static void print_one(const cli_ctx *ctx, const cli_command *cmd, const kt_table *t, bool raw, bool *first,
                      FILE *f)
{
    size_t nr = kt_table_nrows(t), cap = ctx->top < 0 ? RAW_ROWS : (size_t)ctx->top;
    size_t shown = raw && cap && nr > cap ? cap : nr;
    if (!*first) fputc('\n', f);
    *first = false;
    if (!cmd->print_text || !cmd->print_text(t, shown, f)) {
        text_style st = text_style_for(ctx, f);
        st.max_rows = shown;
        print_table_text_styled(t, &st, f);
    }
    if (shown < nr) fprintf(f, "%zu more rows: --table %s --top 0\n", nr - shown, kt_table_name(t));
    for (size_t i = 0; i < kt_table_nnotes(t); i++) fprintf(f, "note: %s\n", kt_table_note(t, i));
}

/* The footnotes of the tables named under "no rows" / "all zero" (why a
 * table is empty: no launch call recorded, no collective), each once.   */
static void print_empty_notes(const cli_ctx *ctx, const kt_tables *ts, FILE *f)
{
    for (size_t i = 0; !ctx->table && i < kt_tables_count(ts); i++) {
        const kt_table *t = kt_tables_get(ts, i);
        bool all_zero;
        if (!says_nothing(t, &all_zero)) continue;
        for (size_t k = 0; k < kt_table_nnotes(t); k++) fprintf(f, "note: %s: %s\n", kt_table_name(t), kt_table_note(t, k));
    }
}

void print_tables_text(const cli_ctx *ctx, const cli_command *cmd, const kt_tables *ts, FILE *f)
{
    char empty[1024] = "", zeros[1024] = "";
    bool first = true;
    for (int pass = 0; pass < 2; pass++) /* summaries, then raw tables */
        for (size_t i = 0; i < kt_tables_count(ts); i++) {
            const kt_table *t = kt_tables_get(ts, i);
            const char *name = kt_table_name(t);
            bool raw = listed(cmd->raw_tables, name), all_zero;
            if (raw != (pass == 1) || (ctx->table && strcmp(ctx->table, name))) continue;
            if (!ctx->table && says_nothing(t, &all_zero)) {
                add_name(all_zero ? zeros : empty, sizeof empty, name);
                continue;
            }
            print_one(ctx, cmd, t, raw, &first, f);
        }
    if (empty[0] || zeros[0]) {
        if (!first) fputc('\n', f);
        if (empty[0]) fprintf(f, "no rows: %s\n", empty);
        if (zeros[0]) fprintf(f, "all zero: %s\n", zeros);
    }
    print_empty_notes(ctx, ts, f);
}

void note_tables_left_out(const cli_ctx *ctx, const cli_command *cmd, const kt_tables *ts, const kt_table *shown)
{
    if (ctx->quiet || ctx->table || kt_tables_count(ts) < 2) return;
    fprintf(stderr, "kineta %s: csv holds one table, %s; left out:", cmd->name, kt_table_name(shown));
    for (size_t i = 0, k = 0; i < kt_tables_count(ts); i++) {
        const kt_table *t = kt_tables_get(ts, i);
        if (t == shown) continue;
        fprintf(stderr, "%s %s (%zu rows)", k++ ? "," : "", kt_table_name(t), kt_table_nrows(t));
    }
    fprintf(stderr, ". --table NAME prints one of them, --format json all\n");
}
