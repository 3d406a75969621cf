/*
 * cli_driver.c — what every command shares: option parsing, loading with a
 * progress bar, diagnostics on stderr, output formatting and exit codes.
 */
#include "cli.h"
#include "cli_checks.h"
#include "cli_stream.h"
#include "cli_timings.h"
#include "model/json_number.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const cli_option common_options[] = {
    { "format", "table|csv|json", "output format (default: table on a terminal, else csv)" },
    { "table", "NAME", "print only this table (csv default: the first)" },
    { "top", "N", "rows of long tables (one row per event, edge, sample) in table format (default 10, "
                  "0 = all); csv/json: every row" },
    { "rank", "R", "only rank R" },
    { "ranks", "LIST", "only these ranks, e.g. 0,2-5" },
    { "file-ranks", "LIST", "rank of each PATH, in order (e.g. two files both saying rank 0); or of each "
                            "file the PATHs hold, in name order" },
    { "exclude", "GLOB", "skip the files of a directory PATH whose name matches GLOB (repeatable)" },
    { "jobs", "N", "loader threads, and the report's analyses at once (default: number of cores)" },
    { "hta-compat", NULL, "reproduce HTA: load semantics (ns rounding, last-step filtering), JSON keys" },
    { "cache", NULL, "[=DIR] keep each parsed file's model in DIR (default $XDG_CACHE_HOME/kineta, else "
                     "~/.cache/kineta) and map it on later runs instead of parsing" },
    { "verbose", NULL, "full names, tables as wide as they are, more detail" },
    { "stream-ranks", NULL, "load at most --jobs ranks at once, merge per-rank results (docs/scaling.md)" },
    { "timings", NULL, "say on stderr how long loading, the command, its output and freeing took (wall, CPU)" },
    { NULL, NULL, NULL },
};

static const cli_option *find_option(const cli_option *o, const char *name, size_t len)
{
    for (; o && o->name; o++)
        if (strlen(o->name) == len && !strncmp(o->name, name, len)) return o;
    return NULL;
}

