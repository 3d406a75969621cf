/*
 * kernel_stats.h — grouping GPU events by a key and summarizing durations.
 *
 * Every kernel table (per name, per launcher, per category, per rank) is
 * "assign each event a group, then count/sum/min/max/mean/median/std per
 * group".  Doing it with a dense group id and one counting sort keeps it
 * linear and allocation-per-call rather than per-event.
 */
#ifndef KT_KERNEL_STATS_H
#define KT_KERNEL_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* 64-bit key → dense group id (0, 1, 2, ... in order of first sight). */
typedef struct kt_group_map {
    uint32_t *slots;  /* open addressing: id + 1, 0 = empty */
    size_t nslots;
    uint64_t *keys;   /* keys[id] */
    size_t n, cap;
} kt_group_map;

/* Group id of key, assigned on first sight; UINT32_MAX on allocation failure. */
uint32_t kt_group_id(kt_group_map *m, uint64_t key);
/* Group id of key, or UINT32_MAX if never seen. */
uint32_t kt_group_find(const kt_group_map *m, uint64_t key);
void kt_group_map_free(kt_group_map *m);

/* Grow *p (elements of elem bytes, capacity *cap) to hold need elements,
 * doubling; false on allocation failure (*p unchanged).                  */
bool kt_grow(void **p, size_t *cap, size_t need, size_t elem);

/* (group, duration) samples collected while scanning events. */
typedef struct kt_samples {
    uint32_t *group;
    int64_t *dur;     /* ns */
    size_t n, cap;
} kt_samples;

/* Room for need samples in all (one allocation when the count is known). */
bool kt_samples_reserve(kt_samples *s, size_t need);
/* Inline: analyses push one sample per kernel. */
static inline bool kt_samples_push(kt_samples *s, uint32_t group, int64_t dur)
{
    if (s->n == s->cap && !kt_samples_reserve(s, s->n + 1)) return false;
    s->group[s->n] = group;
    s->dur[s->n++] = dur;
    return true;
}
void kt_samples_free(kt_samples *s);

typedef struct kt_dur_stats {
    uint64_t count;
    int64_t sum, min, max;   /* ns */
    double mean, median, std; /* ns; std is the sample std (0 for one sample) */
} kt_dur_stats;

/* Statistics of every group in [0, ngroups) (calloc'd array; a group with
 * no samples has count 0), computed as pandas does (kt_describe_values).
 * NULL on allocation failure.                                             */
kt_dur_stats *kt_group_stats(const kt_samples *s, size_t ngroups);

#endif
