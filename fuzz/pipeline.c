/*
 * pipeline.c — see pipeline.h: one input through load, every analysis,
 * every printer and every file output, with the invariants checked.
 *
 * The input is written to a file first because file outputs (counters)
 * copy the rank's file byte for byte; loading it from a path also runs the
 * loader's file reader, as the CLI does.
 */
#include "pipeline.h"
#include "../programs/cli.h"

#include <dirent.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int fail(char *why, size_t whylen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *why, size_t whylen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, whylen, fmt, ap);
    va_end(ap);
    return 1;
}

static int write_file(const char *path, const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    size_t w = size ? fwrite(data, 1, size, f) : 0;
    return fclose(f) == 0 && w == size ? 0 : -1;
}

/* Diagnostics are data: every one readable, with a message. */
static int check_diags(const kt_diags *d, char *why, size_t whylen)
{
    for (size_t i = 0; i < kt_diags_count(d); i++) {
        const kt_diag *g = kt_diags_get(d, i);
        if (!g || !g->message) return fail(why, whylen, "diagnostic %zu has no message", i);
    }
    return 0;
}

static const cli_command *command_named(const char *name)
{
    for (size_t i = 0; name && kt_commands[i]; i++)
        if (!strcmp(kt_commands[i]->name, name)) return kt_commands[i];
    return NULL;
}

/* The command's own printer (info's nested JSON, gaps' and kernels'
 * summaries) and the generic one, in the three formats, into memory.      */
static void render_with_cli(const cli_command *cmd, const kt_tables *ts, int hta_compat)
{
    static const out_format formats[] = { FMT_TABLE, FMT_CSV, FMT_JSON };
    for (size_t k = 0; k < 3; k++) {
        cli_ctx ctx = { .format = formats[k], .format_given = true, .hta_compat = hta_compat, .quiet = true,
                        .verbose = k == 0 };
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (!f) continue;
        if (cmd->print) cmd->print(&ctx, ts, f);
        else print_tables(&ctx, cmd, ts, f);
        fclose(f);
        free(buf);
    }
}

/* Every file an analysis wrote: a trace that must load back (one rank),
 * or an SQLite database that must pass SQLite's own integrity check (its
 * large tables are laid out page by page, not inserted).  Removed.      */
static int integrity_row(void *ok, int ncols, char **vals, char **names)
{
    (void)names;
    if (ncols != 1 || !vals[0] || strcmp(vals[0], "ok")) *(bool *)ok = false;
    return 0;
}

static int check_sqlite(const char *path, char *why, size_t whylen)
{
    sqlite3 *db = NULL;
    bool ok = true;
    int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL);
    if (rc == SQLITE_OK) rc = sqlite3_exec(db, "PRAGMA integrity_check", integrity_row, &ok, NULL);
    sqlite3_close(db);
    if (rc != SQLITE_OK) return fail(why, whylen, "%s: written database does not open (%d)", path, rc);
    return ok ? 0 : fail(why, whylen, "%s: written database fails PRAGMA integrity_check", path);
}

static int check_trace_file(const char *path, char *why, size_t whylen)
{
    kt_load_options o = { .size = sizeof o, .jobs = 1 };
    kt_trace *t = NULL;
    kt_diags *d = NULL;
    const char *paths[] = { path };
    kt_status s = kt_load(paths, 1, &o, &t, &d);
    size_t nranks = t ? kt_trace_nranks(t) : 0;
    kt_trace_free(t);
    kt_diags_free(d);
    if (s != KT_OK) return fail(why, whylen, "%s: written trace does not load back (%s)", path, kt_status_str(s));
    return nranks == 1 ? 0 : fail(why, whylen, "%s: written trace loads as %zu ranks", path, nranks);
}

/* A report page is whole: it ends with the closing tag of the page. */
static int check_html(const char *path, char *why, size_t whylen)
{
    FILE *f = fopen(path, "rb");
    char tail[16] = "";
    size_t n = 0;
    if (f && fseek(f, -8, SEEK_END) == 0) n = fread(tail, 1, 8, f);
    if (f) fclose(f);
    tail[n] = 0;
    if (!strstr(tail, "</html>")) return fail(why, whylen, "%s: report page is not whole", path);
    return 0;
}

static int check_outputs(const char *dir, char *why, size_t whylen)
{
    DIR *d = opendir(dir);
    if (!d) return fail(why, whylen, "%s: scratch directory vanished", dir);
    int bad = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t n = strlen(e->d_name);
        if (!bad && n > 7 && !strcmp(e->d_name + n - 7, ".sqlite")) bad = check_sqlite(path, why, whylen);
        else if (!bad && n > 5 && !strcmp(e->d_name + n - 5, ".html")) bad = check_html(path, why, whylen);
        else if (!bad) bad = check_trace_file(path, why, whylen);
        unlink(path);
    }
    closedir(d);
    return bad;
}

