/*
 * kernel_type.h — HTA's kernel classification (spec A3): COMPUTATION,
 * COMMUNICATION, MEMORY, OTHER; and its memcpy/memset sub-kinds.
 *
 * Temporal breakdown, kernel breakdown and overlap all partition GPU time by
 * these types, so the rule lives in one place.  Under hta_compat it is HTA's
 * name-only regex rule; by default the event kind decides memory vs kernel
 * and current NCCL/RCCL names count as communication.
 */
#ifndef KT_KERNEL_TYPE_H
#define KT_KERNEL_TYPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
    KT_TYPE_COMPUTATION = 0,
    KT_TYPE_COMMUNICATION = 1,
    KT_TYPE_MEMORY = 2,
    KT_TYPE_OTHER = 3
} kt_kernel_type;

/* kind: the event's kt_kind (KT_K_KERNEL, KT_K_MEMCPY, ...). */
kt_kernel_type kt_kernel_type_of(const char *name, uint8_t kind, bool hta_compat);
const char *kt_kernel_type_name(kt_kernel_type t);
/* HTA get_memory_kernel_type: "Memset", "Memcpy Unknown" or the first 11
 * characters ("Memcpy DtoH", ...). Writes into buf (>= 16 bytes).          */
const char *kt_memory_kernel_type(const char *name, char *buf, size_t n);
/* HTA shorten_name: drop "->", template <...> and argument (...) groups,
 * keep the last space-separated word ("void at::native::foo<T>(x)" →
 * "at::native::foo"); memcpy/memset names stay whole.  Writes into buf.    */
const char *kt_shorten_name(const char *name, char *buf, size_t n);
/* Name of a communication kernel (nccl/rccl/hccl). */
bool kt_is_comm_kernel_name(const char *name);
/* The reference tools' rules (docs/differences.md): HTA's COMMUNICATION
 * names (^nccl, ^hip, ^hccl, ncclKernel), TraceLens's communication
 * bucket (nccl, rccl or cross_device_reduce, any case).                  */
bool kt_is_hta_comm_name(const char *name);
bool kt_is_tracelens_comm_name(const char *name);

/* kt_kernel_type_of for events, memoized per name: analyses classify
 * millions of events whose names repeat, and string matching would dominate
 * their cost.  NULL on allocation failure.                                 */
struct kt_rank;
struct kt_strtab;
typedef struct kt_type_cache kt_type_cache;
kt_type_cache *kt_type_cache_new(const struct kt_strtab *strs, bool hta_compat);
void kt_type_cache_free(kt_type_cache *c);
kt_kernel_type kt_event_kernel_type(kt_type_cache *c, const struct kt_rank *r, uint32_t ev);

#endif
