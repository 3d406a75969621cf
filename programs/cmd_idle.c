/*
 * cmd_idle.c — `kineta idle`: why each GPU stream is idle (host_wait,
 * kernel_wait, other), per rank and stream (HTA idle time breakdown).
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

#define MAX_STREAMS 256

typedef struct idle_state {
    kt_idle_options o;
    int64_t streams[MAX_STREAMS];
} idle_state;

static const cli_option idle_options[] = {
    { "consecutive-kernel-delay", "US", "gaps shorter than this are kernel_wait (default 30 µs)" },
    { "streams", "LIST", "only these streams, e.g. 7,20" },
    { NULL, NULL, NULL },
};
static const char *const idle_tables[] = { "idle_time", "interval_stats", NULL };

static void idle_init(void *state)
{
    idle_state *s = state;
    s->o = kt_idle_defaults();
}

static bool parse_streams(idle_state *s, const char *v)
{
    while (*v && s->o.nstreams < MAX_STREAMS) {
        char *end;
        long long x = strtoll(v, &end, 10);
        if (end == v || (*end && *end != ',')) return false;
        s->streams[s->o.nstreams++] = x;
        v = *end ? end + 1 : end;
    }
    s->o.streams = s->streams;
    return !*v && s->o.nstreams > 0;
}

static int idle_parse(void *state, const char *name, const char *value)
{
    idle_state *s = state;
    if (!strcmp(name, "consecutive-kernel-delay"))
        return cli_parse_double(name, value, &s->o.consecutive_kernel_delay_us) ? 0 : 2;
    if (!strcmp(name, "streams")) {
        if (parse_streams(s, value)) return 0;
        fprintf(stderr, "kineta: --streams expects a list of stream ids like 7,20, got '%s'\n", value);
    }
    return 2;
}

static kt_status idle_run(const cli_ctx *ctx, const kt_trace *t, void *state, kt_tables **out)
{
    return kt_idle(t, &ctx->sel, &((idle_state *)state)->o, out);
}

const cli_command cmd_idle = {
    .name = "idle",
    .summary = "why each GPU stream is idle: host_wait, kernel_wait, other (HTA idle time breakdown)",
    .description = "Each gap between consecutive kernels/memcpys/memsets of a stream is host_wait\n"
                   "when the CPU launched the next one only after the previous had finished,\n"
                   "kernel_wait when shorter than --consecutive-kernel-delay, else other.",
    .options = idle_options,
    .tables = idle_tables,
    .state_size = sizeof(idle_state),
    .init = idle_init,
    .parse = idle_parse,
    .run = idle_run,
};
