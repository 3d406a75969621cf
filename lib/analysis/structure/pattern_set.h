/*
 * pattern_set.h — the per-rank partial result of `kineta patterns` (the
 * map step): every distinct launch sequence (root op name, then the names
 * of the GPU events under it in start order), its count and durations, and
 * which events each occurrence covers (for the overlay).
 *
 * Patterns are kept as name-id sequences in one flat array and found again
 * through a hash of the sequence, so gathering is linear in the events
 * under the roots; the reduce step (patterns.c) turns sets into rows.
 */
#ifndef KT_PATTERN_SET_H
#define KT_PATTERN_SET_H

#include "model/model.h"

typedef struct kt_pattern {
    size_t seq, len;            /* seqs[seq .. seq+len): root name, GPU names */
    int64_t count;
    int64_t gpu_dur, cpu_dur;   /* ns */
} kt_pattern;

typedef struct kt_pattern_occ {
    uint32_t pattern, ev;       /* ev is in an occurrence of pattern */
} kt_pattern_occ;

typedef struct kt_pattern_set {
    kt_pattern *p;
    size_t n, cap;
    uint32_t *seqs;
    size_t nseqs, capseqs;
    uint32_t *slots;            /* open addressing: pattern index or KT_NONE */
    size_t nslots;
    kt_pattern_occ *occ;
    size_t nocc, capocc;
    bool failed;                /* an allocation failed */
} kt_pattern_set;

/* The pattern with sequence ids[0..n), added with count 0 if new; its
 * index, or KT_NONE on allocation failure.                               */
uint32_t kt_pattern_find_or_add(kt_pattern_set *s, const uint32_t *ids, size_t n);
void kt_pattern_add_occ(kt_pattern_set *s, uint32_t pattern, uint32_t ev);
void kt_pattern_set_free(kt_pattern_set *s);

#endif