/* The options o, but those own lists too (its --top over the common one). */
static void print_options_but(const cli_option *o, const cli_option *own, FILE *f)
{
    for (; o && o->name; o++) {
        if (find_option(own, o->name, strlen(o->name))) continue;
        char left[64];
        snprintf(left, sizeof left, "--%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
        fprintf(f, "  %-30s %s\n", left, o->help);
    }
}

static void print_options(const cli_option *o, FILE *f) { print_options_but(o, NULL, f); }

void cli_print_common_options(FILE *f)
{
    print_options(common_options, f);
    fprintf(f, "  %-30s %s\n  %-30s %s\n", "-o FILE (or DIR)", "write the output to FILE (counters: into DIR)",
            "-q", "no warnings or progress on stderr");
}

static void command_help(const cli_command *cmd, FILE *f)
{
    fprintf(f, "usage: kineta %s [options] %s\n\n%s\n", cmd->name, cmd->run_pair ? "CONTROL TEST" : "PATH...",
            cmd->summary);
    if (cmd->description) fprintf(f, "\n%s\n", cmd->description);
    if (cmd->options && cmd->options->name) {
        fprintf(f, "\noptions:\n");
        print_options(cmd->options, f);
    }
    fprintf(f, "\ncommon options:\n");
    print_options_but(common_options, cmd->options, f);
    fprintf(f, "  %-30s %s\n  %-30s %s\n  %-30s %s\n", cmd->output_dir ? "-o DIR" : "-o FILE",
            cmd->output_dir ? "write the files into DIR" : "write the output to FILE",
            "-q", "no warnings or progress on stderr", "-h, --help", "this help");
    if (cmd->tables && cmd->tables[0]) {
        fprintf(f, "\ntables:");
        for (size_t i = 0; cmd->tables[i]; i++) fprintf(f, " %s", cmd->tables[i]);
        fprintf(f, "\n");
    }
}

bool cli_parse_int(const char *opt, const char *v, long long lo, long long hi, long long *out)
{
    char *end;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (errno || end == v || *end || x < lo || x > hi) {
        fprintf(stderr, "kineta: --%s expects an integer in [%lld, %lld], got '%s'\n", opt, lo, hi, v);
        return false;
    }
    *out = x;
    return true;
}

/* Read as the loader reads numbers: "0.5" in any locale (the Python
 * package runs these parsers in its host program's process).            */
bool cli_parse_double(const char *opt, const char *v, double *out)
{
    const char *end = v + strlen(v);
    kt_num x;
    if (kt_parse_number(v, end, &x) != end || !isfinite(x.f)) {
        fprintf(stderr, "kineta: --%s expects a number, got '%s'\n", opt, v);
        return false;
    }
    *out = x.f;
    return true;
}

bool cli_parse_pair(const char *opt, const char *v, char *buf, size_t cap, const char **a, const char **b)
{
    snprintf(buf, cap, "%s", v);
    char *comma = strchr(buf, ',');
    if (!comma || comma == buf || !comma[1] || strchr(comma + 1, ',')) {
        fprintf(stderr, "kineta: --%s expects two names, e.g. --%s before,after\n", opt, opt);
        return false;
    }
    *comma = '\0';
    *a = buf;
    *b = comma + 1;
    return true;
}

/* "0,2-5" → rank list (allocated). */
static bool parse_rank_list(const char *v, int **ranks, size_t *n)
{
    const char *p = v;
    while (*p) {
        char *end;
        long a = strtol(p, &end, 10), b;
        if (end == p || a < 0) return false;
        b = a;
        if (*end == '-') {
            p = end + 1;
            b = strtol(p, &end, 10);
            if (end == p || b < a) return false;
        }
        if (b - a > 1000000) return false;
        int *nr = realloc(*ranks, (*n + (size_t)(b - a) + 1) * sizeof *nr);
        if (!nr) return false;
        *ranks = nr;
        for (long r = a; r <= b; r++) (*ranks)[(*n)++] = (int)r;
        if (*end == ',') end++;
        else if (*end) return false;
        p = end;
    }
    return *n > 0;
}

static int set_common(cli_ctx *ctx, int **ranks, const char *name, const char *v)
{
    long long x;
    if (!strcmp(name, "format")) {
        ctx->format_given = true;
        if (!strcmp(v, "table")) ctx->format = FMT_TABLE;
        else if (!strcmp(v, "csv")) ctx->format = FMT_CSV;
        else if (!strcmp(v, "json")) ctx->format = FMT_JSON;
        else {
            fprintf(stderr, "kineta: --format must be table, csv or json\n");
            return 2;
        }
    } else if (!strcmp(name, "table")) {
        ctx->table = v;
    } else if (!strcmp(name, "top")) {
        if (!cli_parse_int(name, v, 0, 1000000000, &x)) return 2;
        ctx->top = x;
    } else if (!strcmp(name, "exclude")) {
        ctx->exclude[ctx->nexclude++] = v;
    } else if (!strcmp(name, "rank") || !strcmp(name, "ranks")) {
        if (!parse_rank_list(v, ranks, &ctx->sel.nranks)) {
            fprintf(stderr, "kineta: bad rank list '%s' (expected e.g. 0,2-5)\n", v);
            return 2;
        }
        ctx->sel.ranks = *ranks;
    } else if (!strcmp(name, "file-ranks")) {
        size_t n = 0;
        if (!parse_rank_list(v, &ctx->file_ranks, &n)) {
            fprintf(stderr, "kineta: bad --file-ranks list '%s'\n", v);
            return 2;
        }
        ctx->nfile_ranks = n;
    } else if (!strcmp(name, "jobs")) {
        if (!cli_parse_int(name, v, 1, 1024, &x)) return 2;
        ctx->jobs = (int)x;
    } else if (!strcmp(name, "hta-compat")) {
        ctx->hta_compat = true;
    } else if (!strcmp(name, "cache")) {
        ctx->cache = true;
        ctx->cache_dir = v && v[0] ? v : NULL;
    } else if (!strcmp(name, "verbose")) {
        ctx->verbose = true;
    } else if (!strcmp(name, "stream-ranks")) {
        ctx->stream_ranks = true;
    } else if (!strcmp(name, "timings")) {
        ctx->timings = true;
    }
    return 0;
}

/* Parse argv into ctx / command state.  Returns 0, 2 (usage) or -1 (help shown). */
static int parse_args(const cli_command *cmd, int argc, char **argv, cli_ctx *ctx, void *state,
                      int **ranks)
{
    bool only_paths = false;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (only_paths || a[0] != '-' || !a[1]) {
            ctx->paths[ctx->npaths++] = a;
            continue;
        }
        if (!strcmp(a, "--")) { only_paths = true; continue; }
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) { command_help(cmd, stdout); return -1; }
        if (!strcmp(a, "-q")) { ctx->quiet = true; continue; }
        if (!strcmp(a, "-v")) { ctx->verbose = true; continue; }
        if (!strcmp(a, "-o")) {
            if (++i >= argc) { fprintf(stderr, "kineta: -o needs a file name\n"); return 2; }
            ctx->out_path = argv[i];
            continue;
        }
        if (a[1] != '-') {
            fprintf(stderr, "kineta %s: unknown option '%s' (see --help)\n", cmd->name, a);
            return 2;
        }
        const char *name = a + 2, *eq = strchr(name, '=');
        size_t len = eq ? (size_t)(eq - name) : strlen(name);
        const cli_option *o = find_option(cmd->options, name, len); /* a command's --top over the common */
        bool common = o == NULL;
        if (!o) o = find_option(common_options, name, len);
        if (!o) {
            fprintf(stderr, "kineta %s: unknown option '--%.*s' (see --help)\n", cmd->name, (int)len, name);
            return 2;
        }
        const char *value = NULL;
        if (o->arg) {
            if (eq) value = eq + 1;
            else if (i + 1 < argc) value = argv[++i];
            else { fprintf(stderr, "kineta: --%s needs a value (%s)\n", o->name, o->arg); return 2; }
        } else if (eq && !(common && !strcmp(o->name, "cache"))) { /* --cache[=DIR] */
            fprintf(stderr, "kineta: --%s takes no value\n", o->name);
            return 2;
        }
        if (!o->arg && eq) value = eq + 1;
        int rc = common ? set_common(ctx, ranks, o->name, value)
                        : cmd->parse(state, o->name, value);
        if (!rc && !common && find_option(common_options, o->name, strlen(o->name)))
            rc = set_common(ctx, ranks, o->name, value); /* kernels --top 0: every row of every table */
        if (rc) return rc;
    }
    if (cmd->output_dir && !cmd->output_dir_optional && !ctx->out_path) {
        fprintf(stderr, "kineta %s: -o DIR is required (the directory to write into)\n", cmd->name);
        return 2;
    }
    if (ctx->npaths == 0) {
        fprintf(stderr, "kineta %s: no trace PATH given (see kineta %s --help)\n", cmd->name, cmd->name);
        return 2;
    }
    if (cmd->run_pair && ctx->npaths != 2) {
        fprintf(stderr, "kineta %s: expects two PATHs, CONTROL and TEST (got %zu)\n", cmd->name, ctx->npaths);
        return 2;
    }
    if (cmd->run_pair && ctx->file_ranks && ctx->nfile_ranks != ctx->npaths) {
        fprintf(stderr, "kineta: --file-ranks gives %zu ranks for %zu PATHs\n", ctx->nfile_ranks, ctx->npaths);
        return 2;
    }
    int rc = cli_check_table(cmd, ctx->table);
    return rc ? rc : cli_check_output(cmd, ctx->out_path);
}

