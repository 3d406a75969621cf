/*
 * fuzz_parse.c — libFuzzer harness for the loader (make fuzz).
 *
 * Whatever the bytes, kt_load_buffer must return a status without crashing,
 * leaking or invoking undefined behaviour, and a loaded trace must be
 * internally consistent (counts add up, typed args in range).
 */
#include "model/model.h"

#include <stdlib.h>
#include <string.h>

static void check(const kt_trace *t)
{
    for (size_t k = 0; k < t->nranks; k++) {
        const kt_rank *r = t->ranks[k];
        uint64_t sum = 0;
        for (int c = 0; c < 128; c++) sum += r->by_ph[c];
        if (sum != r->total_events || r->ev.n > r->total_events) abort();
        for (size_t i = 0; i < r->ev.n; i++) {
            if (r->ev.nargs[i] && (size_t)r->ev.argi[i] + r->ev.nargs[i] > r->nargs) abort();
            (void)kt_strtab_get(t->strs, r->ev.name[i]);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    kt_load_options opt = { .size = sizeof opt, .jobs = 1 };
    kt_trace *t = NULL;
    kt_diags *fail = NULL;
    kt_status st = kt_load_buffer("fuzz-rank3.json", data, size, &opt, &t, &fail);
    if (st == KT_OK) {
        check(t);
        kt_trace_free(t);
    } else {
        if (t) abort();
        kt_diags_free(fail);
    }
    return 0;
}
