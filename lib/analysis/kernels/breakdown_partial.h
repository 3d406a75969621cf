/*
 * breakdown_partial.h — HTA's kernel breakdown of one or more ranks as a
 * mergeable partial.  Everything the breakdown computes is per rank (the
 * type/overlap sweep, the top kernels folded per rank and type); only the
 * tables gather ranks: "kernel_type" sums the ranks' classes,
 * "distribution" looks a top kernel up on every rank.  So a partial is the
 * ranks' class times and kernel rows with names as strings (string ids
 * differ between ranks loaded apart), and ranks mapped one at a time
 * (--stream-ranks, MPI) give the tables one pass gives.  kt_breakdown
 * itself maps each rank into one (breakdown.c).
 */
#ifndef KT_BREAKDOWN_PARTIAL_H
#define KT_BREAKDOWN_PARTIAL_H

#include "analysis/common/kernel_type.h"
#include "analysis/kernels/kernel_stats.h"
#include "kineta.h"
#include "model/model.h"

#define KT_BD_NTYPES 3       /* COMPUTATION, COMMUNICATION, MEMORY: bits 1, 2, 4 */
#define KT_BD_OTHERS KT_NONE /* name of the folded row */

/* One row of the per-kernel table (and of the distribution table). */
typedef struct kt_bd_row {
    uint32_t name;           /* id in the partial's strs; KT_BD_OTHERS */
    int rank;
    kt_kernel_type type;
    kt_dur_stats st;         /* median unused */
} kt_bd_row;

typedef struct kt_bd_rows {
    kt_bd_row *r;
    size_t n, cap;
} kt_bd_rows;

/* A rank's GPU time per class (type bitmask) and the classes met. */
typedef struct kt_bd_rank {
    int rank;
    int64_t ns[1 << KT_BD_NTYPES];
    bool seen[1 << KT_BD_NTYPES];
} kt_bd_rank;

typedef struct kt_bd_partial {
    kt_strtab *strs;
    kt_bd_rank *ranks;       /* in rank order */
    size_t nranks, cap_ranks;
    kt_bd_rows kernels;      /* rows of "kernels" (after folding)      */
    kt_bd_rows all;          /* real stats of every (rank, type, name) */
} kt_bd_partial;

bool kt_bd_partial_init(kt_bd_partial *p);
void kt_bd_partial_free(kt_bd_partial *p);
bool kt_bd_rows_push(kt_bd_rows *v, kt_bd_row row);
bool kt_bd_add_rank(kt_bd_partial *p, const kt_bd_rank *r);
/* The partial as tables (what travels between processes) and back, merged
 * into p (KT_EINPUT when ts holds no breakdown partial).                 */
kt_status kt_bd_partial_to_tables(const kt_bd_partial *p, kt_tables **out);
kt_status kt_bd_partial_add_tables(kt_bd_partial *p, const kt_tables *ts);

#endif