/* Progress bar: only on a terminal, only once loading has taken > 1 s. */
typedef struct progress {
    struct timespec start;
    int last_pct;
    bool shown;
} progress;

static double elapsed(const struct timespec *s)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - s->tv_sec) + (double)(now.tv_nsec - s->tv_nsec) / 1e9;
}

static void on_progress(void *user, uint64_t done, uint64_t total)
{
    progress *p = user;
    if (!total || elapsed(&p->start) < 1.0) return;
    int pct = (int)(100.0 * (double)done / (double)total);
    if (pct == p->last_pct) return;
    p->last_pct = pct;
    p->shown = true;
    int bars = pct / 4;
    fprintf(stderr, "\rloading [%.*s%*s] %3d%% (%.0f MB)", bars, "#########################",
            25 - bars, "", pct, (double)total / 1e6);
}

/* notes: the loader's notes (facts about the input, not problems: a
 * single file's assumed rank, a skipped file) too — `info` and --verbose
 * show them, other commands need not repeat them on every run.          */
static void print_diags(const kt_diags *d, bool quiet, bool notes)
{
    for (size_t i = 0; i < kt_diags_count(d); i++) {
        const kt_diag *g = kt_diags_get(d, i);
        if ((quiet && g->level != KT_DIAG_ERROR) || (!notes && g->level == KT_DIAG_INFO)) continue;
        const char *lvl = g->level == KT_DIAG_ERROR ? "error" : g->level == KT_DIAG_WARNING ? "warning" : "note";
        if (g->file && g->offset >= 0)
            fprintf(stderr, "kineta: %s: %s: byte %lld: %s\n", lvl, g->file, (long long)g->offset, g->message);
        else if (g->file)
            fprintf(stderr, "kineta: %s: %s: %s\n", lvl, g->file, g->message);
        else
            fprintf(stderr, "kineta: %s: %s\n", lvl, g->message);
    }
}

