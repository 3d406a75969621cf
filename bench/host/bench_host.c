/*
 * bench_host.c — what this host charges for the two things every load
 * needs, measured without kineta: fresh memory for the model, and the
 * trace's bytes.  The loader's targets are ratios to `cat`, and these are
 * the floors under them (docs/performance.md, "The floors"):
 *
 *   fresh   two threads each touch MB/2 of fresh anonymous memory, one
 *           fault per page, then asked for all at once first
 *           (MADV_POPULATE_WRITE, what kt_prefault does);
 *   read    two threads read half of FILE each, every 64th byte looked
 *           at: pread into a warm 1 MiB window, then through a mapping;
 *   classify  two threads read FILE with pread and find every quote,
 *           backslash and structural byte 64 bytes at a time (AVX2), the
 *           first stage of a SIMD JSON parser and nothing else.
 *
 * Built by `make build/bench_host`, run by bench/host.sh.
 * usage: bench_host MB FILE
 */
#include <fcntl.h>
#include <immintrin.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define THREADS 2
#define WINDOW ((size_t)1 << 20)

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

typedef struct job {
    int fd;
    uint64_t from, to;   /* file bytes */
    size_t fresh;        /* bytes of fresh memory */
    int how;             /* fresh: populate first; read: mapped */
    uint64_t result;     /* so the compiler keeps the loops */
} job;

static void *touch_fresh(void *arg)
{
    job *j = arg;
    char *p = mmap(NULL, j->fresh, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return NULL;
#ifdef MADV_POPULATE_WRITE
    if (j->how) (void)madvise(p, j->fresh, MADV_POPULATE_WRITE);
#endif
    memset(p, 1, j->fresh);
    j->result = (uint64_t)p[j->fresh - 1];
    munmap(p, j->fresh);
    return NULL;
}

static uint64_t sum_lines(const char *b, size_t n)
{
    uint64_t s = 0;
    for (size_t i = 0; i < n; i += 64) s += (unsigned char)b[i];
    return s;
}

static void *read_half(void *arg)
{
    job *j = arg;
    if (j->how) {
        size_t page = 4096, start = (size_t)j->from & ~(page - 1), len = (size_t)(j->to - start);
        char *m = mmap(NULL, len, PROT_READ, MAP_PRIVATE, j->fd, (off_t)start);
        if (m == MAP_FAILED) return NULL;
        j->result = sum_lines(m + (j->from - start), (size_t)(j->to - j->from));
        munmap(m, len);
        return NULL;
    }
    char *w = aligned_alloc(64, WINDOW);
    for (uint64_t off = j->from; w && off < j->to;) {
        ssize_t n = pread(j->fd, w, j->to - off < WINDOW ? (size_t)(j->to - off) : WINDOW, (off_t)off);
        if (n <= 0) break;
        j->result += sum_lines(w, (size_t)n);
        off += (uint64_t)n;
    }
    free(w);
    return NULL;
}

__attribute__((target("avx2"))) static uint64_t eq_mask(__m256i lo, __m256i hi, char c)
{
    __m256i v = _mm256_set1_epi8(c);
    return (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(lo, v)) |
           (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(hi, v)) << 32;
}

/* Structural bytes outside strings in one 64-byte block (escapes are
 * counted, not resolved: the floor, not a parser).                       */
__attribute__((target("avx2,pclmul"))) static uint64_t classify_block(const char *b, uint64_t *in_string)
{
    __m256i lo = _mm256_load_si256((const __m256i *)b), hi = _mm256_load_si256((const __m256i *)(b + 32));
    uint64_t quote = eq_mask(lo, hi, '"') & ~eq_mask(lo, hi, '\\');
    uint64_t structural = eq_mask(lo, hi, ':') | eq_mask(lo, hi, ',') | eq_mask(lo, hi, '{') |
                          eq_mask(lo, hi, '}') | eq_mask(lo, hi, '[') | eq_mask(lo, hi, ']');
    uint64_t inside = (uint64_t)_mm_cvtsi128_si64(
                          _mm_clmulepi64_si128(_mm_set_epi64x(0, (long long)quote), _mm_set1_epi8(-1), 0)) ^
                      *in_string;
    *in_string = (uint64_t)((int64_t)inside >> 63);
    return (uint64_t)__builtin_popcountll(structural & ~inside);
}

static void *classify_half(void *arg)
{
    job *j = arg;
    char *w = aligned_alloc(64, WINDOW);
    uint64_t in_string = 0;
    for (uint64_t off = j->from; w && off < j->to;) {
        ssize_t n = pread(j->fd, w, j->to - off < WINDOW ? (size_t)(j->to - off) : WINDOW, (off_t)off);
        if (n <= 0) break;
        for (ssize_t i = 0; i + 64 <= n; i += 64) j->result += classify_block(w + i, &in_string);
        off += (uint64_t)n;
    }
    free(w);
    return NULL;
}

/* Wall seconds of THREADS threads running fn on halves of the work. */
static double run(void *(*fn)(void *), int fd, uint64_t bytes, size_t fresh, int how, uint64_t *result)
{
    job jobs[THREADS];
    pthread_t t[THREADS];
    double t0 = now();
    for (int k = 0; k < THREADS; k++) {
        jobs[k] = (job){ .fd = fd, .from = bytes / THREADS * (uint64_t)k,
                         .to = k + 1 == THREADS ? bytes : bytes / THREADS * (uint64_t)(k + 1),
                         .fresh = fresh / THREADS, .how = how };
        pthread_create(&t[k], NULL, fn, &jobs[k]);
    }
    *result = 0;
    for (int k = 0; k < THREADS; k++) {
        pthread_join(t[k], NULL);
        *result += jobs[k].result;
    }
    return now() - t0;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: bench_host MB FILE\n");
        return 2;
    }
    size_t fresh = (size_t)atol(argv[1]) << 20;
    int fd = open(argv[2], O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        perror(argv[2]);
        return 1;
    }
    uint64_t bytes = (uint64_t)st.st_size, r;
    printf("fresh %zu MB, faulted page by page: %.3f s\n", fresh >> 20, run(touch_fresh, -1, 0, fresh, 0, &r));
    printf("fresh %zu MB, populated first:      %.3f s\n", fresh >> 20, run(touch_fresh, -1, 0, fresh, 1, &r));
    printf("read %.0f MB with pread:              %.3f s\n", (double)bytes / 1e6, run(read_half, fd, bytes, 0, 0, &r));
    printf("read %.0f MB through a mapping:       %.3f s\n", (double)bytes / 1e6, run(read_half, fd, bytes, 0, 1, &r));
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("pclmul")) {
        double s = run(classify_half, fd, bytes, 0, 0, &r);
        printf("classify %.0f MB (AVX2):              %.3f s (%llu structural bytes)\n", (double)bytes / 1e6, s,
               (unsigned long long)r);
    }
    close(fd);
    return 0;
}
