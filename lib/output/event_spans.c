/*
 * event_spans.c — see event_spans.h.
 *
 * Each 64-byte block becomes four bit masks (quotes, backslashes, opening
 * and closing brackets).  Escaped quotes are taken out, the quotes' prefix
 * XOR says which bytes are inside strings, and what remains of the bracket
 * masks is walked bit by bit.  Two facts carry from one block to the next:
 * whether it ends inside a string, and whether its last backslash escapes
 * the next block's first byte.
 *
 * Two block loops share that walk: a portable one (SSE2 masks on x86-64,
 * byte by byte elsewhere, shifts for the prefix XOR) and, chosen at run
 * time on CPUs that have them, one with AVX2 masks (two 32-byte compares
 * per character instead of four) and a carry-less multiply for the prefix
 * XOR (docs/performance.md).
 */
#include "event_spans.h"
#include "model/model.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

typedef struct block_masks {
    uint64_t quote, backslash, open, close;
} block_masks;

#ifdef __SSE2__
static inline uint64_t eq_mask(__m128i a, __m128i b, __m128i c, __m128i d, __m128i want)
{
    uint64_t m0 = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(a, want));
    uint64_t m1 = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(b, want));
    uint64_t m2 = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(c, want));
    uint64_t m3 = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(d, want));
    return m0 | m1 << 16 | m2 << 32 | m3 << 48;
}

static inline block_masks masks_of(const char *p)
{
    __m128i a = _mm_loadu_si128((const __m128i *)p), b = _mm_loadu_si128((const __m128i *)(p + 16));
    __m128i c = _mm_loadu_si128((const __m128i *)(p + 32)), d = _mm_loadu_si128((const __m128i *)(p + 48));
    const __m128i lower = _mm_set1_epi8(0x20); /* '[' | 0x20 == '{', ']' | 0x20 == '}' */
    __m128i la = _mm_or_si128(a, lower), lb = _mm_or_si128(b, lower);
    __m128i lc = _mm_or_si128(c, lower), ld = _mm_or_si128(d, lower);
    return (block_masks){ eq_mask(a, b, c, d, _mm_set1_epi8('"')), eq_mask(a, b, c, d, _mm_set1_epi8('\\')),
                          eq_mask(la, lb, lc, ld, _mm_set1_epi8('{')), eq_mask(la, lb, lc, ld, _mm_set1_epi8('}')) };
}
#else
static inline block_masks masks_of(const char *p)
{
    block_masks m = { 0 };
    for (unsigned i = 0; i < 64; i++) {
        uint64_t bit = (uint64_t)1 << i;
        char ch = p[i];
        if (ch == '"') m.quote |= bit;
        else if (ch == '\\') m.backslash |= bit;
        else if (ch == '{' || ch == '[') m.open |= bit;
        else if (ch == '}' || ch == ']') m.close |= bit;
    }
    return m;
}
#endif

/* Bytes escaped by a backslash: each backslash not itself escaped escapes
 * the next byte.  Backslashes are rare in traces: a loop over them.      */
static inline uint64_t escaped_bytes(uint64_t backslash, bool *carry)
{
    uint64_t escaped = 0;
    if (*carry) {
        escaped = 1;
        backslash &= ~(uint64_t)1;
    }
    *carry = false;
    while (backslash) {
        unsigned i = (unsigned)__builtin_ctzll(backslash);
        if (i == 63) {
            *carry = true;
            break;
        }
        escaped |= (uint64_t)2 << i;
        backslash &= ~((uint64_t)3 << i);
    }
    return escaped;
}

/* Bit i set when an odd number of bits at or below i are set in x. */
static inline uint64_t prefix_xor(uint64_t x)
{
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    return x;
}

typedef kt_spans_walker walker;

static __attribute__((noinline)) bool grow_spans(kt_spans *v)
{
    size_t cap = v->cap ? 2 * v->cap : 4096;
    kt_span *grown = realloc(v->s, cap * sizeof *grown);
    if (!grown) return false;
    v->s = grown, v->cap = cap;
    return true;
}

/* Inline but for the rare growth: a call per event made the block loops
 * rebuild their vector constants after it.                               */
static inline __attribute__((always_inline)) bool push_span(kt_spans *v, size_t start, size_t end)
{
    if (v->n == v->cap && !grow_spans(v)) return false;
    v->s[v->n++] = (kt_span){ start, end };
    return true;
}

/* The quotes of a block that open or close strings: escaped ones out. */
static inline __attribute__((always_inline)) uint64_t string_quotes(walker *w, block_masks m)
{
    if (m.backslash || w->escape_carry) m.quote &= ~escaped_bytes(m.backslash, &w->escape_carry);
    return m.quote;
}

/* The brackets of the 64 bytes at p (text[base, base + 64)) outside
 * strings (inside: the in-string bits), bytes at or past w->close left
 * (near_close false: the caller knows the block ends before w->close). */