/* One analysis, one variant: contract of the call, invariants, printers,
 * files.                                                                  */
static int run_one(const fz_analysis *a, const fz_env *env, int variant, const int *ranks, size_t nranks,
                   char *why, size_t whylen)
{
    kt_tables *ts = NULL;
    kt_status s = a->run(env, variant, &ts);
    int bad = 0;
    if (s == KT_OK && !ts) bad = fail(why, whylen, "returned KT_OK without tables");
    else if (s != KT_OK && ts) bad = fail(why, whylen, "returned %s with tables", kt_status_str(s));
    else if (s == KT_OK) bad = fz_check_tables(ts, ranks, nranks, kt_trace_hta_compat(env->trace), why, whylen);
    const cli_command *cmd = command_named(a->cli);
    if (!bad && ts && cmd) render_with_cli(cmd, ts, kt_trace_hta_compat(env->trace));
    char spare[8]; /* files are removed even after a finding, which keeps its why */
    int files_bad = check_outputs(env->scratch, bad ? spare : why, bad ? sizeof spare : whylen);
    kt_tables_free(ts);
    return bad || files_bad;
}

static int run_all(const kt_trace *t, const kt_trace *other, const char *out_dir, char *why, size_t whylen)
{
    size_t n = kt_trace_nranks(t);
    int *ranks = malloc((n ? n : 1) * sizeof *ranks);
    if (!ranks) return 0;
    for (size_t i = 0; i < n; i++) ranks[i] = kt_trace_rank(t, i);
    kt_rank_sel first = { .ranks = ranks, .nranks = n ? 1 : 0 };
    int bad = 0;
    for (const fz_analysis *a = fz_analyses; !bad && a->name; a++) {
        for (int v = 0; !bad && v < 2; v++) {
            fz_env env = { .trace = t, .other = other, .sel = v && n ? &first : NULL, .scratch = out_dir };
            size_t w = (size_t)snprintf(why, whylen, "%s variant %d (%s load): ", a->name, v,
                                        kt_trace_hta_compat(t) ? "hta_compat" : "default");
            if (w >= whylen) w = whylen - 1;
            bad = run_one(a, &env, v, ranks, v && n ? 1 : n, why + w, whylen - w);
        }
    }
    free(ranks);
    return bad;
}

static kt_trace *load(const char *path, int hta_compat, char *why, size_t whylen, int *bad)
{
    kt_load_options o = { .size = sizeof o, .jobs = 1, .hta_compat = hta_compat };
    const char *paths[] = { path };
    kt_trace *t = NULL;
    kt_diags *d = NULL;
    kt_status s = kt_load(paths, 1, &o, &t, &d);
    if (s != KT_OK) {
        if (t) *bad = fail(why, whylen, "load returned %s and a trace", kt_status_str(s));
        else *bad = check_diags(d, why, whylen);
        kt_trace_free(t);
        kt_diags_free(d);
        return NULL;
    }
    if (!t) *bad = fail(why, whylen, "load returned KT_OK without a trace");
    else *bad = check_diags(kt_trace_diags(t), why, whylen);
    return t;
}

int fz_pipeline(const uint8_t *data, size_t size, const char *scratch, char *why, size_t whylen)
{
    char in[4096], out_dir[4096];
    snprintf(in, sizeof in, "%s/rank3.json", scratch);
    snprintf(out_dir, sizeof out_dir, "%s/out", scratch);
    why[0] = '\0';
    if (write_file(in, data, size) != 0 || (mkdir(out_dir, 0700) != 0 && access(out_dir, W_OK) != 0))
        return fail(why, whylen, "%s: cannot write the scratch files", scratch);
    int bad = 0;
    kt_trace *t[2] = { NULL, NULL };
    for (int h = 0; !bad && h < 2; h++) t[h] = load(in, h, why, whylen, &bad);
    for (int h = 0; !bad && h < 2; h++)
        if (t[h]) bad = run_all(t[h], t[!h] ? t[!h] : t[h], out_dir, why, whylen);
    kt_trace_free(t[0]);
    kt_trace_free(t[1]);
    unlink(in);
    if (!bad) why[0] = '\0';
    return bad;
}

int fz_make_scratch(char *dir, size_t n)
{
    const char *tmp = getenv("TMPDIR");
    if ((size_t)snprintf(dir, n, "%s/kineta-fuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp") >= n) return -1;
    return mkdtemp(dir) ? 0 : -1;
}

void fz_remove_scratch(const char *dir)
{
    char out[4200];
    snprintf(out, sizeof out, "%s/out", dir);
    rmdir(out);
    rmdir(dir);
}
