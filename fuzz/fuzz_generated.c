/*
 * fuzz_generated.c — the structure-aware harness (make fuzz): the input
 * bytes drive fuzz/trace_gen.c, which writes a valid Kineto trace with
 * adversarial values, and that trace goes through the whole pipeline
 * (fuzz/pipeline.c), so the time is spent past the parser.
 */
#include "pipeline.h"
#include "trace_gen.h"

#include <stdio.h>
#include <stdlib.h>

static char scratch[4096];

static void remove_scratch(void) { fz_remove_scratch(scratch); }

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    if (fz_make_scratch(scratch, sizeof scratch) != 0) abort();
    atexit(remove_scratch);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t len = 0;
    char *trace = fz_generate_trace(data, size, &len);
    if (!trace) return 0;
    char why[1024];
    if (fz_pipeline((const uint8_t *)trace, len, scratch, why, sizeof why)) {
        fprintf(stderr, "kineta invariant broken: %s\n", why);
        free(trace);
        abort();
    }
    free(trace);
    return 0;
}
