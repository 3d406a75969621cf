/*
 * i64map.h — open-addressing hash map from int64 keys (correlation ids,
 * flow ids) to uint32 values.
 *
 * Joining launch calls to GPU events by correlation id is a hash join: one
 * O(n) pass instead of sorting both sides.  Sized once for the number of
 * keys; never grows.
 */
#ifndef KT_I64MAP_H
#define KT_I64MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct kt_i64map {
    int64_t *key;   /* INT64_MIN = empty slot */
    uint32_t *val;
    size_t mask;
} kt_i64map;

/* Room for up to n keys; false on OOM (kt_i64map_free is still safe). */
bool kt_i64map_init(kt_i64map *m, size_t n);
/* The slots kt_i64map_init allocates for n keys (12 bytes each). */
size_t kt_i64map_capacity(size_t n);
void kt_i64map_free(kt_i64map *m);
/* The value slot of key, inserted with value dflt when absent. */
uint32_t *kt_i64map_slot(kt_i64map *m, int64_t key, uint32_t dflt);
/* The value of key, or dflt when absent. */
uint32_t kt_i64map_get(const kt_i64map *m, int64_t key, uint32_t dflt);

#endif
