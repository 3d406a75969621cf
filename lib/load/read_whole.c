/*
 * read_whole.c — a plain file's bytes for the readers that hold their input
 * whole (rocprofv3 CSV, XSpace protobufs, JAX's trace.json; rocprofv3 JSON
 * streams a plain file instead, json_stream.h), read into memory sized
 * from the file once.
 *
 * Why read, not map: a mapped file that another process truncates while
 * it loads faults (SIGBUS) at the first access past its new end, and the
 * library may not install signal handlers; even privately copied pages of
 * a mapping are taken away by a truncation.  A read only comes up short:
 * the reader then sees the file end there and says what it recovered.
 * Why sized once, in huge pages: growing a buffer by doubling copies it
 * and faults its pages in one at a time; here they are faulted in by one
 * call, 2 MiB at a time where the kernel allows, then filled by read(2),
 * and the reader's walk over them misses the TLB 512 times less (on the
 * benchmark VM that made the read as fast end to end as the mapping it
 * replaces: docs/formats.md, Speed).  The readers scan past a value's end
 * by up to KT_WIN_PAD bytes: those follow the text as zeros.
 */
#include "load_internal.h"

#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Fresh writable memory for n bytes, its pages faulted in at once: huge
 * pages where the kernel gives them (kt_prefault asks for them over the
 * aligned range made here), else small ones.  *size: what to unmap.    */
static char *alloc_pages(size_t n, size_t *size)
{
    const size_t huge = (size_t)2 << 20;
    size_t total = (n + huge - 1) / huge * huge;
    char *m = mmap(NULL, total + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return NULL;
    char *d = (char *)(((uintptr_t)m + huge - 1) & ~(uintptr_t)(huge - 1)); /* huge pages need aligned ranges */
    if (d > m) munmap(m, (size_t)(d - m));
    munmap(d + total, (size_t)(m + huge - d));
    kt_prefault(d, total);
    *size = total;
    return d;
}

static bool is_gzip(const char *d, size_t n)
{
    return n >= 2 && (unsigned char)d[0] == 0x1f && (unsigned char)d[1] == 0x8b;
}

const char *kt_read_whole(const char *path, size_t *len, size_t *held_len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0) return NULL;
    char *d = NULL;
    size_t size = 0;
    ptrdiff_t got = -1;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 && (uint64_t)st.st_size < SIZE_MAX / 2 &&
        (d = alloc_pages((size_t)st.st_size + KT_WIN_PAD, &size))) {
        int err;
        size_t n = kt_pread_full(fd, d, (size_t)st.st_size, 0, &err); /* fewer: the file was cut short since */
        got = err ? -1 : (ptrdiff_t)n;
    }
    close(fd);
    if (got <= 0 || is_gzip(d, (size_t)got)) { /* gzip: inflated by the reading path; errors: reported there */
        if (d) munmap(d, size);
        return NULL;
    }
    memset(d + got, 0, (size_t)st.st_size - (size_t)got + KT_WIN_PAD); /* zero already, unless cut short */
    *len = (size_t)got;
    *held_len = size;
    return d;
}

void kt_free_whole(const char *data, size_t held_len)
{
    if (data) munmap((void *)data, held_len);
}