static int exit_code(kt_status s)
{
    return s == KT_ENOMEM ? 1 : (int)s;
}

/* The loader's error for two files of one rank (load.c, check_duplicates). */
static bool same_rank_twice(const kt_diags *d)
{
    for (size_t i = 0; i < kt_diags_count(d); i++)
        if (strstr(kt_diags_get(d, i)->message, "is also the rank of")) return true;
    return false;
}

/* Loads paths[0..npaths) (ranks: nranks of --file-ranks, or NULL). */
static kt_status load_paths(const cli_ctx *ctx, const char **paths, size_t npaths, const int *ranks,
                            size_t nranks, bool hta_compat, bool notes, kt_trace **t)
{
    progress prog = { .last_pct = -1 };
    clock_gettime(CLOCK_MONOTONIC, &prog.start);
    bool tty = !ctx->quiet && isatty(STDERR_FILENO);
    char cache_dir[4096];
    if (ctx->cache && !ctx->cache_dir && kt_cache_default_dir(cache_dir, sizeof cache_dir) != KT_OK) {
        fprintf(stderr, "kineta: --cache: neither XDG_CACHE_HOME nor HOME is set: give --cache=DIR\n");
        return KT_EUSAGE;
    }
    kt_load_options lo = { .size = sizeof lo, .jobs = ctx->jobs, .hta_compat = hta_compat, .ranks = ranks,
                           .nranks = nranks, .exclude = ctx->exclude, .nexclude = ctx->nexclude,
                           .progress = tty ? on_progress : NULL, .progress_user = &prog,
                           .cache_dir = !ctx->cache ? NULL : ctx->cache_dir ? ctx->cache_dir : cache_dir };
    kt_diags *failure = NULL;
    kt_status s = kt_load(paths, npaths, &lo, t, &failure);
    if (prog.shown) fprintf(stderr, "\r%60s\r", "");
    if (s != KT_OK) {
        print_diags(failure, false, true);
        if (!kt_diags_count(failure)) fprintf(stderr, "kineta: %s\n", kt_status_str(s));
        if (!ctx->file_ranks && same_rank_twice(failure))
            fprintf(stderr, "kineta: give each PATH (or each file of a directory, in name order) its rank with "
                            "--file-ranks, e.g. --file-ranks 0,1\n");
        kt_diags_free(failure);
        return s;
    }
    print_diags(kt_trace_diags(*t), ctx->quiet, notes);
    return KT_OK;
}

static kt_status load(const cli_command *cmd, const cli_ctx *ctx, kt_trace **t)
{
    bool notes = ctx->verbose || !strcmp(cmd->name, "info");
    return load_paths(ctx, ctx->paths, ctx->npaths, ctx->file_ranks, ctx->nfile_ranks, ctx->hta_compat, notes, t);
}

