/*
 * perf_meta.h — the process and thread names TraceLens shows for a group's
 * first call: of the op's pid the first process_name and process_labels'
 * "labels", of its pid and tid the first thread_name (metadata events, in
 * event order).
 *
 * Resolved once per rank into a table by (pid, tid): traces repeat these
 * events (an MTIA trace has 62 k process_name events for 3 processes), and
 * scanning them for every new group was 70 % of kineta perf there.
 */
#ifndef KT_PERF_META_H
#define KT_PERF_META_H

#include "analysis/perf/perf_groups.h"
#include "model/model.h"

typedef struct kt_perf_meta_entry {
    int32_t pid, tid;         /* the event columns (tid 0: a process's)    */
    char *val;                /* owned; NULL: none found                   */
} kt_perf_meta_entry;

typedef struct kt_perf_meta_list {
    kt_perf_meta_entry *e;    /* sorted by (pid, tid), one each            */
    size_t n, cap;
} kt_perf_meta_list;

typedef struct kt_perf_meta {
    kt_perf_meta_list process_names, thread_names, labels;
} kt_perf_meta;

/* The names of r's metadata events; false on OOM (m then freeable). */
bool kt_perf_meta_collect(const kt_trace *t, const kt_rank *r, kt_perf_meta *m);
/* Copies of op's names into g's (still unset) process_name, thread_name
 * and process_label; a copy that fails to allocate stays NULL.           */
void kt_perf_meta_fill(const kt_perf_meta *m, const kt_rank *r, uint32_t op, kt_pgroup *g);
void kt_perf_meta_free(kt_perf_meta *m);

#endif
