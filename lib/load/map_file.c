/*
 * map_file.c — a plain file's bytes for the readers that hold their input
 * whole (rocprofv3 JSON and CSV, XSpace protobufs), mapped from the page
 * cache instead of read into fresh memory.
 *
 * Why: reading a whole file into a buffer pays the first touch of every
 * fresh page and the copy into cold memory; on the benchmark host that is
 * 0.8-0.9 s of CPU for 147 MB, where mapping the page cache's pages with
 * MAP_POPULATE (one call fills the page tables) costs 0.12 s and streaming
 * through the Kineto parser's warm window 0.06 s.  The readers scan past
 * a value's end by up to KT_WIN_PAD bytes, so the mapping sits in an
 * anonymous reservation whose pages after the file's are zero.
 * The price: a file cut short by another process while it loads faults
 * (SIGBUS) where a read would see it end; gzip files, pipes and buffers
 * are read (foreign.c).
 */
#include "load_internal.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static size_t page_up(size_t n)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    return (n + page - 1) / page * page;
}

const char *kt_map_whole(const char *path, size_t *len, size_t *map_len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0) return NULL;
    char *base = MAP_FAILED;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
        size_t n = (size_t)st.st_size, total = page_up(n + KT_WIN_PAD);
        base = mmap(NULL, total, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (base != MAP_FAILED &&
            mmap(base, page_up(n), PROT_READ, MAP_PRIVATE | MAP_FIXED | MAP_POPULATE, fd, 0) == MAP_FAILED) {
            munmap(base, total);
            base = MAP_FAILED;
        }
        if (base != MAP_FAILED && n >= 2 && (unsigned char)base[0] == 0x1f && (unsigned char)base[1] == 0x8b) {
            munmap(base, total); /* gzip: inflated by the reading path */
            base = MAP_FAILED;
        }
        if (base != MAP_FAILED) *len = n, *map_len = total;
    }
    close(fd);
    return base == MAP_FAILED ? NULL : base;
}

void kt_unmap_whole(const char *data, size_t map_len)
{
    if (data) munmap((void *)data, map_len);
}
