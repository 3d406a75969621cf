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
 */
#include "model.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

void kt_prefault(void *p, size_t n)
{
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