static inline __attribute__((always_inline)) void walk_brackets(walker *w, const char *p, size_t base,
                                                                block_masks m, uint64_t inside, bool near_close)
{
    w->in_string = inside >> 63;
    uint64_t brackets = (m.open | m.close) & ~inside;
    if (near_close && base + 64 > w->close) {
        w->close_in_string = inside >> (w->close - base) & 1;
        brackets &= ((uint64_t)1 << (w->close - base)) - 1;
    }
    while (brackets) {
        unsigned i = (unsigned)__builtin_ctzll(brackets);
        brackets &= brackets - 1;
        if (m.open >> i & 1) {
            if (w->depth == 1) w->obj = p[i] == '{' ? base + i : SIZE_MAX; /* an array value: no object */
            w->depth++;
        } else if (--w->depth < 1 ||
                   (w->depth == 1 && p[i] == '}' && w->out && !push_span(w->out, w->obj, base + i + 1))) {
            w->broken = true;
            return;
        }
    }
}

static inline __attribute__((always_inline)) void walk_block(walker *w, const char *p, size_t base)
{
    block_masks m = masks_of(p);
    uint64_t in = w->in_string ? ~(uint64_t)0 : 0;
    walk_brackets(w, p, base, m, prefix_xor(string_quotes(w, m)) ^ in, true);
}

/* Whole blocks from at while they lie in text (the bytes [base, len)),
 * start at or before close and end at or before stop; returns where it
 * stopped.                                                               */
static size_t walk_portable(walker *w, const char *text, size_t base, size_t len, size_t at, size_t stop)
{
    for (; at + 64 <= len && at <= w->close && at + 64 <= stop && !w->broken; at += 64)
        walk_block(w, text + (at - base), at);
    return at;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define HAVE_AVX2_WALK 1

#define AVX2_TARGET __attribute__((target("avx2,pclmul")))

AVX2_TARGET static inline uint64_t eq_mask_avx2(__m256i lo, __m256i hi, __m256i want)
{
    uint64_t l = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(lo, want));
    uint64_t h = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(hi, want));
    return l | h << 32;
}

/* A constant the compiler must keep in a register: left to itself, gcc
 * rebuilt all six in every block (10 of ~100 instructions a block).   */
#define PINNED(v) __asm__("" : "+x"(v))

typedef struct avx2_consts {
    __m256i lower, quote, backslash, open, close;
    __m128i ones;
} avx2_consts;

AVX2_TARGET static inline __attribute__((always_inline)) void walk_block_avx2(walker *w, const char *p, size_t at,
                                                                              const avx2_consts *k, bool near_close)
{
    __m256i lo = _mm256_loadu_si256((const __m256i *)p), hi = _mm256_loadu_si256((const __m256i *)(p + 32));
    __m256i llo = _mm256_or_si256(lo, k->lower), lhi = _mm256_or_si256(hi, k->lower);
    block_masks m = { eq_mask_avx2(lo, hi, k->quote), eq_mask_avx2(lo, hi, k->backslash),
                      eq_mask_avx2(llo, lhi, k->open), eq_mask_avx2(llo, lhi, k->close) };
    uint64_t quotes = string_quotes(w, m);
    /* prefix XOR: a carry-less multiply by all ones */
    uint64_t inside = (uint64_t)_mm_cvtsi128_si64(
        _mm_clmulepi64_si128(_mm_set_epi64x(0, (long long)quotes), k->ones, 0));
    walk_brackets(w, p, at, m, inside ^ (w->in_string ? ~(uint64_t)0 : 0), near_close);
}

AVX2_TARGET static size_t walk_avx2(walker *w, const char *text, size_t base, size_t len, size_t at, size_t stop)
{
    avx2_consts k = { .lower = _mm256_set1_epi8(0x20), /* '[' | 0x20 == '{', ']' | 0x20 == '}' */
                      .quote = _mm256_set1_epi8('"'), .backslash = _mm256_set1_epi8('\\'),
                      .open = _mm256_set1_epi8('{'), .close = _mm256_set1_epi8('}'),
                      .ones = _mm_set1_epi8((char)0xff) };
    PINNED(k.lower);
    PINNED(k.quote);
    PINNED(k.backslash);
    PINNED(k.open);
    PINNED(k.close);
    PINNED(k.ones);
    /* A copy the compiler may keep in registers: through w, each span
     * stored (size_t fields too) made it reload the walker's fields.   */
    walker l = *w;
    /* Blocks that end before the ']' (it lies in text: so do they) need
     * no look for it; the one or two after them do.                      */
    size_t plain = l.close < stop ? l.close : stop;
    for (; at + 64 <= plain && !l.broken; at += 64) walk_block_avx2(&l, text + (at - base), at, &k, false);
    size_t last = len - 64 < l.close ? len - 64 : l.close; /* len >= 64 here */
    for (; at <= last && at + 64 <= stop && !l.broken; at += 64) walk_block_avx2(&l, text + (at - base), at, &k, true);
    *w = l;
    return at;
}
#endif

