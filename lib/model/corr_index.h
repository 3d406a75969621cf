/*
 * corr_index.h — a set of events by correlation id: which of them carries
 * a given id (the first, when several do).
 *
 * Why its own structure: linking launch calls and their GPU work is a
 * join on correlation ids, done once while a foreign trace is built
 * (model_build.c, its ac2g flows) and once per index (correlation.c).
 * CUPTI and roctracer number calls in turn, so a rank's ids are dense or
 * come in dense clusters (one per capture or iteration): a table of pages
 * of consecutive ids, allocated only where ids are, is filled and read in
 * id order with no probing.  Ids too sparse for pages use a hash map.
 */
#ifndef KT_CORR_INDEX_H
#define KT_CORR_INDEX_H

#include "i64map.h"

typedef struct kt_corr_index {
    int64_t min;
    size_t ndir;      /* entries of dir; 0: the map is used                  */
    uint32_t *dir;    /* (id - min) >> KT_CORR_PAGE_BITS -> page, KT_NONE   */
    uint32_t *pages;  /* page p holds ids' values at p << KT_CORR_PAGE_BITS */
    kt_i64map map;
} kt_corr_index;

/* Index the events ev[0..n) by their corr column values (all >= 0): the
 * value of an id is the ordinal k of the first ev[k] with it.  False on
 * OOM (kt_corr_index_free is still safe).                               */
bool kt_corr_index_init(kt_corr_index *ci, const int32_t *corr, const uint32_t *ev, size_t n);
/* The ordinal indexed for corr, or KT_NONE. */
uint32_t kt_corr_index_get(const kt_corr_index *ci, int64_t corr);
void kt_corr_index_free(kt_corr_index *ci);

#endif