/* run_pair commands: CONTROL and TEST loaded one after the other, as written. */
static kt_status run_pair(const cli_command *cmd, const cli_ctx *ctx, void *state, kt_tables **ts)
{
    kt_trace *t[2] = { NULL, NULL };
    kt_status s = KT_OK;
    for (size_t i = 0; i < 2 && s == KT_OK; i++)
        s = load_paths(ctx, &ctx->paths[i], 1, ctx->file_ranks ? &ctx->file_ranks[i] : NULL, 1, false,
                       ctx->verbose, &t[i]);
    if (s == KT_OK) {
        s = cmd->run_pair(ctx, t[0], t[1], state, ts);
        cli_say_status(cmd->name, s);
    }
    kt_trace_free(t[0]);
    kt_trace_free(t[1]);
    return s;
}

int cli_run_command(const cli_command *cmd, int argc, char **argv)
{
    cli_ctx ctx = { .format = isatty(STDOUT_FILENO) ? FMT_TABLE : FMT_CSV, .top = -1 };
    int *ranks = NULL;
    void *state = calloc(1, cmd->state_size + 1);
    ctx.paths = calloc((size_t)argc + 1, sizeof *ctx.paths);
    ctx.exclude = calloc((size_t)argc + 1, sizeof *ctx.exclude);
    if (!state || !ctx.paths || !ctx.exclude) {
        fprintf(stderr, "kineta: out of memory\n");
        free(state);
        free(ctx.paths);
        free(ctx.exclude);
        return 1;
    }
    if (cmd->init) cmd->init(state);
    int rc = parse_args(cmd, argc, argv, &ctx, state, &ranks);
    cli_timings clock;
    cli_timings_start(&clock);
    kt_trace *t = NULL;
    kt_tables *ts = NULL;
    kt_status pre = KT_OK;
    bool handled = rc == 0 && cmd->preload && cmd->preload(&ctx, state, &ts, &pre);
    if (handled) {
        cli_say_status(cmd->name, pre);
        rc = exit_code(pre);
    }
    if (rc == 0 && !handled && !cmd->run_pair && (ctx.stream_ranks || cli_stream_distributed()) &&
        cli_streams(cmd)) {
        rc = cli_run_streamed(cmd, &ctx, state, &ts);
        handled = true;
    } else if (rc == 0 && !handled && ctx.stream_ranks && !ctx.quiet) {
        fprintf(stderr, "kineta %s: note: this command does not stream ranks; loading them all\n", cmd->name);
    }
    if (rc == 0 && !handled && cmd->run_pair) rc = exit_code(run_pair(cmd, &ctx, state, &ts));
    else if (rc == 0 && !handled) rc = exit_code(load(cmd, &ctx, &t));
    if (t) cli_timings_mark(&clock, "load"); /* else the loads are in the command's time */
    if (rc == 0 && !handled && !cmd->run_pair) rc = cli_check_selection(cmd, &ctx, t, state);
    if (rc == 0 && !handled && !cmd->run_pair) {
        kt_status s = cmd->run(&ctx, t, state, &ts);
        cli_say_status(cmd->name, s);
        rc = exit_code(s);
    }
    cli_timings_mark(&clock, cmd->name);
    if (rc == 0 && ts) {
        bool to_file = ctx.out_path && !cmd->output_dir;
        FILE *f = to_file ? fopen(ctx.out_path, "w") : stdout;
        if (!f) {
            fprintf(stderr, "kineta: cannot write %s: %s\n", ctx.out_path, strerror(errno));
            rc = 3;
        } else {
            if (cmd->print) rc = cmd->print(&ctx, ts, f);
            else rc = print_tables(&ctx, cmd, ts, f);
            if (to_file && fclose(f) != 0) {
                fprintf(stderr, "kineta: error writing %s\n", ctx.out_path);
                rc = 1;
            }
        }
    }
    fflush(stdout);
    if (rc < 0) rc = 0; /* --help */
    kt_tables_free(ts);
    cli_timings_mark(&clock, "output");
    kt_trace_free(t);
    cli_timings_mark(&clock, "free");
    if (ctx.timings) cli_timings_print(&clock, stderr);
    free(ranks);
    free(ctx.file_ranks);
    free(state);
    free(ctx.paths);
    free(ctx.exclude);
    return rc;
}