bool kt_spans_simd_available(kt_spans_simd simd)
{
#ifdef HAVE_AVX2_WALK
    if (simd == KT_SPANS_AVX2) {
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("pclmul");
    }
#endif
    return simd == KT_SPANS_PORTABLE;
}

/* The block loop the public calls without _using take. */
static kt_spans_simd fastest_simd(void)
{
    return kt_spans_simd_available(KT_SPANS_AVX2) ? KT_SPANS_AVX2 : KT_SPANS_PORTABLE;
}

/* The walker over the whole blocks of [at, stop) before the byte at
 * close, text holding the bytes [base, len), with the block loop simd
 * picks; where it stopped.  With stop past close: on to close and the
 * byte at it.                                                           */
static size_t walk_to(kt_spans_simd simd, walker *w, const char *text, size_t base, size_t len, size_t at,
                      size_t stop)
{
#ifdef HAVE_AVX2_WALK
    if (simd == KT_SPANS_AVX2 && len >= 64 && kt_spans_simd_available(simd))
        at = walk_avx2(w, text, base, len, at, stop);
#else
    (void)simd;
#endif
    at = walk_portable(w, text, base, len, at, stop);
    if (stop > w->close && at <= w->close && !w->broken) { /* the last bytes, padded: text may end there */
        char tail[64] = { 0 };
        memcpy(tail, text + (at - base), len - at < 64 ? len - at : 64);
        walk_block(w, tail, at);
        at += 64;
    }
    return at;
}

/* The walker over text[at, w->close) and the byte at close; false when
 * the brackets do not balance.                                           */
static bool walk(kt_spans_simd simd, walker *w, const char *text, size_t len, size_t at)
{
    walk_to(simd, w, text, 0, len, at, SIZE_MAX);
    return !w->broken && !w->close_in_string;
}

bool kt_find_event_spans_using(kt_spans_simd simd, const char *text, size_t len, size_t open, size_t close,
                               kt_spans *out)
{
    kt_spans_walk w;
    if (!kt_spans_walk_start_using(simd, &w, text, len, open, close, out)) return false;
    kt_spans_walk_on(&w, SIZE_MAX);
    return kt_spans_walk_ok(&w);
}

bool kt_spans_walk_start_using(kt_spans_simd simd, kt_spans_walk *w, const char *text, size_t len, size_t open,
                               size_t close, kt_spans *out)
{
    out->n = 0;
    *w = (kt_spans_walk){ .text = text, .len = len, .at = open + 1, .simd = simd,
                          .state = { .close = close, .out = out, .depth = 1 } };
    w->done = open >= close || close >= len || (text && (text[open] != '[' || text[close] != ']'));
    w->state.broken = w->done;
    return !w->done;
}

bool kt_spans_walk_start(kt_spans_walk *w, const char *text, size_t len, size_t open, size_t close, kt_spans *out)
{
    return kt_spans_walk_start_using(fastest_simd(), w, text, len, open, close, out);
}

/* Whole blocks only until the end: a piece that ends inside a block
 * leaves it for the next call, which reads it whole.                     */
bool kt_spans_walk_on(kt_spans_walk *w, size_t upto)
{
    if (w->done) return false;
    size_t stop = upto > w->state.close ? SIZE_MAX : upto;
    w->at = walk_to(w->simd, &w->state, w->text, w->base, w->len, w->at, stop);
    w->done = w->state.broken || w->at > w->state.close;
    return !w->state.broken;
}

bool kt_spans_walk_piece(kt_spans_walk *w, const char *piece, size_t base, size_t n, size_t upto)
{
    w->text = piece, w->base = base, w->len = base + n;
    return kt_spans_walk_on(w, upto);
}

bool kt_spans_walk_ok(const kt_spans_walk *w)
{
    return w->done && !w->state.broken && !w->state.close_in_string && w->state.depth == 1;
}

size_t kt_object_start_before_using(kt_spans_simd simd, const char *text, size_t len, size_t from, size_t to,
                                    int depth)
{
    if (from > to || to >= len || (depth != 1 && depth != 2)) return SIZE_MAX;
    walker w = { .close = to, .depth = depth, .obj = SIZE_MAX };
    return walk(simd, &w, text, len, from) && w.depth == 2 ? w.obj : SIZE_MAX;
}

size_t kt_object_start_before(const char *text, size_t len, size_t from, size_t to, int depth)
{
    return kt_object_start_before_using(fastest_simd(), text, len, from, to, depth);
}

bool kt_find_event_spans(const char *text, size_t len, size_t open, size_t close, kt_spans *out)
{
    return kt_find_event_spans_using(fastest_simd(), text, len, open, close, out);
}

bool kt_spans_reserve(kt_spans *v, size_t n)
{
    if (n <= v->cap) return true;
    kt_span *s = kt_alloc_written(n * sizeof *s);
    if (!s) return false;
    if (v->n) memcpy(s, v->s, v->n * sizeof *s);
    free(v->s);
    v->s = s, v->cap = n;
    return true;
}

void kt_spans_free(kt_spans *v)
{
    free(v->s);
    *v = (kt_spans){ 0 };
}
