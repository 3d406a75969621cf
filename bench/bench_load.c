/*
 * bench_load.c — kineta-bench: how fast kt_load reads traces, and at what
 * memory cost.  Prints one line per run: wall and CPU seconds, MB/s of JSON,
 * events/s, peak RSS and the model's bytes per event.
 *
 *   kineta-bench [--jobs N] [--repeat R] PATH...
 */
#include "model/model.h"
#include "../programs/cli_timings.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static long peak_rss_kb(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss;
}

/* Bytes the event columns, typed args and strings of the trace occupy. */
static double model_bytes(const kt_trace *t, uint64_t *events, uint64_t *json)
{
    const kt_events *c = &t->ranks[0]->ev; /* for the columns' element sizes */
    const size_t per_event = sizeof *c->ts + sizeof *c->dur + sizeof *c->name + sizeof *c->cat +
                             sizeof *c->ph + sizeof *c->kind + sizeof *c->nargs + sizeof *c->thread +
                             sizeof *c->corr + sizeof *c->ext_id +
                             sizeof *c->argi + sizeof *c->args_at;
    double bytes = 0;
    *events = *json = 0;
    for (size_t k = 0; k < t->nranks; k++) {
        const kt_rank *r = t->ranks[k];
        bytes += (double)r->ev.n * (double)per_event + (double)r->nargs * (double)sizeof(kt_arg);
        *events += r->ev.n;
        *json += r->json_bytes;
    }
    return bytes + (double)kt_strtab_bytes(t->strs);
}

int main(int argc, char **argv)
{
    kt_load_options opt = { .size = sizeof opt };
    int repeat = 1;
    int first = 1;
    for (; first < argc && !strncmp(argv[first], "--", 2); first += 2) {
        if (first + 1 >= argc) break;
        if (!strcmp(argv[first], "--jobs")) opt.jobs = atoi(argv[first + 1]);
        else if (!strcmp(argv[first], "--repeat")) repeat = atoi(argv[first + 1]);
    }
    if (first >= argc) {
        fprintf(stderr, "usage: kineta-bench [--jobs N] [--repeat R] PATH...\n");
        return 2;
    }
    for (int i = 0; i < repeat; i++) {
        kt_trace *t;
        kt_diags *fail;
        double w0 = cli_wall_seconds(), c0 = cli_cpu_seconds();
        kt_status st = kt_load((const char *const *)argv + first, (size_t)(argc - first), &opt, &t, &fail);
        double wall = cli_wall_seconds() - w0, cpu = cli_cpu_seconds() - c0;
        if (st != KT_OK) {
            fprintf(stderr, "kineta-bench: load failed: %s\n", kt_status_str(st));
            kt_diags_free(fail);
            return 1;
        }
        uint64_t events, json;
        double model = model_bytes(t, &events, &json);
        printf("jobs=%d wall=%.3fs cpu=%.3fs json=%.0fMB %.0fMB/s %.2fMevents/s events=%llu "
               "model=%.0fB/event peak_rss=%.0fMB (%.2fx json)\n",
               opt.jobs, wall, cpu, (double)json / 1e6, (double)json / 1e6 / wall,
               (double)events / 1e6 / wall, (unsigned long long)events, model / (double)events,
               (double)peak_rss_kb() / 1e3, (double)peak_rss_kb() * 1e3 / (double)json);
        kt_trace_free(t);
    }
    return 0;
}
