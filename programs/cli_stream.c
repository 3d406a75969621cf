/*
 * cli_stream.c — `--stream-ranks`: map every rank alone, reduce in rank order.
 *
 * A job of 64 ranks x 1 GB does not fit in memory all at once; most
 * commands print per-rank rows, rank-major, so their tables are the same
 * when each rank is loaded alone, analyzed and freed, and the per-rank
 * tables concatenated in rank order; commands whose rows aggregate over
 * ranks (kernels) map each rank to a partial and reduce the partials with
 * their own reduce.  Up to --jobs ranks are in memory at
 * once (one worker thread each).  The commands listed here were checked to
 * give byte-identical output (tests/test_stream_ranks.c); the others stay on
 * the all-in-memory path (docs/scaling.md says why).
 */
#include "cli_stream.h"
#include "cli_checks.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A command that streams, and its tables holding times since the job's
 * start (HTA's origin over every rank), re-expressed in the reduce.      */
typedef struct stream_plan {
    const char *command;
    const char *origin_tables[2]; /* their column "ts" is µs since the origin */
} stream_plan;

static const stream_plan plans[] = {
    { "info", { NULL } },        { "temporal", { NULL } }, { "idle", { NULL } },
    { "overlap", { NULL } },     { "launch", { NULL } },   { "queue", { "series", NULL } },
    { "memcpy-bw", { "series", NULL } }, { "annotations", { "kernels", NULL } },
    { "ops", { NULL } },
};

static const stream_plan *plan_of(const cli_command *cmd)
{
    for (size_t i = 0; i < sizeof plans / sizeof *plans; i++)
        if (!strcmp(plans[i].command, cmd->name)) return &plans[i];
    return NULL;
}

bool cli_streams(const cli_command *cmd)
{
    return plan_of(cmd) != NULL || cmd->reduce;
}

/* The program's process group (MPI), set once before any command runs. */
static const stream_group *group;

void cli_stream_set_group(const stream_group *g)
{
    group = g;
}

bool cli_stream_distributed(void)
{
    return group != NULL;
}

typedef struct stream_run {
    const cli_command *cmd;
    const cli_ctx *ctx;
    void *state;
    const kt_trace_file *files;
    const int *owner; /* process mapping each file */
    int me;
    rank_part *parts;
    size_t nfiles, next;
    int loader_jobs;
    pthread_mutex_t lock; /* next, and stderr */
} stream_run;

static void print_file_diags(const kt_diags *d, bool quiet)
{
    for (size_t i = 0; i < kt_diags_count(d); i++) {
        const kt_diag *g = kt_diags_get(d, i);
        if (quiet && g->level != KT_DIAG_ERROR) continue;
        const char *lvl = g->level == KT_DIAG_ERROR ? "error" : g->level == KT_DIAG_WARNING ? "warning" : "note";
        if (g->file && g->offset >= 0)
            fprintf(stderr, "kineta: %s: %s: byte %lld: %s\n", lvl, g->file, (long long)g->offset, g->message);
        else if (g->file) fprintf(stderr, "kineta: %s: %s: %s\n", lvl, g->file, g->message);
        else fprintf(stderr, "kineta: %s: %s\n", lvl, g->message);
    }
}

static bool selected(const cli_ctx *ctx, int rank)
{
    for (size_t i = 0; i < ctx->sel.nranks; i++)
        if (ctx->sel.ranks[i] == rank) return true;
    return ctx->sel.nranks == 0;
}

static int64_t selected_step(const stream_run *s)
{
    return s->cmd->selected_step ? s->cmd->selected_step(s->state) : -1;
}

/* The rank's kt_info tables ("steps" among them) appended to its part, for
 * the reduce to check the selected step exists in some rank.             */
static kt_status add_steps(const kt_trace *t, kt_tables **tables)
{
    kt_tables *info = NULL;
    kt_status st = kt_info(t, NULL, &info);
    return st == KT_OK ? kt_tables_append(tables, info) : st;
}

static void map_file(stream_run *s, size_t i)
{
    rank_part *p = &s->parts[i];
    kt_load_options lo = { .size = sizeof lo, .jobs = s->loader_jobs, .hta_compat = s->ctx->hta_compat };
    kt_trace *t = NULL;
    kt_diags *failure = NULL;
    p->status = kt_load_file(&s->files[i], &lo, &t, &failure);
    pthread_mutex_lock(&s->lock);
    print_file_diags(t ? kt_trace_diags(t) : failure, s->ctx->quiet && t);
    pthread_mutex_unlock(&s->lock);
    kt_diags_free(failure);
    if (!t) return;
    p->present = true;
    p->rank = kt_trace_rank(t, 0);
    p->origin = kt_trace_origin(t);
    p->selected = selected(s->ctx, p->rank);
    if (p->selected) p->status = (s->cmd->reduce ? s->cmd->map : s->cmd->run)(s->ctx, t, s->state, &p->tables);
    p->explained = cli_failure_explained(); /* this worker's, asked at once */
    if (p->selected && p->status == KT_OK && selected_step(s) >= 0) p->status = add_steps(t, &p->tables);
    kt_trace_free(t);
}

static void *worker(void *arg)
{
    stream_run *s = arg;
    for (;;) {
        pthread_mutex_lock(&s->lock);
        size_t i = s->next++;
        pthread_mutex_unlock(&s->lock);
        if (i >= s->nfiles) return NULL;
        if (s->owner[i] == s->me) map_file(s, i);
    }
}

static int cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

/* Maps every file on min(--jobs, files) threads. */
static void map_all(stream_run *s)
{
    int jobs = s->ctx->jobs > 0 ? s->ctx->jobs : cores();
    size_t mine = 0;
    for (size_t i = 0; i < s->nfiles; i++) mine += s->owner[i] == s->me;
    size_t nworkers = (size_t)jobs < mine ? (size_t)jobs : mine;
    s->loader_jobs = jobs / (int)(nworkers ? nworkers : 1);
    pthread_t *th = calloc(nworkers ? nworkers : 1, sizeof *th);
    size_t started = 0;
    while (th && started < nworkers && !pthread_create(&th[started], NULL, worker, s)) started++;
    if (!started) worker(s); /* no thread could start: map here */
    for (size_t i = 0; i < started; i++) pthread_join(th[i], NULL);
    free(th);
}

static int by_rank(const void *a, const void *b)
{
    const rank_part *x = *(rank_part *const *)a, *y = *(rank_part *const *)b;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* The loader's checks, in its order: a failed file, no trace, a rank twice. */
static int check_parts(const cli_command *cmd, const stream_run *s, rank_part **sorted, size_t n)
{
    for (size_t i = 0; i < s->nfiles; i++)
        if (s->parts[i].status != KT_OK && !s->parts[i].present) return s->parts[i].status == KT_ENOMEM ? 1 : 3;
    if (n == 0) {
        fprintf(stderr, "kineta: error: no Kineto trace among the input files\n");
        return 3;
    }
    for (size_t i = 1; i < n; i++)
        if (sorted[i]->rank == sorted[i - 1]->rank) {
            fprintf(stderr, "kineta: error: two files have rank %d: give each PATH its rank with --file-ranks\n",
                    sorted[i]->rank);
            return 3;
        }
    for (size_t i = 0; i < s->ctx->sel.nranks; i++) {
        bool have = false;
        for (size_t k = 0; k < n && !have; k++) have = sorted[k]->rank == s->ctx->sel.ranks[i];
        if (!have) {
            fprintf(stderr, "kineta %s: no rank %d in these traces\n", cmd->name, s->ctx->sel.ranks[i]);
            return 1;
        }
    }
    for (size_t i = 0; i < n; i++)
        if (sorted[i]->status != KT_OK) {
            if (!sorted[i]->explained) fprintf(stderr, "kineta %s: %s\n", cmd->name, kt_status_str(sorted[i]->status));
            return sorted[i]->status == KT_ENOMEM ? 1 : (int)sorted[i]->status;
        }
    return 0;
}

/* Concatenation in rank order, times since the start re-expressed from each
 * rank's origin to the job's (the earliest).                              */
static kt_status concatenate(const stream_plan *plan, rank_part **sorted, size_t n, kt_tables **out)
{
    int64_t origin = INT64_MAX;
    for (size_t i = 0; i < n; i++) origin = sorted[i]->origin < origin ? sorted[i]->origin : origin;
    kt_status st = KT_OK;
    for (size_t i = 0; i < n && st == KT_OK; i++) {
        if (!sorted[i]->selected) continue;
        for (size_t k = 0; k < 2 && plan->origin_tables[k] && st == KT_OK; k++)
            st = kt_tables_rebase_us(sorted[i]->tables, plan->origin_tables[k], "ts", sorted[i]->origin, origin);
        if (st == KT_OK) st = kt_tables_append(out, sorted[i]->tables);
        sorted[i]->tables = NULL;
    }
    return st;
}

static int exit_code(const cli_command *cmd, kt_status st)
{
    cli_say_status(cmd->name, st);
    return st == KT_OK ? 0 : st == KT_ENOMEM ? 1 : (int)st;
}

/* The command's own reduce over the selected ranks' partials, in rank
 * order, after checking a selected step exists in one of them; the exit
 * code.                                                                  */
static int reduce_partials(const stream_run *s, rank_part **sorted, size_t n, kt_tables **out)
{
    const kt_tables **partials = calloc(n ? n : 1, sizeof *partials);
    const kt_table **steps = calloc(n ? n : 1, sizeof *steps);
    size_t k = 0;
    for (size_t i = 0; partials && steps && i < n; i++)
        if (sorted[i]->selected) {
            steps[k] = kt_tables_find(sorted[i]->tables, "steps");
            partials[k++] = sorted[i]->tables;
        }
    int64_t step = selected_step(s);
    int rc = !partials || !steps ? exit_code(s->cmd, KT_ENOMEM) : step >= 0 ? cli_check_step(s->cmd, step, steps, k) : 0;
    if (!rc) rc = exit_code(s->cmd, s->cmd->reduce(s->ctx, s->state, partials, k, out));
    free(partials);
    free(steps);
    return rc;
}

static int reduce(const stream_run *s, rank_part **sorted, size_t n, kt_tables **out)
{
    if (s->cmd->reduce) return reduce_partials(s, sorted, n, out);
    return exit_code(s->cmd, concatenate(plan_of(s->cmd), sorted, n, out));
}

/* Largest file first, each to the least loaded process: balanced by size
 * and the same on every process (they all list the same files).          */
static int *assign_owners(const kt_trace_file *f, size_t n, int nproc)
{
    int *owner = calloc(n ? n : 1, sizeof *owner);
    uint64_t *load = calloc((size_t)nproc, sizeof *load);
    bool *done = calloc(n ? n : 1, sizeof *done);
    for (size_t k = 0; owner && load && done && k < n; k++) {
        size_t big = n;
        for (size_t i = 0; i < n; i++)
            if (!done[i] && (big == n || f[i].bytes > f[big].bytes)) big = i;
        int least = 0;
        for (int p = 1; p < nproc; p++) least = load[p] < load[least] ? p : least;
        owner[big] = least;
        load[least] += f[big].bytes;
        done[big] = true;
    }
    free(load);
    free(done);
    return owner;
}

/* Process 0 receives every other process's parts; false when a process's
 * bytes do not decode (reported).                                        */
static bool gather_parts(stream_run *s)
{
    unsigned char *mine = NULL, *all = NULL;
    size_t len = 0, *lens = calloc((size_t)group->size, sizeof *lens);
    bool ok = lens && stream_parts_encode(s->parts, s->owner, s->nfiles, s->me, &mine, &len);
    ok = !group->gather(ok ? mine : NULL, ok ? len : 0, &all, lens) && ok;
    size_t at = 0;
    for (int p = 0; ok && p < group->size && s->me == 0; p++) {
        if (p && !stream_parts_decode(all + at, lens[p], s->owner, s->nfiles, p, s->parts)) {
            fprintf(stderr, "kineta: the partial results of process %d are damaged\n", p);
            ok = false;
        }
        at += lens[p];
    }
    free(mine);
    free(all);
    free(lens);
    return ok;
}

static int map_reduce(const cli_command *cmd, stream_run *s, kt_tables **out)
{
    map_all(s);
    if (group && !gather_parts(s)) return 1;
    if (s->me != 0) return 0; /* process 0 reduces and prints */
    rank_part **sorted = calloc(s->nfiles ? s->nfiles : 1, sizeof *sorted);
    if (!sorted) return 1;
    size_t n = 0;
    for (size_t i = 0; i < s->nfiles; i++)
        if (s->parts[i].present) sorted[n++] = &s->parts[i];
    qsort(sorted, n, sizeof *sorted, by_rank);
    int rc = check_parts(cmd, s, sorted, n);
    if (!rc) rc = reduce(s, sorted, n, out);
    free(sorted);
    return rc;
}

int cli_run_streamed(const cli_command *cmd, const cli_ctx *ctx, void *state, kt_tables **out)
{
    kt_trace_file *files = NULL;
    size_t nfiles = 0;
    kt_diags *failure = NULL;
    kt_load_options lo = { .ranks = ctx->file_ranks, .nranks = ctx->nfile_ranks, .exclude = ctx->exclude,
                           .nexclude = ctx->nexclude };
    kt_status st = kt_trace_files(ctx->paths, ctx->npaths, &lo, &files, &nfiles, &failure);
    if (st != KT_OK) {
        print_file_diags(failure, false);
        kt_diags_free(failure);
        return st == KT_ENOMEM ? 1 : (int)st;
    }
    int *owner = assign_owners(files, nfiles, group ? group->size : 1);
    stream_run s = { .cmd = cmd, .ctx = ctx, .state = state, .files = files, .nfiles = nfiles,
                     .owner = owner, .me = group ? group->rank : 0,
                     .parts = calloc(nfiles ? nfiles : 1, sizeof(rank_part)) };
    int rc = 1;
    if (owner && s.parts && !pthread_mutex_init(&s.lock, NULL)) {
        rc = map_reduce(cmd, &s, out);
        pthread_mutex_destroy(&s.lock);
    }
    for (size_t i = 0; s.parts && i < nfiles; i++) kt_tables_free(s.parts[i].tables);
    free(s.parts);
    free(owner);
    kt_trace_files_free(files, nfiles);
    return rc;
}
