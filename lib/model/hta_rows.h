/*
 * hta_rows.h — the rows HTA keeps of a rank, read as the rank is loaded.
 *
 * Why apart from hta_compat.c: --hta-compat's first pass (which rows HTA
 * keeps, their times rounded to µs, what its step filter needs of each)
 * reads most columns of every row.  Run after the load, on columns long
 * out of cache, it cost a sixth of the load's wall time; the loader's range
 * workers run it on each range they parse while its columns are still in
 * cache, and join the ranges' results in file order.  A rank loaded another
 * way (one thread, the cache, another format) is read after the load by the
 * same code.  Either way the rows, their order and their times are those of
 * one pass over the whole rank.
 */
#ifndef KT_HTA_ROWS_H
#define KT_HTA_ROWS_H

#include "model.h"

typedef struct kt_hta_launch {
    int64_t ts;
    int32_t corr;
} kt_hta_launch;

/* Times the step filter needs: the earliest complete event's ts (the
 * origin kt_trace_align takes), the earliest CPU row's and the latest
 * ProfilerStep's start.                                                  */
typedef struct kt_hta_times {
    int64_t first, first_cpu, last_step;
} kt_hta_times;

/* Kept rows [lo, hi) read without rounding: their range wrote no ts as a
 * float, another range of the rank did.  Their ts are whole µs, which
 * rounding keeps: only their durs are left to round.                    */
typedef struct kt_hta_raw {
    size_t lo, hi;
} kt_hta_raw;

struct kt_hta_rows {
    uint32_t *id;             /* the rows HTA keeps (A2.2), ascending       */
    uint8_t *gpu;             /* per kept row: 1 on HTA's GPU side          */
    size_t n, cap;
    bool borrowed;            /* id, gpu lie in another's arrays            */
    size_t ncpu;              /* kept rows on the CPU side                  */
    kt_hta_launch *launches;  /* the CPU rows with a correlation            */
    size_t nlaunches, cap_launches;
    bool gpu_none;            /* some GPU row has no correlation (corr -1)  */
    kt_hta_times at;
    kt_hta_raw *raw;
    size_t nraw, cap_raw;
    size_t rows;              /* the rank's rows read: [0, rows)            */
    int64_t cut;              /* after kt_hta_rows_finish: CPU rows starting
                                 before it stay (A2.11)                    */
};

/* r's rows read into r->hta_rows (made, or reused and emptied), each kept
 * row's times rounded when r->ns_resolution; on two threads when threads
 * >= 2 and r is big.  False when memory ran out.                        */
bool kt_hta_rows_read(kt_rank *r, const kt_strtab *strs, int threads);
/* src's rows read after dst's, as kt_rank_append(dst, src) appends them:
 * src's rows are dst's from the rows read so far on.  False when memory
 * ran out.                                                              */
bool kt_hta_rows_join(kt_rank *dst, const kt_rank *src);
/* The rows read as one pass over r gives them (rows read unrounded are
 * rounded if r->ns_resolution), and the cut.                            */
void kt_hta_rows_finish(kt_rank *r);
void kt_hta_rows_free(kt_hta_rows *k);

/* ^ProfilerStep#(\d+), as HTA matches step names (A3). */
bool kt_hta_is_step_name(const char *s);

#endif
