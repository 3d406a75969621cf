/*
 * fuzz_pipeline.c — libFuzzer harness for the whole pipeline (make fuzz):
 * the input bytes are a trace file, run through load, every analysis,
 * every printer and every file output (fuzz/pipeline.c).  A broken
 * invariant aborts like a crash, so libFuzzer keeps and minimizes it.
 */
#include "pipeline.h"

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
    char why[1024];
    if (fz_pipeline(data, size, scratch, why, sizeof why)) {
        fprintf(stderr, "kineta invariant broken: %s\n", why);
        abort();
    }
    return 0;
}
