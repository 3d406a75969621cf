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

#endif
