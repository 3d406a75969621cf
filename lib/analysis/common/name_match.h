/*
 * name_match.h — whether a name contains a substring (or passes any test
 * of its text), decided once per distinct name.
 *
 * Analyses ask it of every event (the annotation that selects the critical
 * path's window, the op a pattern query names, NCCL kernels in the perf
 * model): millions of events but a few thousand names, and a strstr over
 * long kernel names per event cost 5-10% of those analyses.  The answer is
 * remembered per string-table id.
 */
#ifndef KT_NAME_MATCH_H
#define KT_NAME_MATCH_H

#include "model/model.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct kt_name_match {
    const kt_strtab *strs;
    const char *sub;
    uint8_t *memo; /* by name id: 0 not yet known, 1 contains, 2 does not */
    size_t n;      /* ids the memo covers (0: no memo)                    */
} kt_name_match;

/* For names of strs containing sub (which must outlive m).  False when the
 * memo could not be allocated: kt_name_contains then answers by strstr
 * each time.                                                              */
bool kt_name_match_init(kt_name_match *m, const kt_strtab *strs, const char *sub);
/* The memo's miss: strstr, the answer remembered. */
bool kt_name_contains_slow(kt_name_match *m, uint32_t name);
/* False for KT_NONE.  Inline: the critical path asks it of every event. */
static inline bool kt_name_contains(kt_name_match *m, uint32_t name)
{
    if (name != KT_NONE && name < m->n && m->memo[name]) return m->memo[name] == 1;
    return kt_name_contains_slow(m, name);
}
void kt_name_match_free(kt_name_match *m);

/* The same memo for any test of a name's text (launch APIs, communication
 * kernels): the answer per string-table id.                              */
typedef struct kt_name_test {
    const kt_strtab *strs;
    bool (*test)(const char *name);
    uint8_t *memo; /* by name id: 0 not yet known, 1 passes, 2 does not */
} kt_name_test;

/* False without memory for the memo (then nothing to free). */
bool kt_name_test_init(kt_name_test *m, const kt_strtab *strs, bool (*test)(const char *name));
/* False for KT_NONE.  Inline: analyses ask it of every event.            */
static inline bool kt_name_passes(kt_name_test *m, uint32_t name)
{
    if (name == KT_NONE) return false;
    if (!m->memo[name]) m->memo[name] = m->test(kt_strtab_get(m->strs, name)) ? 1 : 2;
    return m->memo[name] == 1;
}
void kt_name_test_free(kt_name_test *m);

#endif
