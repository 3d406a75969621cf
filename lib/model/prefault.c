/*
 * prefault.c — fresh memory faulted in by the kernel in one call.
 *
 * On the target machines the first touch of a fresh page costs more than
 * parsing the bytes that fill it (../shared/spec/performance-notes.md: ~1
 * ms per MiB).  Asking the kernel for the pages of a large destination
 * before writing it (MADV_POPULATE_WRITE, Linux 5.14) is ~1.5x cheaper
 * than one fault per page; older kernels just take the faults.  On a
 * PVM guest it was 2.3x cheaper (400 MB: 0.53 s against
 * 1.23 s), and the analyses' arrays of one entry per event, allocated
 * after the load, were the report's largest cost after their work.
 * Where the range spans whole 2 MiB pages they are asked for as huge pages
 * first: the readers that size the model before filling it took 0.73-0.91x
 * the CPU per event with it (bench/readers.sh, quiet 2-core VM; rocprofv3
 * CSV 0.46 -> 0.33 s), the Kineto loader the same.
 */
#include "model.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

/* The 2 MiB-aligned part of [p, p + n) asked for in huge pages, where the
 * kernel gives them to those who ask (transparent_hugepage=madvise, the
 * Debian default): one fault and one TLB entry for 512 small pages. */
static void advise_huge(void *p, size_t n)
{
#ifdef MADV_HUGEPAGE
    const uintptr_t huge = (uintptr_t)2 << 20;
    uintptr_t from = ((uintptr_t)p + huge - 1) & ~(huge - 1), to = ((uintptr_t)p + n) & ~(huge - 1);
    if (to > from) (void)madvise((void *)from, to - from, MADV_HUGEPAGE);
#else
    (void)p;
    (void)n;
#endif
}

void kt_prefault(void *p, size_t n)
{
    advise_huge(p, n);
#ifdef MADV_POPULATE_WRITE
    const uintptr_t page = 4096;
    uintptr_t from = ((uintptr_t)p + page - 1) & ~(page - 1), to = ((uintptr_t)p + n) & ~(page - 1);
    if (to > from + 16 * page) (void)madvise((void *)from, to - from, MADV_POPULATE_WRITE);
#else
    (void)p;
    (void)n;
#endif
}

void *kt_alloc_written(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (p) kt_prefault(p, n);
    return p;
}
