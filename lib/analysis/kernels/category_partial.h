/*
 * category_partial.h — `categories` of one or more ranks as a mergeable
 * partial: per (launcher, kernel name) pair its category, count and total,
 * keyed by strings (string ids differ between ranks loaded apart), so the
 * partials of ranks mapped one at a time (--stream-ranks, MPI) merge into
 * exactly the pairs one pass over every rank finds.  kt_categories itself
 * maps each rank and merges (categories.c).
 */
#ifndef KT_CATEGORY_PARTIAL_H
#define KT_CATEGORY_PARTIAL_H

#include "analysis/kernels/kernel_stats.h"
#include "kineta.h"
#include "model/model.h"

/* Totals of one (launcher, kernel name) pair; strings are ids in strs. */
typedef struct kt_cpair {
    uint32_t launcher;     /* (unlinked), the op or the launching call */
    uint32_t kind;         /* kt_launch_kind of the launcher           */
    uint32_t launcher_idx; /* index in the partial's launchers         */
    uint32_t name;
    uint32_t category;     /* its name                                 */
    uint32_t category_idx; /* its index in the categorizer (tie-break) */
    uint64_t count;
    int64_t sum;           /* ns */
} kt_cpair;

typedef struct kt_cpartial {
    kt_strtab *strs;
    kt_group_map launchers; /* kind << 32 | launcher → launcher index   */
    kt_group_map index;     /* launcher index << 32 | name → pair       */
    kt_cpair *p;            /* in order of first sight                  */
    size_t n, cap;
} kt_cpartial;

bool kt_cpartial_init(kt_cpartial *p);
void kt_cpartial_free(kt_cpartial *p);
/* Adds count kernels totalling sum ns to the pair (launcher, kind, name);
 * a new pair takes this category (a pair's category is its first).     */
bool kt_cpartial_add(kt_cpartial *p, const char *launcher, uint32_t kind, const char *name, const char *category,
                     uint32_t category_idx, uint64_t count, int64_t sum);
/* The partial as one table (what travels between processes) and back
 * (merged into p; KT_EINPUT when ts holds no categories partial).       */
kt_status kt_cpartial_to_tables(const kt_cpartial *p, kt_tables **out);
kt_status kt_cpartial_add_tables(kt_cpartial *p, const kt_tables *ts);

#endif
