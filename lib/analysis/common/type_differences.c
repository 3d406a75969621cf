/*
 * type_differences.c — footnotes where kineta's communication rule and a
 * reference tool's disagree (type_differences.h).
 */
#include "analysis/common/type_differences.h"

#include "analysis/common/kernel_type.h"

#include <stdlib.h>

/* Kernels one rule calls communication and the other does not. */
typedef struct disagreement {
    size_t kernels;
    double us;
    uint32_t example; /* name id of the longest one */
    double example_us;
} disagreement;

/* Per name id: 0 not looked at, 1 agree, 2 kineta only, 3 reference only. */
static uint8_t verdict_of(const char *name, kt_reference ref)
{
    bool ours = kt_is_comm_kernel_name(name);
    bool theirs = ref == KT_REF_HTA ? kt_is_hta_comm_name(name) : kt_is_tracelens_comm_name(name);
    return ours == theirs ? 1 : ours ? 2 : 3;
}

static void count_rank(const kt_trace *t, const kt_rank *r, kt_reference ref, uint8_t *memo, size_t nmemo,
                       disagreement *d)
{
    for (uint32_t ev = 0; ev < r->ev.n; ev++) {
        uint32_t name = r->ev.name[ev];
        if (r->ev.kind[ev] != KT_K_KERNEL || name == KT_NONE || name >= nmemo) continue;
        if (!memo[name]) memo[name] = verdict_of(kt_strtab_get(t->strs, name), ref);
        if (memo[name] == 1) continue;
        disagreement *x = &d[memo[name] - 2];
        double us = (double)(r->ev.dur[ev] > 0 ? r->ev.dur[ev] : 0) / 1e3;
        x->kernels++;
        x->us += us;
        if (x->kernels == 1 || us > x->example_us) x->example = name, x->example_us = us;
    }
}

kt_status kt_note_comm_differences(kt_table *tb, const kt_trace *t, const kt_rank_sel *sel, kt_reference ref,
                                   bool ref_rules)
{
    size_t nmemo = kt_strtab_count(t->strs);
    uint8_t *memo = calloc(nmemo ? nmemo : 1, 1);
    if (!memo) return KT_ENOMEM;
    disagreement d[2] = { { 0 }, { 0 } };
    for (size_t i = 0; i < t->nranks; i++)
        if (kt_rank_selected(sel, t->ranks[i]->rank)) count_rank(t, t->ranks[i], ref, memo, nmemo, d);
    free(memo);
    const char *tool = ref == KT_REF_HTA ? "HTA" : "TraceLens";
    const char *flag = ref == KT_REF_HTA ? "--hta-compat" : "--tracelens";
    for (int k = 0; k < 2; k++) {
        if (!d[k].kernels) continue;
        const char *comm_by = k == 0 ? "kineta" : tool, *not_by = k == 0 ? tool : "kineta";
        kt_table_add_note(tb, "%zu kernel%s (%.3f us, e.g. %s) %s communication to %s, not to %s; this table "
                          "follows %s (%s)",
                          d[k].kernels, d[k].kernels == 1 ? "" : "s", d[k].us, kt_strtab_get(t->strs, d[k].example),
                          d[k].kernels == 1 ? "is" : "are", comm_by, not_by, ref_rules ? tool : "kineta",
                          ref_rules ? flag : "docs/differences.md");
    }
    return kt_table_failed(tb) ? KT_ENOMEM : KT_OK;
}
