/*
 * kernel_category.h — what kind of work a GPU kernel does, from its name.
 *
 * The public side (kt_categorizer_*, kt_categorize) is in kineta.h; this
 * header gives analyses category indexes so they can group by category
 * without comparing strings per event.
 */
#ifndef KT_KERNEL_CATEGORY_H
#define KT_KERNEL_CATEGORY_H

#include "kineta.h"

#include <stddef.h>
#include <stdint.h>

/* Fixed indexes; rule categories follow in order of first appearance. */
enum { KT_CAT_OTHER = 0, KT_CAT_MEMCPY = 1, KT_CAT_MEMSET = 2 };

/* Category of a GPU event: the event kind decides memcpy/memset, the rules
 * decide kernels.  kind is the event's kt_kind.                            */
uint32_t kt_category_of(const kt_categorizer *c, const char *name, uint8_t kind);
const char *kt_category_name(const kt_categorizer *c, uint32_t idx);

/* kt_category_of for events, memoized per name: analyses categorize
 * millions of events whose names repeat.  NULL on allocation failure.     */
struct kt_rank;
struct kt_strtab;
typedef struct kt_category_cache kt_category_cache;
kt_category_cache *kt_category_cache_new(const kt_categorizer *c, const struct kt_strtab *strs);
void kt_category_cache_free(kt_category_cache *cc);
uint32_t kt_event_category(kt_category_cache *cc, const struct kt_rank *r, uint32_t ev);

#endif
