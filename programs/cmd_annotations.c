/*
 * cmd_annotations.c — `kineta annotations`: user-annotation breakdowns
 * (HTA), kernels with their innermost annotation, and kernel time per
 * annotation without double counting nesting.
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

typedef struct annotations_state {
    kt_annotations_options o;
    const char *allow[64];
} annotations_state;

static const cli_option annotations_options[] = {
    { "allow", "PATTERN", "names containing PATTERN never fold into \"others\" (repeatable)" },
    { "num-annotations", "N", "names kept per rank before the tail folds into \"others\" (default 1000)" },
    { "full-names", NULL, "kernels table: full kernel names instead of HTA's short form" },
    { NULL, NULL, NULL },
};
static const char *const annotations_tables[] = { "gpu", "cpu", "kernels", "summary", "diagnostics", NULL };
static const char *const annotations_raw_tables[] = { "kernels", NULL };

static void annotations_init(void *state)
{
    annotations_state *s = state;
    s->o = kt_annotations_defaults();
    s->o.allow = s->allow;
}

static int annotations_parse(void *state, const char *name, const char *value)
{
    annotations_state *s = state;
    long long n;
    if (!strcmp(name, "allow")) {
        if (s->o.nallow == sizeof s->allow / sizeof s->allow[0]) {
            fprintf(stderr, "kineta annotations: at most 64 --allow patterns\n");
            return 2;
        }
        s->allow[s->o.nallow++] = value;
    } else if (!strcmp(name, "num-annotations")) {
        if (!cli_parse_int(name, value, 1, 1000000000, &n)) return 2;
        s->o.num_kernels = (size_t)n;
    } else if (!strcmp(name, "full-names")) {
        s->o.full_names = 1;
    } else {
        return 2;
    }
    return 0;
}

static kt_status annotations_run(const cli_ctx *ctx, const kt_trace *t, void *state, kt_tables **out)
{
    annotations_state *s = state;
    return kt_annotations(t, &ctx->sel, &s->o, out);
}

const cli_command cmd_annotations = {
    .name = "annotations",
    .summary = "user annotations: span statistics, kernels per annotation, exclusive/inclusive GPU time",
    .description = "gpu / cpu: HTA's user-annotation breakdowns (statistics of the spans per\n"
                   "name; nested spans double count there).  kernels: every GPU event with its\n"
                   "innermost GPU annotation (HTA's rule); without GPU annotations, the CPU\n"
                   "annotation around its launching call.  summary: per annotation, the kernel\n"
                   "time inside it, each kernel counted once (inclusive) and the time of the\n"
                   "kernels whose innermost annotation it is (exclusive), kernel counts, % of\n"
                   "all kernel time and of the ProfilerStep time.",
    .options = annotations_options,
    .tables = annotations_tables,
    .raw_tables = annotations_raw_tables,
    .state_size = sizeof(annotations_state),
    .init = annotations_init,
    .parse = annotations_parse,
    .run = annotations_run,
};
