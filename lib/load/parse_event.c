/*
 * parse_event.c — one traceEvents object into the rank's columns.
 *
 * The event's members may come in any order and its kind depends on ph and
 * cat.  One pass over the object locates the members; args are parsed in
 * that same pass when ph and cat came first (as Kineto writes them), else
 * afterwards from their byte range; numbers are parsed where they stand.
 * Conversions: times exactly to ns, pid/tid to numbers or interned
 * strings, args either into the typed args the
 * analyses use (model.h: kt_arg_key) or, for counters, instants and CUPTI
 * range events, every arg under its own interned key.  Whatever is not
 * converted stays reachable through the raw args byte range.  Kineto's own
 * layout has fast paths (its members' order and blanks, each category's
 * args as the previous event of it had them); tests/test_load_fast.c
 * checks they give what the general loop gives.
 */
#include "load_internal.h"

#include <stddef.h>
#include <string.h>

typedef struct member {
    const char *v, *vend; /* v NULL: absent                                   */
    unsigned flags;       /* string flags                                     */
    bool parsed;          /* num holds the value (ns for ts/dur)              */
    bool rounded;         /* ts/dur: sub-ns digits were rounded               */
    int64_t num;
} member;

/* The kind of an event as last computed, from the ph and cat seen then. */
typedef struct kind_memo {
    const char *ph_v, *cat_v; /* the members it was computed from (NULL: none) */
    char ph;                  /* ph_of then                                     */
    kt_kind kind;
    uint32_t cat, raw;
    int slot;                 /* the parser's kinds[] slot, -1: not memoized */
} kind_memo;

typedef struct raw_event {
    member ph, cat, name, ts, dur, pid, tid, id, args;
    bool pushed;      /* the event row exists (its args were parsed in place) */
    bool kind_known;  /* kind holds the kind for the current ph and cat      */
    kind_memo kind;
} raw_event;

static void raw_event_init(raw_event *e)
{
    /* only v matters until a member is seen (a memset here showed up in profiles) */
    e->ph.v = e->cat.v = e->name.v = e->ts.v = e->dur.v = NULL;
    e->pid.v = e->tid.v = e->id.v = e->args.v = NULL;
    e->pushed = e->kind_known = false;
}

/* Which member of raw_event a key names, or NULL. */
static member *member_of(raw_event *e, const char *k, size_t n)
{
    switch (n) {
    case 2:
        if (k[0] == 'p' && k[1] == 'h') return &e->ph;
        if (k[0] == 't' && k[1] == 's') return &e->ts;
        if (k[0] == 'i' && k[1] == 'd') return &e->id;
        break;
    case 3:
        if (!memcmp(k, "cat", 3)) return &e->cat;
        if (!memcmp(k, "dur", 3)) return &e->dur;
        if (!memcmp(k, "pid", 3)) return &e->pid;
        if (!memcmp(k, "tid", 3)) return &e->tid;
        break;
    case 4:
        if (!memcmp(k, "name", 4)) return &e->name;
        if (!memcmp(k, "args", 4)) return &e->args;
        break;
    default: break;
    }
    return NULL;
}

static bool is_string(const member *m) { return m->v && *m->v == '"'; }

/* ---- scalar members ------------------------------------------------------------ */
static void note_rounded(kt_parser *p, const member *m, const char *what)
{
    kt_pdiag_note(p, KT_PD_TIME_ROUNDED, kt_offset_of(p, m->v),
                  "%s \"%.*s\" has sub-nanosecond digits (rounded to the nearest ns)", what,
                  (int)(m->vend - m->v > 40 ? 40 : m->vend - m->v), m->v);
}

/* A time in µs (number, or a number in a string) → ns.  False if unusable. */
static bool time_ns_slow(kt_parser *p, const member *m, const char *what, int64_t *ns)
{
    if (m->parsed) {
        if (m->rounded) note_rounded(p, m, what);
        *ns = m->num;
        return true;
    }
    const char *s = m->v, *end = m->vend;
    if (is_string(m)) {
        s++;
        end--;
    }
    bool rounded, overflow;
    const char *after = kt_parse_us_as_ns(s, end, ns, &rounded, &overflow);
    int64_t off = kt_offset_of(p, m->v);
    if (!after || after != end || overflow) {
        kt_pdiag_note(p, KT_PD_BAD_FIELD, off, "event at byte %lld has an unusable %s \"%.*s\"",
                      (long long)off, what, (int)(m->vend - m->v > 40 ? 40 : m->vend - m->v), m->v);
        return false;
    }
    if (rounded) note_rounded(p, m, what);
    return true;
}

/* Out of line: time_in_range stays small enough to be inlined. */
static __attribute__((noinline)) void note_out_of_range(kt_parser *p, const member *m, const char *what)
{
    int64_t off = kt_offset_of(p, m->v);
    kt_pdiag_note(p, KT_PD_BAD_FIELD, off, "event at byte %lld has an unusable %s \"%.*s\" (out of range)",
                  (long long)off, what, (int)(m->vend - m->v > 40 ? 40 : m->vend - m->v), m->v);
}

/* Times the analyses can add and subtract in int64 ns without overflow:
 * ts in [-2^61, 2^62) ns (years 1896 to 2116 from the epoch) and dur below
 * 2^60 ns (36 years).  Beyond, a field is unusable, like one that does not
 * parse (the pipeline fuzzer's finding, docs/robustness.md).             */
static inline bool time_in_range(kt_parser *p, const member *m, const char *what, int64_t ns)
{
    bool ok = what[0] == 'd' ? ns < ((int64_t)1 << 60) : ns >= -((int64_t)1 << 61) && ns < ((int64_t)1 << 62);
    if (!ok) note_out_of_range(p, m, what);
    return ok;
}

static inline __attribute__((always_inline)) bool time_ns(kt_parser *p, const member *m, const char *what,
                                                         int64_t *ns)
{
    if (m->parsed && !m->rounded) { /* nearly always: parsed where it stood */
        *ns = m->num;
        return time_in_range(p, m, what, *ns);
    }
    int64_t v = 0; /* not ns: its address taken, the event's ts and dur would live in memory */
    bool ok = time_ns_slow(p, m, what, &v) && time_in_range(p, m, what, v);
    *ns = v;
    return ok;
}

/* pid / tid not parsed where they stood: a string kept as an interned id
 * (KT_STRID_TAG), or a number the fast paths did not read.               */
static __attribute__((noinline)) int64_t thread_id_slow(kt_parser *p, const member *m)
{
    uint32_t id;
    if (is_string(m)) {
        id = kt_intern_json(p, m->v + 1, (size_t)(m->vend - m->v - 2), m->flags);
    } else {
        kt_num n;
        const char *after = kt_parse_number(m->v, m->vend, &n);
        if (after == m->vend && n.kind == KT_NUM_INT) return n.i;
        if (after == m->vend && n.kind == KT_NUM_BIGINT)
            kt_pdiag_note(p, KT_PD_BIGINT, kt_offset_of(p, m->v),
                          "integer beyond int64 in pid/tid (kept as text)");
        id = kt_intern(p, m->v, (size_t)(m->vend - m->v));
    }
    if (id == KT_NONE) p->oom = true;
    return KT_STRID_TAG | id;
}

/* pid / tid: a number, or a string kept as an interned id (KT_STRID_TAG).
 * Inline: nearly always a number parsed where it stood.                  */
static inline int64_t thread_id(kt_parser *p, const member *m)
{
    if (!m->v) return 0;
    return m->parsed ? m->num : thread_id_slow(p, m);
}

/* Flow ids are numbers or numeric strings ("0x1f" in some writers). */
static int64_t flow_id(kt_parser *p, const member *m)
{
    if (!m->v) return -1;
    if (m->parsed) return m->num; /* a plain integer, read by fast_int */
    kt_num n;
    const char *s = m->v, *end = m->vend;
    if (is_string(m)) {
        s++;
        end--;
        if (end - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
            uint64_t v = 0;
            const char *q = s + 2;
            for (; q < end && v < (UINT64_MAX >> 5); q++) {
                int d = (*q >= '0' && *q <= '9') ? *q - '0'
                        : (*q >= 'a' && *q <= 'f') ? *q - 'a' + 10
                        : (*q >= 'A' && *q <= 'F') ? *q - 'A' + 10 : -1;
                if (d < 0) break;
                v = v * 16 + (uint64_t)d;
            }
            if (q == end && v <= INT64_MAX) return (int64_t)v;
        }
    }
    if (kt_number(s, end, &n) == end && n.kind == KT_NUM_INT) return n.i;
    kt_pdiag_note(p, KT_PD_BAD_FIELD, kt_offset_of(p, m->v),
                  "flow event with an unusable id \"%.*s\" (id ignored)",
                  (int)(m->vend - m->v > 40 ? 40 : m->vend - m->v), m->v);
    return -1;
}

/* ---- args ------------------------------------------------------------------- */
typedef enum { AT_NATURAL, AT_FLOAT, AT_RAW, AT_XYZ, AT_CORR, AT_EXT, AT_STREAM } arg_how;
typedef struct arg_spec {
    uint32_t key;
    arg_how how;
} arg_spec;

#define ARG(lit, k, h)                                                                 \
    do {                                                                               \
        if (n == sizeof lit - 1 && memcmp(key, lit, sizeof lit - 1) == 0)              \
            return (arg_spec){ k, h };                                                 \
    } while (0)

/* The args the analyses use (HTA's default set plus kernel launch details). */
static arg_spec typed_arg(const char *key, size_t n)
{
    switch (n) {
    case 3:
        ARG("cid", KT_ARG_CID, AT_NATURAL);
        ARG("Seq", KT_ARG_SEQ, AT_NATURAL);
        break;
    case 4:
        ARG("kind", KT_ARG_KIND, AT_NATURAL);
        ARG("cbid", KT_ARG_CBID, AT_NATURAL);
        ARG("grid", KT_ARG_GRID_X, AT_XYZ);
        ARG("Rank", KT_ARG_RANK, AT_NATURAL);
        ARG("size", KT_ARG_BYTES, AT_NATURAL); /* ROCm copy calls: bytes, as a string */
        break;
    case 5:
        ARG("bytes", KT_ARG_BYTES, AT_NATURAL);
        ARG("block", KT_ARG_BLOCK_X, AT_XYZ);
        ARG("dtype", KT_ARG_DTYPE, AT_NATURAL);
        break;
    case 6:
        ARG("stream", 0, AT_STREAM);
        ARG("device", KT_ARG_DEVICE, AT_NATURAL);
        ARG("queued", KT_ARG_QUEUED, AT_NATURAL);
        ARG("kernel", KT_ARG_KERNEL, AT_NATURAL);
        break;
    case 7: ARG("context", KT_ARG_CONTEXT, AT_NATURAL); break;
    case 9: ARG("Python id", KT_ARG_PYTHON_ID, AT_NATURAL); break;
    case 10: ARG("Group size", KT_ARG_GROUP_SIZE, AT_NATURAL); break;
    case 11:
        ARG("correlation", 0, AT_CORR);
        ARG("External id", 0, AT_EXT);
        break;
    case 12: ARG("warps per SM", KT_ARG_WARPS_PER_SM, AT_FLOAT); break;
    case 13:
        ARG("shared memory", KT_ARG_SHARED_MEMORY, AT_NATURAL);
        ARG("blocks per SM", KT_ARG_BLOCKS_PER_SM, AT_FLOAT);
        ARG("Fwd thread id", KT_ARG_FWD_THREAD_ID, AT_NATURAL);
        ARG("In msg nelems", KT_ARG_IN_MSG_NELEMS, AT_NATURAL);
        ARG("In split size", KT_ARG_IN_SPLIT_SIZE, AT_RAW);
        break;
    case 14:
        ARG("Out msg nelems", KT_ARG_OUT_MSG_NELEMS, AT_NATURAL);
        ARG("Out split size", KT_ARG_OUT_SPLIT_SIZE, AT_RAW);
        ARG("wait_on_stream", KT_ARG_WAIT_ON_STREAM, AT_NATURAL);
        break;
    case 15:
        ARG("Sequence number", KT_ARG_SEQUENCE_NUMBER, AT_NATURAL);
        ARG("Collective name", KT_ARG_COLLECTIVE_NAME, AT_NATURAL);
        ARG("Trace iteration", KT_ARG_TRACE_ITERATION, AT_NATURAL);
        break;
    case 16: ARG("Python parent id", KT_ARG_PYTHON_PARENT_ID, AT_NATURAL); break;
    case 18: ARG("Process Group Name", KT_ARG_PG_NAME, AT_NATURAL); break;
    case 19: ARG("Process Group Ranks", KT_ARG_PG_RANKS, AT_RAW); break;
    case 20: ARG("registers per thread", KT_ARG_REGISTERS_PER_THREAD, AT_NATURAL); break;
    case 23: ARG("memory bandwidth (GB/s)", KT_ARG_MEMORY_BW_GBPS, AT_FLOAT); break;
    case 25:
        ARG("est. achieved occupancy %", KT_ARG_OCCUPANCY_PCT, AT_FLOAT);
        ARG("Process Group Description", KT_ARG_PG_DESC, AT_NATURAL);
        break;
    case 33: ARG("wait_on_cuda_event_record_corr_id", KT_ARG_WAIT_ON_EVENT_RECORD_CORR, AT_NATURAL); break;
    default: break;
    }
    return (arg_spec){ 0, AT_NATURAL };
}

static arg_spec meta_arg(const char *key, size_t n)
{
    ARG("name", KT_ARG_META_NAME, AT_NATURAL);
    ARG("sort_index", KT_ARG_META_SORT_INDEX, AT_NATURAL);
    return (arg_spec){ 0, AT_NATURAL };
}
#undef ARG

/* written_as_float for a ts of more than 16 bytes (any without SSE2);
 * out of line: inlined, its constants took registers on the path every
 * event takes.                                                           */
static __attribute__((noinline)) bool long_written_as_float(const char *c, const char *end)
{
    for (uint64_t w; end - c >= 8 && (memcpy(&w, c, 8), kt_leading_digits(w) == 8);) c += 8;
    for (; c < end; c++)
        if (*c == '.' || *c == 'e' || *c == 'E') return true;
    return false;
}

/* Whether a ts written [c, end) has a '.', 'e' or 'E' (a float). */
static inline bool written_as_float(const char *c, const char *end)
{
#ifdef __SSE2__
    if (end - c <= 16) { /* nearly always: one look at 16 bytes (the window is padded past them) */
        __m128i x = _mm_loadu_si128((const __m128i *)c);
        __m128i marks = _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('.')), /* 'E' | 0x20 is 'e' */
                                     _mm_cmpeq_epi8(_mm_or_si128(x, _mm_set1_epi8(0x20)), _mm_set1_epi8('e')));
        return (unsigned)_mm_movemask_epi8(marks) & ((1u << (end - c)) - 1);
    }
#endif
    return long_written_as_float(c, end);
}

/* HTA (pandas) makes a rank's ts column float, and then rounds its times,
 * when any ts is written as a float or is missing (model.h).  Integer ts
 * (µs traces) never set the flag, so every event comes here.            */
static inline void note_ns_resolution(kt_rank *r, const member *ts)
{
    r->ns_resolution |= !ts->v || written_as_float(ts->v, ts->vend); /* a missing ts is NaN in pandas: float too */
}

static __attribute__((noinline)) void note_too_many_args(kt_parser *p)
{
    kt_pdiag_note(p, KT_PD_TOO_MANY_ARGS, -1,
                  "an event has more than 255 args (the rest are only in the raw args text)");
}

static __attribute__((noinline)) void arg_not_pushed(kt_parser *p)
{
    p->oom = true;
    if (!kt_rank_fits(p->r, 0, 1)) p->full = "typed args";
}

/* Inline: typed args are pushed ~2 per event. */
static inline void push_arg(kt_parser *p, uint32_t key, kt_arg_type t, int64_t i, double f, uint32_t s)
{
    kt_rank *r = p->r;
    if (r->ev.nargs[r->ev.n - 1] == UINT8_MAX) note_too_many_args(p);
    else if (!kt_rank_push_arg(r, key, t, i, f, s)) arg_not_pushed(p);
}

static bool is_literal(const kt_pair *pr, const char *lit, size_t n)
{
    return (size_t)(pr->vend - pr->v) == n && memcmp(pr->v, lit, n) == 0;
}

static int clip(const kt_pair *pr) { return (int)(pr->vend - pr->v > 30 ? 30 : pr->vend - pr->v); }

/* A string arg, or an array/object kept as its raw JSON text. */
static void push_text(kt_parser *p, uint32_t key, const kt_pair *pr)
{
    uint32_t id = *pr->v == '"' ? kt_intern_json(p, pr->v + 1, (size_t)(pr->vend - pr->v - 2), pr->vflags)
                                : kt_intern(p, pr->v, (size_t)(pr->vend - pr->v));
    if (id == KT_NONE) p->oom = true;
    else push_arg(p, key, KT_ARGT_STR, 0, 0, id);
}

static void note_bigint(kt_parser *p, const kt_pair *pr, const char *what)
{
    kt_pdiag_note(p, KT_PD_BIGINT, kt_offset_of(p, pr->v),
                  "integer beyond int64 in args (\"%.*s\": %.*s) %s", (int)pr->klen, pr->key,
                  clip(pr), pr->v, what);
}

/* A number as what it is (int or float); floats where the arg is one. */
static void push_number(kt_parser *p, uint32_t key, const kt_pair *pr, const kt_num *n, bool as_float)
{
    if (n->kind == KT_NUM_BIGINT) note_bigint(p, pr, "stored as a float");
    if (n->kind == KT_NUM_INT && !as_float) push_arg(p, key, KT_ARGT_INT, n->i, 0, 0);
    else push_arg(p, key, KT_ARGT_FLOAT, 0, n->f, 0);
}

/* A value that is not a number: string, array/object (raw text), bool. */
static void push_other(kt_parser *p, uint32_t key, const kt_pair *pr)
{
    if (is_literal(pr, "null", 4)) return;
    if (is_literal(pr, "true", 4) || is_literal(pr, "false", 5))
        push_arg(p, key, KT_ARGT_INT, *pr->v == 't', 0, 0);
    else
        push_text(p, key, pr);
}

/* An integer column (correlation, External id, stream); -1 if none. */
/* An id column's value (model.h: KT_ID_SMALL_MIN). */
static inline void put_id(kt_parser *p, int64_t v, int32_t *col)
{
    if (!kt_rank_id_put(p->r, v, col)) p->oom = true;
}

static int64_t column_int(kt_parser *p, const kt_pair *pr, const kt_num *n)
{
    if (!n) return -1; /* not a number, e.g. ROCm's "stream": "0x0" */
    if (n->kind == KT_NUM_BIGINT) {
        note_bigint(p, pr, "ignored");
        return -1;
    }
    return n->kind == KT_NUM_INT ? n->i : kt_double_to_i64(n->f, -1);
}

/* grid / block: [x, y, z] → three consecutive keys. */
static void push_xyz(kt_parser *p, uint32_t key, const kt_pair *pr)
{
    const char *q = pr->v + 1;
    for (uint32_t i = 0; i < 3; i++) {
        q = kt_skip_ws(q, pr->vend);
        kt_num n;
        const char *after = kt_number(q, pr->vend, &n);
        if (!after || n.kind != KT_NUM_INT) return;
        push_arg(p, key + i, KT_ARGT_INT, n.i, 0, 0);
        q = kt_skip_ws(after, pr->vend);
        if (q < pr->vend && *q == ',') q++;
    }
}

/* Store one wanted arg; n is its value when it is a number, else NULL. */
static void store_arg(kt_parser *p, arg_spec spec, const kt_pair *pr, const kt_num *n)
{
    kt_events *ev = &p->r->ev;
    size_t i = ev->n - 1;
    switch (spec.how) {
    case AT_CORR: put_id(p, column_int(p, pr, n), &ev->corr[i]); return;
    case AT_EXT: put_id(p, column_int(p, pr, n), &ev->ext_id[i]); return;
    case AT_STREAM: {
        int64_t v = column_int(p, pr, n);
        bool fits = v >= INT32_MIN && v <= INT32_MAX;
        p->row_stream = fits ? (int32_t)v : -1;
        if (!fits) push_arg(p, KT_ARG_RAW_STREAM, KT_ARGT_INT, v, 0, 0);
        return;
    }
    case AT_XYZ:
        if (*pr->v == '[') {
            push_xyz(p, spec.key, pr);
            return;
        }
        break;
    case AT_RAW:
        push_text(p, spec.key, pr);
        return;
    default: break;
    }
    if (n) push_number(p, spec.key, pr, n, spec.how == AT_FLOAT);
    else push_other(p, spec.key, pr);
}

/* ARGS_SAME: typed args whose values mostly repeat from one event of the
 * category to the next (a kernel's launch details, a call's cbid), worth
 * remembering (layout_args); ARGS_ALL's (memory instants') do too.       */
typedef enum { ARGS_TYPED, ARGS_META, ARGS_ALL, ARGS_SAME } args_mode;

/* A table (ARGS_TYPED, 0, where not set): one load an event instead of compares. */
static args_mode args_mode_of(kt_kind k)
{
    static const uint8_t mode[KT_K__COUNT] = {
        [KT_K_COUNTER] = ARGS_ALL,   [KT_K_PROFILER_RANGE] = ARGS_ALL, [KT_K_INSTANT] = ARGS_ALL,
        [KT_K_METADATA] = ARGS_META, [KT_K_KERNEL] = ARGS_SAME,        [KT_K_MEMCPY] = ARGS_SAME,
        [KT_K_MEMSET] = ARGS_SAME,   [KT_K_RUNTIME] = ARGS_SAME,
    };
    return (args_mode)mode[k];
}

/* Whether an args key may be one of the shape lists perf reads (model.h,
 * kt_shape_key): escapes could spell one, but not in fewer bytes than the
 * shortest.  Every key read comes here at least once per parser (the
 * layouts remember only keys seen here), each time on indented traces,
 * whose keys with their blanks do not fit a layout slot: hence compares
 * by length, not a search.                                               */
static inline bool may_name_shapes(const kt_pair *pr)
{
    if (pr->klen < KT_SHAPE_KEY_MIN) return false;
    return pr->kflags || kt_shape_key(pr->key, pr->klen);
}

/* What to do with an arg: spec.key 0 and AT_NATURAL means skip it. */
static arg_spec spec_of(kt_parser *p, args_mode mode, const kt_pair *pr)
{
    if (__builtin_expect(!p->r->shape_args, 1)) p->r->shape_args = may_name_shapes(pr);
    if (mode == ARGS_META) return meta_arg(pr->key, pr->klen);
    if (mode != ARGS_ALL) return typed_arg(pr->key, pr->klen);
    uint32_t id = kt_intern_json(p, pr->key, pr->klen, pr->kflags);
    if (id == KT_NONE) p->oom = true;
    if (id == KT_NONE || id > UINT32_MAX - KT_ARG_DYNAMIC) return (arg_spec){ 0, AT_NATURAL };
    return (arg_spec){ KT_ARG_DYNAMIC + id, AT_NATURAL };
}

/* One arg's value at pr->v: parsed in place when wanted, else skipped. */
static kt_scan_res arg_value(kt_parser *p, arg_spec spec, kt_obj *o, kt_pair *pr)
{
    if (!spec.key && spec.how == AT_NATURAL) return kt_member_skip(o, pr);
    char c = *pr->v;
    if (c == '-' || (c >= '0' && c <= '9')) {
        kt_num n;
        const char *after = kt_number(pr->v, o->end, &n);
        if (after && after >= o->end && !o->eof) {
            o->err = pr->v;
            return KT_SCAN_MORE;
        }
        if (after) {
            pr->vend = after;
            store_arg(p, spec, pr, &n);
            return KT_SCAN_OK;
        }
    }
    kt_scan_res r = kt_member_skip(o, pr);
    if (r == KT_SCAN_OK) store_arg(p, spec, pr, NULL);
    return r;
}

/* The typed arg of a plain number, written at *out (advanced): an int, or
 * a float where the arg is one.                                          */
static inline void put_int_arg(kt_arg **out, uint32_t key, int64_t v)
{
    *(*out)++ = (kt_arg){ .key = key, .type = KT_ARGT_INT, .v.i = v };
}

static inline void put_float_arg(kt_arg **out, uint32_t key, double f)
{
    *(*out)++ = (kt_arg){ .key = key, .type = KT_ARGT_FLOAT, .v.f = f };
}

/* An integer typed arg as the analyses read it: in its column, or at
 * *out; false (nothing stored) when the general path must decide (a
 * stream beyond int32, raw text).  These two are store_arg's number cases
 * without its general call chain (column_int, push_number): through
 * store_arg the fast path cost 4.6% more instructions of a whole load.  */
static inline bool store_int_arg(kt_parser *p, arg_spec spec, int64_t v, kt_arg **out)
{
    kt_events *ev = &p->r->ev; /* the event's columns: found only in their cases */
    switch (spec.how) {
    case AT_CORR: put_id(p, v, &ev->corr[ev->n - 1]); return true;
    case AT_EXT: put_id(p, v, &ev->ext_id[ev->n - 1]); return true;
    case AT_STREAM:
        if (v < INT32_MIN || v > INT32_MAX) return false;
        p->row_stream = (int32_t)v;
        return true;
    case AT_RAW: return false;
    case AT_FLOAT: put_float_arg(out, spec.key, (double)v); return true;
    default:
        if (spec.key) put_int_arg(out, spec.key, v);
        return true;
    }
}

/* A decimal typed arg (kernels' blocks per SM, occupancy, bandwidth). */
static inline bool store_float_arg(kt_parser *p, arg_spec spec, double f, kt_arg **out)
{
    switch (spec.how) {
    case AT_CORR:
    case AT_EXT:
    case AT_STREAM: return store_int_arg(p, spec, kt_double_to_i64(f, -1), out);
    case AT_RAW: return false;
    default:
        if (spec.key) put_float_arg(out, spec.key, f);
        return true;
    }
}

/* The j-th args member from q (just after its '{' or ','): the start of
 * its value, and in *spec what spec_of makes of its key, by scanning the
 * bytes up to the value (blanks, quoted key, ':', blanks), which the
 * category's layout L (or NULL) then remembers for layout_args; NULL
 * when the key is not plain or not followed by ':'.                       */
static const char *arg_value_start(kt_parser *p, args_mode mode, const char *q, const char *end,
                                   kt_arg_layout *L, size_t j, arg_spec *spec)
{
    const char *kq = kt_skip_ws(q, end);
    if (*kq != '"') return NULL;
    const char *kend = kt_special_from(kq + 1, end);
    if (kend + 1 >= end || kend[0] != '"' || kend[1] != ':') return NULL;
    kt_pair key = { .key = kq + 1, .klen = (size_t)(kend - kq - 1) };
    *spec = spec_of(p, mode, &key);
    const char *v = kt_skip_ws(kend + 2, end);
    size_t len = (size_t)(v - q);
    if (!L || j >= KT_LAYOUT_KEYS) return v;
    if (len > KT_MEMO_TEXT) { /* too long to remember: a gap (length 0), which never matches */
        if (j < L->n) L->k[j].key.len = 0;
        return v;
    }
    for (size_t gap = L->n; gap < j; gap++) L->k[gap].key.len = 0;
    kt_memo_set(&L->k[j].key, q, len);
    L->k[j].want = kt_want32(len);
    L->k[j].arg = spec->key;
    L->k[j].how = (uint8_t)spec->how;
    L->k[j].vwant = 0; /* no value yet */
    L->k[j].vneed = 1;
    L->n = (uint8_t)(j + 1);
    return v;
}

/* "[x, y, z]" at v, three plain integers (below 16 digits, no leading
 * zero): the position after the ']', with the values in value; else NULL. */
static const char *xyz_values(const char *v, const char *end, int64_t value[3])
{
    const char *q = v + 1;
    for (int i = 0; i < 3; i++) {
        q = kt_skip_ws(q, end);
        uint64_t u;
        unsigned n = kt_digits16(q, &u);
        if (n == 0 || n >= 16 || (n > 1 && *q == '0')) return NULL;
        value[i] = (int64_t)u;
        q = kt_skip_ws(q + n, end);
        if (q >= end || *q != (i < 2 ? ',' : ']')) return NULL;
        q++;
    }
    return q;
}

/* The length of the text at v up to its first ']' when that is among its
 * 16 bytes (lo, hi), else 0; lo and hi keep only that text's bytes.  The
 * lowest zero byte of x ^ "]]]]]]]]" is exactly found by the borrow trick
 * (only bytes above a zero one can be false hits).                       */
static inline unsigned xyz_text(uint64_t *lo, uint64_t *hi)
{
    const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull, close = 0x5d5d5d5d5d5d5d5dull;
    uint64_t a = *lo ^ close, b = *hi ^ close;
    uint64_t za = (a - ones) & ~a & highs, zb = (b - ones) & ~b & highs;
    if (za) {
        unsigned len = (unsigned)__builtin_ctzll(za) / 8 + 1;
        *lo &= ~0ull >> (64 - 8 * len);
        *hi = 0;
        return len;
    }
    if (!zb) return 0;
    unsigned len = (unsigned)__builtin_ctzll(zb) / 8 + 1;
    *hi &= ~0ull >> (64 - 8 * len);
    return 8 + len;
}

/* A kernel's "grid": [2048, 1, 1] or "block": [128, 1, 1] as push_xyz
 * stores it, when it is three plain integers: written at *out, and the
 * ',' or '}' after it; else NULL (the member loop reads it).  A text seen
 * before (the memo slot of its hash) has the same values: two compares. */
static inline __attribute__((always_inline)) const char *fast_xyz_arg(kt_parser *p, uint32_t key, const char *v,
                                                                     const char *end, kt_arg **out)
{
    uint64_t lo, hi;
    memcpy(&lo, v, 8);
    memcpy(&hi, v + 8, 8);
    unsigned len = xyz_text(&lo, &hi);
    uint64_t h = (lo * 0x9E3779B97F4A7C15ull ^ hi) * 0x9E3779B97F4A7C15ull;
    kt_xyz_memo *memo = &p->xyz[key == KT_ARG_BLOCK_X][h >> (64 - KT_XYZ_BITS)];
    int64_t value[3];
    const char *q = v + len;
    if (len && q < end && memo->text[0] == lo && memo->text[1] == hi) {
        memcpy(value, memo->value, sizeof value);
    } else {
        if (!(q = xyz_values(v, end, value))) return NULL;
        if (len) { /* then q is v + len: the text ends at its first ']' */
            *memo = (kt_xyz_memo){ { lo, hi }, { value[0], value[1], value[2] } };
        }
    }
    const char *sep = kt_skip_ws(q, end);
    if (sep >= end || (*sep != ',' && *sep != '}')) return NULL;
    for (uint32_t i = 0; i < 3; i++) put_int_arg(out, key + i, value[i]);
    return sep;
}

/* The most common args, "key": 123 (up to 16 digits) or "key": 1.25 (up
 * to 19 digits in all, worth at most 2^53 as one integer: a bandwidth's
 * 1.590370801786061 too), and grid / block triples: the value at v stored
 * as spec says (typed args at *out), and the ',' or '}' after it; else
 * NULL with nothing stored (the member loop reads it).  m / 10^k with
 * m <= 2^53 and k <= 16 is the correctly rounded double (both are exact),
 * as kt_parse_number's is.                                               */
static inline __attribute__((always_inline)) const char *fast_arg_value(kt_parser *p, arg_spec spec, const char *v,
                                                                       const char *end, kt_arg **out)
{
    static const double pow10[17] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8,
                                      1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16 };
    if (*v == '[') return spec.how == AT_XYZ ? fast_xyz_arg(p, spec.key, v, end, out) : NULL;
    const char *d = v + (*v == '-');
    uint64_t whole, frac = 0;
    unsigned n = kt_digits16(d, &whole), nf = 0;
    const char *e = d + n;
    if (n > 0 && *e == '.' && (nf = kt_digits16(e + 1, &frac)) > 0) e += 1 + nf;
    const char *sep = e; /* then a ',' at once, or Kineto's "\n    }" closing the args, or blanks */
    if (*e != ',') {
        const char *close = kt_match16(e, end, KT_PATTERN("\n    }"));
        sep = close ? close - 1 : kt_skip_ws(e, end);
    }
    if (n == 0 || n + nf > 19 || sep >= end || (*sep != ',' && *sep != '}')) return NULL; /* m fits 64 bits */
    bool stored;
    if (nf == 0) {
        stored = store_int_arg(p, spec, d > v ? -(int64_t)whole : (int64_t)whole, out);
    } else {
        uint64_t m = whole * (uint64_t)pow10[nf] + frac;
        double f = (d > v ? -(double)m : (double)m) / pow10[nf];
        stored = m && m <= (uint64_t)1 << 53 && store_float_arg(p, spec, f, out);
    }
    return stored ? sep : NULL;
}

/* The j-th arg from q through fast_arg_value, its key scanned (and learnt
 * by the layout, arg_value_start): the position after its ',' or '}'
 * (*closed), else NULL with nothing stored.                               */
static const char *fast_number_arg(kt_parser *p, args_mode mode, const char *q, const char *end,
                                   bool *closed, kt_arg_layout *L, size_t j)
{
    arg_spec spec;
    kt_arg vals[3], *out = vals;
    const char *v = arg_value_start(p, mode, q, end, L, j, &spec);
    const char *sep = v ? fast_arg_value(p, spec, v, end, &out) : NULL;
    if (!sep) return NULL;
    for (const kt_arg *a = vals; a < out; a++) push_arg(p, a->key, (kt_arg_type)a->type, a->v.i, a->v.f, 0);
    *closed = *sep == '}';
    return sep + 1;
}

/* The value at v of an arg that is not kept: skipped (kt_member_skip),
 * and the ',' or '}' after it; NULL when the member loop must decide.   */
static inline const char *skipped_arg_value(const char *v, const kt_obj *o)
{
    kt_obj at = *o;
    kt_pair pr = { .v = v };
    if (kt_member_skip(&at, &pr) != KT_SCAN_OK) return NULL;
    const char *sep = kt_skip_ws(pr.vend, o->end);
    return sep < o->end && (*sep == ',' || *sep == '}') ? sep : NULL;
}

/* A kept int or float arg (at) read from the bytes q to sep (blanks,
 * key, value, ',' or '}'): when it is the slot's last value again, the
 * bytes are remembered (if they fit) to be matched next time; else it is
 * only noted, and bytes remembered for another value are forgotten.
 * Values that change every time (ids) so cost a compare and a store.   */
static inline void learn_value(kt_arg_slot *s, const char *q, const char *sep, const kt_arg *at)
{
    size_t len = (size_t)(sep + 1 - q);
    if (memcmp(at, &s->value, sizeof *at)) {
        s->value = *at;
        s->vneed = 1;
    } else if (len <= KT_MEMO_TEXT && s->vneed != s->vwant) {
        memcpy(s->key.text, q, KT_MEMO_TEXT); /* the key's bytes are the same; 32 are readable at q */
        s->vlen = (uint8_t)len;
        s->vwant = s->vneed = kt_want32(len);
    }
}

/* The args from the j-th on while each has the key the category's layout
 * L remembers there (blanks, quoted key, ':', blanks as written: one
 * compare) and a value fast_arg_value takes or one not kept: the loop
 * nearly every args object runs whole.  With values, the same compare
 * also finds a value written as the slot's last one (learn_value).  Room for the layout's args is
 * made once, and the event's arg count set once (kt_rank_push_arg does
 * both per arg).  o->q goes past the last ',' or '}' read (*closed), *j
 * to the next arg's position; *known: that arg's key is the layout's
 * (what spec_of makes of it is L->k[*j]) but not its value.             */
static inline __attribute__((always_inline)) void layout_args(kt_parser *p, kt_arg_layout *L, kt_obj *o, size_t *j,
                                                               bool *closed, bool *known, bool values)
{
    kt_rank *r = p->r;
    size_t k = *j, ev = r->ev.n - 1;
    const char *q = o->q;
    *known = false;
    if (!L || k >= L->n) return;
    size_t room = 3 * (size_t)(L->n - k); /* grid and block are 3 args each */
    if (r->ev.nargs[ev] + room > UINT8_MAX) return; /* push_arg says so when it comes to that */
    if (r->nargs + room > r->cap_args && !kt_rank_reserve_args(r, r->nargs + room)) return;
    kt_arg *first = r->args + r->nargs, *out = first;
    const char *comma = NULL; /* the last ',' or '}' read */
    while (k < L->n) {
        kt_arg_slot *s = &L->k[k];
        if (!s->key.len || q + s->key.len >= o->end) break;
        uint32_t same = kt_same32(q, s->key.text);
        if ((same & s->want) != s->want) break;
        const char *sep;
        if (values && (same & s->vwant) == s->vneed && q + s->vlen <= o->end) { /* the last value again */
            if (s->arg) *out++ = s->value;
            sep = q + s->vlen - 1;
        } else {
            arg_spec spec = { s->arg, (arg_how)s->how };
            const char *v = q + s->key.len;
            kt_arg *at = out;
            sep = fast_arg_value(p, spec, v, o->end, &out);
            if (!sep && !spec.key && spec.how == AT_NATURAL) sep = skipped_arg_value(v, o);
            if (!sep) {
                *known = true;
                break;
            }
            if (values && out > at && spec.how <= AT_FLOAT) learn_value(s, q, sep, at);
        }
        k++;
        q = sep + 1;
        comma = sep;
        if (*sep == '}') {
            *closed = true;
            break;
        }
    }
    if (comma) {
        o->after_comma = *comma == ',';
        o->comma = comma;
    }
    if (out > first) {
        if (r->ev.nargs[ev] == 0) r->ev.argi[ev] = (uint32_t)r->nargs;
        r->ev.nargs[ev] = (uint8_t)(r->ev.nargs[ev] + (out - first));
        r->nargs += (size_t)(out - first);
    }
    *j = k;
    o->q = q;
}

/* The args object at a (its '{') into the last event's typed args; L (or
 * NULL) is the event category's key layout.                               */
static kt_scan_res parse_args(kt_parser *p, args_mode mode, kt_arg_layout *L, const char *a,
                              const char *end, bool eof, const char **vend, const char **err)
{
    kt_obj o = { .q = a + 1, .end = end, .eof = eof };
    bool closed = false, known;
    for (size_t j = 0;; j++) { /* j: the arg's position */
        if (mode == ARGS_SAME || mode == ARGS_ALL) /* one loop each: the others' pays no value compare */
            layout_args(p, L, &o, &j, &closed, &known, true);
        else
            layout_args(p, L, &o, &j, &closed, &known, false);
        if (closed) break;
        const char *next = known ? NULL : fast_number_arg(p, mode, o.q, end, &closed, L, j);
        if (next) {
            o.after_comma = !closed;
            o.comma = next - 1;
            o.q = next;
            if (closed) break;
            continue;
        }
        kt_pair pr;
        kt_scan_res r = kt_member_key(&o, &pr, &closed);
        if (r == KT_SCAN_OK && !closed) {
            arg_spec spec = known ? (arg_spec){ L->k[j].arg, (arg_how)L->k[j].how } : spec_of(p, mode, &pr);
            r = arg_value(p, spec, &o, &pr);
        }
        if (r == KT_SCAN_OK && !closed) r = kt_member_sep(&o, pr.vend, &closed);
        if (r != KT_SCAN_OK) {
            *err = o.err;
            return r;
        }
        if (closed) break;
    }
    if (o.trailing_comma)
        kt_pdiag_note(p, KT_PD_TRAILING_COMMA, kt_offset_of(p, o.comma),
                      "trailing comma before '}' (ignored)");
    *vend = o.q;
    return KT_SCAN_OK;
}

/* ---- the event ------------------------------------------------------------- */
static uint32_t intern_member(kt_parser *p, const member *m)
{
    if (!is_string(m)) return KT_NONE;
    uint32_t id = kt_intern_json(p, m->v + 1, (size_t)(m->vend - m->v - 2), m->flags);
    if (id == KT_NONE) p->oom = true;
    return id;
}

/* An event's name, first looked up among the names its category had
 * (kt_name_memo; slot: its kinds[] slot, -1 none) when written plain.   */
static uint32_t intern_name(kt_parser *p, const member *m, int slot)
{
    if (slot < 0 || !is_string(m) || m->flags) return intern_member(p, m);
    const char *s = m->v + 1;
    size_t n = (size_t)(m->vend - s - 1);
    /* names of one length (aten::add, aten::mul) mostly end differently: their last byte,
     * the one before the closing quote (the opening quote for "", not s[n - 1], which would wrap) */
    kt_name_memo *k = &p->names[slot][(n * 5 + (unsigned char)m->vend[-2]) & (KT_NAME_MEMO - 1)];
    if (k->text && k->len == n && kt_same_text(k->text, s, n)) return k->id;
    uint32_t id = kt_intern(p, s, n);
    if (id == KT_NONE) p->oom = true;
    else *k = (kt_name_memo){ kt_strtab_get(p->strs, id), (uint32_t)n, id };
    return id;
}

static char ph_of(const raw_event *e)
{
    return is_string(&e->ph) && e->ph.vend - e->ph.v > 2 ? e->ph.v[1] : 0;
}

/* Kind and stored category of (ph, category id as written). */
static kt_kind kind_of_category(kt_parser *p, char ph, uint32_t id, uint32_t *cat)
{
    const char *norm;
    uint32_t raw = id == KT_NONE ? p->empty_str : id;
    kt_kind kind = kt_kind_of(ph, kt_strtab_get(p->strs, raw), kt_strtab_len(p->strs, raw), &norm);
    *cat = norm ? kt_intern(p, norm, strlen(norm)) : id;
    if (norm && *cat == KT_NONE) p->oom = true;
    return kind;
}

/* The text an event without a category (or with one that is not a
 * string, which counts as missing) is memoized by, under its own tag.    */
static const char no_category[KT_MEMO_TEXT];

/* A category compute_kind has not memoized: interned, its kind looked up
 * and, when it has a memo slot k, remembered there.                       */
static __attribute__((noinline)) kt_kind new_category(kt_parser *p, char ph, const member *cm, kt_kind_memo *k,
                                                      int slot, uint32_t *cat, uint32_t *raw)
{
    bool written = is_string(cm);
    uint32_t id = written ? intern_member(p, cm) : KT_NONE; /* as written */
    *raw = id == KT_NONE ? p->empty_str : id;
    kt_kind kind = kind_of_category(p, ph, id, cat);
    if (k && !p->oom) {
        p->layouts[slot].n = 0; /* another category now owns the slot */
        if (written) kt_memo_set(&k->key, cm->v + 1, (size_t)(cm->vend - cm->v - 2));
        else kt_memo_set(&k->key, no_category, 0);
        k->tag = (uint16_t)((unsigned char)ph | (written ? 0 : KT_KIND_NO_CAT));
        k->kind = (uint8_t)kind;
        k->cat = *cat;
        k->raw = *raw;
    }
    return kind;
}

/* The kind memoized in kinds[] under tag for text c[0..n) (when memo),
 * else new_category's; *slot: its kinds[] slot, -1 none.                 */
static inline __attribute__((always_inline)) kt_kind memoized_kind(kt_parser *p, char ph, const member *cm,
                                                                   unsigned tag, const char *c, size_t n, bool memo,
                                                                   uint32_t *cat, uint32_t *raw, int *slot)
{
    *slot = memo ? (int)kt_memo_slot(c, n, tag, KT_KIND_MEMO_BITS) : -1;
    kt_kind_memo *k = memo ? &p->kinds[*slot] : NULL;
    if (k && k->tag == tag && kt_memo_hit(&k->key, c, n)) {
        *cat = k->cat;
        *raw = k->raw;
        return (kt_kind)k->kind;
    }
    return new_category(p, ph, cm, k, *slot, cat, raw);
}

/* Kind of the event; *cat gets the strtab id of the category to store
 * (normalized) and *raw the category as written ("" when absent).  Short
 * plain categories are memoized by their bytes, and a missing one by
 * no_category under its own tag (metadata has none: two thirds of MTIA's
 * events).                                                                */
static inline __attribute__((always_inline)) kt_kind compute_kind(kt_parser *p, char ph, const member *cm,
                                                                  uint32_t *cat, uint32_t *raw, int *slot)
{
    if (__builtin_expect(!is_string(cm), 0)) /* laid out apart: the other events' path stays as it was */
        return memoized_kind(p, ph, cm, (unsigned char)ph | KT_KIND_NO_CAT, no_category, 0, true, cat, raw, slot);
    const char *c = cm->v + 1;
    size_t n = (size_t)(cm->vend - c - 1);
    return memoized_kind(p, ph, cm, (unsigned char)ph, c, n, !cm->flags && n <= KT_MEMO_TEXT, cat, raw, slot);
}

/* The kind is needed twice when args are parsed in place: once is enough
 * (interning the category is the expensive part).                         */
static inline __attribute__((always_inline)) kt_kind event_kind(kt_parser *p, raw_event *e, uint32_t *cat,
                                                                uint32_t *raw)
{
    kind_memo *m = &e->kind;
    if (!e->kind_known || m->ph_v != e->ph.v || m->cat_v != e->cat.v) {
        m->ph = ph_of(e);
        m->kind = compute_kind(p, m->ph, &e->cat, &m->cat, &m->raw, &m->slot);
        m->ph_v = e->ph.v;
        m->cat_v = e->cat.v;
        e->kind_known = true;
    }
    *cat = m->cat;
    *raw = m->raw;
    return m->kind;
}

/* Rows are made ready (kt_events_ready) this many at a time: a few KiB,
 * still in cache when the events fill them, and each column's memset
 * below glibc's rep stosb threshold (2 KiB; 4096 rows cost more).        */
#define READY_ROWS 256
/* Fewer bytes than a plain trace has per event (real Kineto traces: 200
 * or more): a whole file's columns are sized from it at once.           */
#define MIN_EVENT_BYTES 128

void kt_rank_size_for_file(kt_rank *r)
{
    /* pages the guess reserves beyond the events are never touched; a
     * failed guess only means growing by doubling                        */
    if (!r->gzip) (void)kt_events_reserve(&r->ev, r->file_bytes / MIN_EVENT_BYTES);
}

static __attribute__((noinline)) bool ready_rows(kt_parser *p)
{
    kt_events *ev = &p->r->ev;
    if (ev->cap == 0 && !p->in_range && p->limit == UINT64_MAX) kt_rank_size_for_file(p->r);
    size_t want = KT_EVENTS_MAX - ev->n < READY_ROWS ? KT_EVENTS_MAX : ev->n + READY_ROWS;
    if (want == ev->n || !kt_events_ready(ev, want)) {
        p->oom = true;
        if (!kt_rank_fits(p->r, 1, 0)) p->full = "events";
        return false;
    }
    p->ready_rows = want;
    return true;
}

/* The event's row; commit sets its own columns (kt_events_push_unset's
 * unset ones) before the row is kept: a row dropped before that is never
 * read.  The others hold their defaults already (p->ready_rows).        */
static bool push_row(kt_parser *p)
{
    kt_events *ev = &p->r->ev;
    if (__builtin_expect(ev->n >= p->ready_rows, 0) && !ready_rows(p)) return false;
    ev->n++;
    p->row_stream = -1;
    return true;
}

/* Drop the rows and args of an event not kept: its row may have been
 * written, so it is made ready again when pushed next.                   */
static void drop_event(kt_parser *p, size_t n0, size_t a0)
{
    p->r->ev.n = n0;
    p->r->nargs = a0;
    if (p->ready_rows > n0) p->ready_rows = n0;
}

static void set_args_range(kt_parser *p, const member *a)
{
    kt_events *ev = &p->r->ev;
    uint64_t len = (uint64_t)(a->vend - a->v), off = (uint64_t)kt_offset_of(p, a->v);
    if (len > KT_ARGS_LEN_MAX || off > KT_ARGS_OFF_MAX) {
        kt_pdiag_note(p, KT_PD_ARGS_RANGE, (int64_t)off, "args object %s: its typed args are kept, not its raw text",
                      len > KT_ARGS_LEN_MAX ? "of 16 MiB or more" : "1 TiB or more into the data");
        return;
    }
    ev->args_at[ev->n - 1] = kt_args_at(off, len);
}

/* Kineto writes ph and cat before args: then args are parsed during the
 * one pass over the event (the row is created early).                     */
static bool args_now(const raw_event *e, const kt_pair *pr)
{
    char ph = ph_of(e);
    return *pr->v == '{' && ph && (ph != 'X' || e->cat.v);
}

static kt_scan_res args_in_place(kt_parser *p, raw_event *e, kt_obj *o, kt_pair *pr)
{
    if (!push_row(p)) return KT_SCAN_ERR;
    e->pushed = true;
    uint32_t cat, raw;
    args_mode mode = args_mode_of(event_kind(p, e, &cat, &raw));
    kt_arg_layout *layout = e->kind.slot >= 0 ? &p->layouts[e->kind.slot] : NULL;
    kt_scan_res r = parse_args(p, mode, layout, pr->v, o->end, o->eof,
                               &pr->vend, &o->err);
    e->args = (member){ pr->v, pr->vend, 0, false, false, 0 };
    return r;
}

/* Kept as written (kt_trace_events shows it), taken as 0 long by the
 * analyses; said once per file, with the first such event.               */
static void note_negative_dur(kt_parser *p, const member *dur, uint32_t name)
{
    int64_t off = kt_offset_of(p, dur->v);
    kt_pdiag_note(p, KT_PD_NEGATIVE_DUR, off,
                  "event \"%.80s\" at byte %lld has a negative dur %.*s: kept as written, taken as 0 long by the "
                  "analyses",
                  name == KT_NONE ? "" : kt_strtab_get(p->strs, name), (long long)off,
                  (int)(dur->vend - dur->v > 40 ? 40 : dur->vend - dur->v), dur->v);
}

/* Point the last event at an identical run of typed args stored before
 * it, if the run table knows one, and drop its own copy (KT_RUN_SLOTS). */
static void share_args(kt_parser *p)
{
    kt_rank *r = p->r;
    size_t ev = r->ev.n - 1;
    uint32_t n = r->ev.nargs[ev], first = r->ev.argi[ev];
    if (n == 0) return;
    const kt_arg *run = &r->args[first];
    uint64_t h = n * 0x9e3779b97f4a7c15u;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t head;
        uint64_t v;
        memcpy(&head, &run[k], sizeof head);
        memcpy(&v, &run[k].v, sizeof v);
        h = (h ^ head ^ v) * 0x9e3779b97f4a7c15u;
        h ^= h >> 31;
    }
    kt_arg_run *slot = &p->runs[(h >> 32) & (KT_RUN_SLOTS - 1)];
    /* a slot may name args dropped since (a failed event, a reset staging
     * rank): only a run wholly before this one, with the same bytes, is used */
    if (slot->n == n && (uint64_t)slot->first + n <= first &&
        !memcmp(&r->args[slot->first], run, n * sizeof *run)) {
        r->ev.argi[ev] = slot->first;
        r->nargs = first;
        return;
    }
    *slot = (kt_arg_run){ .first = first, .n = n };
}

/* The raw args' place and, when written before ph or cat, the typed args. */
static void commit_args(kt_parser *p, raw_event *e, kt_kind kind)
{
    if (*e->args.v != '{') {
        kt_pdiag_note(p, KT_PD_BAD_FIELD, kt_offset_of(p, e->args.v),
                      "event args at byte %lld is not an object (ignored)",
                      (long long)kt_offset_of(p, e->args.v));
        return;
    }
    set_args_range(p, &e->args);
    const char *vend, *err;
    /* args written before ph or cat (sorted keys) are read now, through the
     * category's key layout as if in place                                */
    if (!e->pushed && parse_args(p, args_mode_of(kind), e->kind.slot >= 0 ? &p->layouts[e->kind.slot] : NULL,
                                 e->args.v, e->args.vend, true, &vend, &err) != KT_SCAN_OK)
        kt_pdiag_note(p, KT_PD_SYNTAX, kt_offset_of(p, err),
                      "invalid JSON inside args at byte %lld (the event's later args were not read)",
                      (long long)kt_offset_of(p, err));
    if (kind != KT_K_INSTANT && kind != KT_K_COUNTER) share_args(p); /* their values vary: never shared */
}

/* Count the event as written, then store it (unless its ts is unusable). */
static void commit(kt_parser *p, raw_event *e, size_t n0, size_t a0)
{
    kt_rank *r = p->r;
    uint32_t cat, raw;
    kt_kind kind = event_kind(p, e, &cat, &raw);
    char ph = e->kind.ph;
    r->total_events++;
    r->by_ph[(unsigned char)ph & 127]++;
    if (ph == 'X' && !kt_catcount_add(&p->xcat, raw, 1)) p->oom = true;
    if (!r->ns_resolution) note_ns_resolution(r, &e->ts);
    int64_t ts = 0, dur = -1;
    bool usable = e->ts.v ? time_ns(p, &e->ts, "ts", &ts) : ph == 'M';
    if (!e->ts.v && ph != 'M') kt_pdiag_note(p, KT_PD_BAD_FIELD, -1, "event without ts (skipped)");
    if (!usable || (!e->pushed && !push_row(p))) {
        drop_event(p, n0, a0);
        return;
    }
    bool has_dur = e->dur.v && time_ns(p, &e->dur, "dur", &dur);
    if (!has_dur) dur = -1;
    kt_events *ev = &r->ev;
    size_t i = ev->n - 1;
    ev->ts[i] = ts;
    ev->dur[i] = dur;
    ev->ph[i] = (uint8_t)ph;
    ev->kind[i] = (uint8_t)kind;
    ev->cat[i] = cat;
    uint32_t name = intern_name(p, &e->name, e->kind.slot);
    ev->name[i] = name;
    if (has_dur && dur < 0) note_negative_dur(p, &e->dur, name);
    kt_summary_add(&r->summary, p->strs, ph, (uint8_t)kind, cat, name, ts, dur);
    int64_t pid = thread_id(p, &e->pid);
    int role = kt_role_of((uint8_t)kind);
    if (role != KT_ROLE_NONE) kt_pid_roles_add(p, pid, role, e->ts.v, name);
    int32_t pid_col = 0, tid_col = 0;
    if (!kt_rank_id_put(r, pid, &pid_col) || !kt_rank_id_put(r, thread_id(p, &e->tid), &tid_col)) p->oom = true;
    if (kind == KT_K_FLOW_START || kind == KT_K_FLOW_END) put_id(p, flow_id(p, &e->id), &ev->corr[i]);
    if (e->args.v) commit_args(p, e, kind);
    /* after the args: their stream is part of where the event ran */
    if ((ev->thread[i] = kt_events_thread(ev, pid_col, tid_col, p->row_stream)) == KT_NONE) p->oom = true;
}

/* A number parsed where it stands: ts/dur to ns, pid/tid as integers. */
static kt_scan_res parse_in_place(raw_event *e, member *m, kt_obj *o, kt_pair *pr)
{
    const char *after;
    bool overflow = false;
    if (m == &e->ts || m == &e->dur) {
        after = kt_us_to_ns(pr->v, o->end, &m->num, &m->rounded, &overflow);
    } else {
        kt_num n;
        after = kt_number(pr->v, o->end, &n);
        overflow = n.kind != KT_NUM_INT;
        m->num = n.i;
        m->rounded = false;
    }
    if (after && after >= o->end && !o->eof) {
        o->err = pr->v;
        return KT_SCAN_MORE;
    }
    if (!after || overflow) return KT_SCAN_ERR; /* not a plain number: the general path */
    pr->vend = after;
    *m = (member){ pr->v, after, 0, true, m->rounded, m->num };
    return KT_SCAN_OK;
}

/* A member's value: numbers of ts/dur/pid/tid parsed in place, the others
 * located (and skipped); m is NULL for members we do not use.             */
static kt_scan_res member_value(raw_event *e, member *m, kt_obj *o, kt_pair *pr)
{
    char c = *pr->v;
    if (m && m != &e->id && (m == &e->ts || m == &e->dur || m == &e->pid || m == &e->tid) &&
        (kt_is_digit(c) || c == '-')) {
        kt_scan_res r = parse_in_place(e, m, o, pr);
        if (r != KT_SCAN_ERR) return r;
    }
    kt_scan_res r = kt_member_skip(o, pr);
    if (r == KT_SCAN_OK && m) *m = (member){ pr->v, pr->vend, pr->vflags, false, false, 0 };
    return r;
}

/* The members in the order Kineto writes them: each key is first looked
 * for where the previous one predicts it (one masked 8-byte compare
 * instead of a key scan and a dispatch).                                  */
typedef struct expected_key {
    uint64_t w, mask; /* '"key":' as a little-endian word, its bytes        */
    unsigned len;
    size_t member;    /* offsetof(raw_event, ...)                          */
} expected_key;

static const expected_key kineto_order[] = {
    { KEY2('p', 'h'), offsetof(raw_event, ph) },
    { KEY3('c', 'a', 't'), offsetof(raw_event, cat) },
    { KEY4('n', 'a', 'm', 'e'), offsetof(raw_event, name) },
    { KEY3('p', 'i', 'd'), offsetof(raw_event, pid) },
    { KEY3('t', 'i', 'd'), offsetof(raw_event, tid) },
    { KEY2('t', 's'), offsetof(raw_event, ts) },
    { KEY3('d', 'u', 'r'), offsetof(raw_event, dur) },
    { KEY4('a', 'r', 'g', 's'), offsetof(raw_event, args) },
};
#define N_EXPECTED (sizeof kineto_order / sizeof kineto_order[0])

/* The next key: "args" when fast_members already matched it (*args_v: its
 * value), else the expected one (*at then advances), else any.          */
static inline __attribute__((always_inline)) kt_scan_res next_key(raw_event *e, kt_obj *o, kt_pair *pr,
                                                                  bool *closed, member **m, size_t *at,
                                                                  const char **args_v)
{
    if (*args_v) {
        *pr = (kt_pair){ .key = *args_v - (sizeof "args\": " - 1), .klen = 4, .v = *args_v };
        o->q = *args_v;
        o->after_comma = false;
        *closed = false;
        *m = &e->args;
        *at = N_EXPECTED;
        *args_v = NULL;
        return KT_SCAN_OK;
    }
    if (*at < N_EXPECTED) {
        const expected_key *x = &kineto_order[*at];
        if (kt_member_key_expected(o, pr, x->w, x->mask, x->len)) {
            *closed = false;
            *m = (member *)((char *)e + x->member);
            (*at)++;
            return KT_SCAN_OK;
        }
        *at = N_EXPECTED; /* another layout: no more guesses for this event */
    }
    kt_scan_res res = kt_member_key(o, pr, closed);
    *m = res == KT_SCAN_OK && !*closed ? member_of(e, pr->key, pr->klen) : NULL;
    return res;
}

/* ---- Kineto's leading members, straight through -----------------------------
 * Nearly every event starts as Kineto writes it: complete events with ph,
 * cat, name, pid, tid, ts, dur, flows with ph, id, pid, tid, ts, cat, name,
 * instants with ph, cat, s, name, pid, tid, ts; plain strings, integer ids,
 * decimal µs, and Kineto's blanks between them (one 16-byte pattern per
 * separator and key).  These members are read by straight-line code that
 * fills raw_event exactly as the member loop would; at the first member
 * that differs it stops, and the loop goes on from that member's start (so
 * any layout still works, only slower).                                  */

/* Past key word w (mask, len bytes: '"key":') and the blanks around it,
 * or NULL when the next member has another key.                          */
static inline const char *fast_key(const char *q, const char *end, uint64_t w, uint64_t mask,
                                   unsigned len)
{
    q = kt_skip_ws(q, end);
    uint64_t x;
    memcpy(&x, q, 8);
    if ((x & mask) != w || q + len >= end) return NULL;
    return kt_skip_ws(q + len, end);
}

/* Past the ',' after a value ending at q, else NULL. */
static inline const char *fast_comma(const char *q, const char *end)
{
    q = kt_skip_ws(q, end);
    return q < end && *q == ',' ? q + 1 : NULL;
}

/* A string without escapes, control or non-ASCII bytes, else NULL. */
static inline const char *fast_plain_string(const char *q, const char *end, member *m)
{
    if (*q != '"') return NULL;
    const char *c = kt_special_from(q + 1, end);
    if (c >= end || *c != '"') return NULL;
    *m = (member){ q, c + 1, 0, false, false, 0 };
    return c + 1;
}

/* Categories and some names repeat from event to event (every flow's
 * "ac2g", [memory]): a string whose bytes, quotes included, are the
 * memo's (at most 16; plain: fast_plain_string read them) is that string,
 * one compare; else fast_plain_string's, remembered.  The closing quote
 * matched is in the data (zero bytes follow it).                        */
static inline const char *fast_repeated_string(const char *q, const char *end, member *m, kt_sep_memo *memo)
{
    if (kt_sep_at(memo, q)) {
        *m = (member){ q, q + memo->len, 0, false, false, 0 };
        return q + memo->len;
    }
    const char *e = fast_plain_string(q, end, m);
    if (e && e - q <= 16) kt_sep_set(memo, q, (size_t)(e - q));
    return e;
}

/* pid and tid repeat from event to event: an id whose 8 bytes (digits and
 * what follows them) equal the previous ones' has the previous value.  A
 * value starts at a byte above ' ' or at the data's end, so the zeros of
 * an empty memo match only there, where FAST_MEMBER's separator is not. */
static inline const char *fast_repeated_int(const char *q, member *m, kt_id_memo *memo)
{
    uint64_t w;
    memcpy(&w, q, 8);
    if (w != memo->word) return NULL;
    *m = (member){ q, q + memo->len, 0, true, false, memo->value };
    return q + memo->len;
}

/* A plain integer below 16 digits (pid, tid, a flow's id), else NULL.
 * What follows is FAST_MEMBER's to check (a '.', an exponent, the data's
 * end are not its separator).  Ids are short: one word, one conversion. */
static inline const char *fast_int(const char *q, member *m)
{
    const char *d = q + (*q == '-');
    uint64_t u;
    unsigned n = kt_digits8(d, &u);
    if (n == 8) n = kt_digits16(d, &u);
    if (n == 0 || n >= 16) return NULL;
    *m = (member){ q, d + n, 0, true, false, d > q ? -(int64_t)u : (int64_t)u };
    return d + n;
}

/* fast_int for pid/tid, remembering the last two short ones (memo[0] the
 * latest): CPU and GPU events take turns, each with its own pid and tid. */
static inline __attribute__((always_inline)) const char *fast_thread_id(const char *q, member *m, kt_id_memo memo[2])
{
    const char *e = fast_repeated_int(q, m, &memo[0]);
    if (e || (e = fast_repeated_int(q, m, &memo[1])) || !(e = fast_int(q, m))) return e;
    memo[1] = memo[0];
    memo[0].len = e - q < 8 ? (uint8_t)(e - q) : 0; /* the 8 bytes hold the id and its end */
    memcpy(&memo[0].word, q, 8);
    memo[0].value = m->num;
    return e;
}

/* A time in µs written "I" or "I.F" (I below 16 digits, F up to 3: exact
 * ns), else NULL.  A first 8 digits of a longer number are taken whole (for
 * ts, high remembers them: they rarely change), the rest with its fraction
 * in one SWAR conversion, the '.' spliced out of the 8-byte word.  What
 * follows is not looked at: FAST_MEMBER's separator must, so a longer
 * number (more digits, an exponent) fails there and the loop reads it.  */
static inline __attribute__((always_inline)) const char *fast_time(const char *q, member *m, kt_id_memo *high)
{
    static const int64_t frac_scale[4] = { 1000, 100, 10, 1 };
    uint64_t w, x, head = 0;
    memcpy(&w, q, 8);
    const char *p = q + 8; /* after a head */
    if (high && w == high->word) { /* the previous ts's first 8 digits (an empty memo: see fast_repeated_int) */
        head = (uint64_t)high->value;
    } else if (!kt_non_digits(w)) {
        head = kt_digits_value(w, 8);
        if (high) *high = (kt_id_memo){ w, 8, (int64_t)head };
    } else {
        p = q;
    }
    memcpy(&x, p, 8);
    unsigned i = kt_leading_digits(x), n = i, f = 0; /* I's digits, all digits */
    if (p == q && i == 0) return NULL;               /* no digit at all */
    if (i < 8 && p[i] == '.') { /* I's bytes from x, F's from after the '.' */
        uint64_t y, low = ((uint64_t)1 << (8 * i)) - 1;
        memcpy(&y, p + 1, 8);
        x = (x & low) | (y & ~low);
        n = kt_leading_digits(x);
        f = n - i;
        if (f == 0 || f > 3) return NULL;
    }
    int64_t ns = n ? (int64_t)kt_digits_value(x, n) * frac_scale[f] : 0;
    if (p > q) {
        uint64_t us = head * kt_pow10_8[i]; /* < 10^16: no overflow */
        if (us >= ((uint64_t)1 << 62) / 1000) return NULL; /* out of range: the general path says so */
        ns += (int64_t)us * 1000;
    }
    const char *e = p + n + (f > 0);
    *m = (member){ q, e, 0, true, false, ns };
    return e;
}

/* The leading members' separators (kt_sep_memo slots): after each
 * member's value, the bytes up to the next member's value.              */
enum {
    SEP_OPEN, /* after '{', up to ph's value */
    SEP_PH_CAT, SEP_CAT_NAME, SEP_NAME_PID, SEP_PID_TID, SEP_TID_TS, SEP_TS_DUR, SEP_DUR_ARGS,
    SEP_PH_ID, SEP_F_ID_PID, SEP_F_PID_TID, SEP_F_TID_TS, SEP_F_TS_CAT, SEP_F_CAT_NAME,
    SEP_I_CAT_S, SEP_I_S_NAME, SEP_I_NAME_PID, SEP_I_PID_TID, SEP_I_TID_TS, SEP_I_TS_ARGS,
    SEP_N_OPEN, SEP_N_NAME_PH, SEP_N_PH_TS, SEP_N_TS_PID, SEP_N_PID_TID, SEP_N_TID_ARGS,
    SEP_F_END_S, SEP_F_END_F, /* after a flow's name, up to its '}' (fast_flow_end) */
    VAL_X_CAT, VAL_F_CAT, VAL_F_NAME, VAL_I_NAME, /* not separators: values (fast_repeated_string) */
    SEP_COUNT
};
_Static_assert(SEP_COUNT <= KT_SEP_SLOTS, "kt_sep_memo slots");

/* Where the separator being tried starts and which slot it is in: when
 * it did not match, the next member's key is found the slow way and the
 * bytes in between become the slot's pattern (sep_learn).               */
typedef struct sep_state {
    kt_sep_memo *seps;
    const char *from;
    int slot;
} sep_state;

/* The next member's value when the bytes at from are the slot's pattern;
 * else NULL, and L remembers where the separator starts.  No bound check:
 * from is a value's end, at most 17 bytes past the data's end, and the 64
 * bytes after it are zero (the window's padding), so a value found (its
 * byte above ' ') and the pattern before it are in the data.            */
static inline const char *sep_match(sep_state *L, int slot, const char *from)
{
    const kt_sep_memo *m = &L->seps[slot];
    const char *v = from + m->len;
    /* a blank at v: more blanks than learnt, not at the value */
    if (kt_sep_at(m, from) && (unsigned char)*v > ' ') return v;
    L->from = from;
    L->slot = slot;
    return NULL;
}

/* Remember [L->from, value) — found by fast_comma and fast_key, so only
 * ',', blanks, the quoted key and ':' — as the slot's pattern.  It must
 * start with the ',' (the next member starts after it), except after '{'. */
static inline void sep_learn(sep_state *L, const char *value)
{
    size_t n = (size_t)(value - L->from);
    if (!L->from || n == 0 || n > 16 || (L->slot != SEP_OPEN && *L->from != ','))
        return;
    kt_sep_set(&L->seps[L->slot], L->from, n);
}

/* "args" after the last leading member: learnt only when its value
 * follows `"args": ` (next_key finds the key 7 bytes before the value). */
static inline void sep_learn_args(sep_state *L, kt_obj *o)
{
    const char *a = fast_key(o->q, o->end, KEY4('a', 'r', 'g', 's'));
    if (a && a - L->from >= 8 && memcmp(a - 8, "\"args\": ", 8) == 0) sep_learn(L, a);
}

/* o->q at, and o->comma before it once a ',' was read (n > 0): where
 * the member loop goes on.  The fast paths keep at in a register.     */
static inline size_t fast_stop(kt_obj *o, const char *at, size_t n)
{
    o->q = at;
    if (n) o->comma = at - 1;
    return n;
}

/* One member starting at at: its key, then read_value (an expression
 * reading the value at v_ into raw_event, NULL when it cannot), then ','.
 * On a mismatch the function returns n with o->q at this member's start
 * (fast_stop).  The separator and the next member's key are first tried
 * as one pattern, the bytes the file had there in the last event (slot):
 * then the next member starts at its value (next_v); otherwise blanks are
 * skipped one by one and the separator learnt for the next event.  Values
 * are checked only as far as what follows them must be that separator
 * (a number's next byte, the end of the data): a ',' is then the proof. */
#define FAST_MEMBER(n, slot, key, read_value)                                 \
    do {                                                                      \
        const char *v_ = next_v ? next_v : fast_key(at, o->end, key);         \
        if (!v_) return fast_stop(o, at, n);                                  \
        if (!next_v) sep_learn(L, v_);                                        \
        if (!(v_ = read_value)) return fast_stop(o, at, n);                   \
        if (!(next_v = sep_match(L, slot, v_))) {                             \
            const char *c_ = fast_comma(v_, o->end);                          \
            if (!c_) return fast_stop(o, at, n);                              \
            v_ = c_ - 1;                                                      \
        }                                                                     \
        at = v_ + 1;                                                          \
    } while (0)

/* A one-letter ph ("X", "f", ...); quotes found are in the data (zero
 * bytes follow it), so no bound check.                                  */
static inline const char *fast_ph(const char *q, member *m)
{
    if (q[0] != '"' || q[2] != '"' || q[1] == '\\') return NULL;
    *m = (member){ q, q + 3, 0, false, false, 0 };
    return q + 3;
}

/* After a flow's name value (ending at q): the event's '}' (ph s), or
 * Kineto's "bp": "e" and the '}' (ph f), set o->closed with o->q after the
 * '}'.  Otherwise o->q is left after the name's ',' for the member loop,
 * or at the name itself when neither follows (the loop reads it again).  */
static inline void fast_flow_closed(kt_obj *o, const char *q)
{
    const char *c = kt_skip_ws(q, o->end);
    if (c >= o->end || (*c != '}' && *c != ',')) return;
    o->q = c + 1;
    if (*c == '}') {
        o->closed = true;
        return;
    }
    o->comma = c;
    member bp; /* read past, as the member loop does */
    const char *v = fast_key(o->q, o->end, KEY2('b', 'p'));
    const char *b = v ? fast_plain_string(v, o->end, &bp) : NULL;
    b = b ? kt_skip_ws(b, o->end) : NULL;
    if (b && b < o->end && *b == '}') {
        o->q = b + 1;
        o->closed = true;
    }
}

/* fast_flow_closed, first tried as the bytes the last flow of this ph
 * had there (last: `, "bp": "e"}` or `}`), one compare: their '}' is in
 * the data (zero bytes follow it), and o->comma is not read once the
 * event is closed.                                                      */
static inline void fast_flow_end(kt_obj *o, const char *q, kt_sep_memo *last)
{
    if (kt_sep_at(last, q)) {
        o->q = q + last->len;
        o->closed = true;
        return;
    }
    fast_flow_closed(o, q);
    if (o->closed && o->q - q <= 16) kt_sep_set(last, q, (size_t)(o->q - q));
}

/* Flow events after their ph, as Kineto writes them: id, pid, tid, ts,
 * cat, name (and "bp" on ph f).  Either way no more keys are predicted
 * (N_EXPECTED); o->closed when the whole event was read.                 */
static size_t fast_flow_members(raw_event *e, kt_obj *o, kt_id_memo ids[KT_ID_MEMOS], sep_state *L, const char *at,
                                const char *next_v)
{
    FAST_MEMBER(N_EXPECTED, SEP_F_ID_PID, KEY2('i', 'd'), fast_int(v_, &e->id));
    FAST_MEMBER(N_EXPECTED, SEP_F_PID_TID, KEY3('p', 'i', 'd'), fast_thread_id(v_, &e->pid, &ids[KT_MEMO_PID]));
    FAST_MEMBER(N_EXPECTED, SEP_F_TID_TS, KEY3('t', 'i', 'd'), fast_thread_id(v_, &e->tid, &ids[KT_MEMO_TID]));
    FAST_MEMBER(N_EXPECTED, SEP_F_TS_CAT, KEY2('t', 's'), fast_time(v_, &e->ts, &ids[KT_MEMO_TS]));
    FAST_MEMBER(N_EXPECTED, SEP_F_CAT_NAME, KEY3('c', 'a', 't'),
                fast_repeated_string(v_, o->end, &e->cat, &L->seps[VAL_F_CAT]));
    const char *v = next_v ? next_v : fast_key(at, o->end, KEY4('n', 'a', 'm', 'e'));
    fast_stop(o, at, N_EXPECTED);
    if (!v) return N_EXPECTED;
    if (!next_v) sep_learn(L, v);
    const char *q = fast_repeated_string(v, o->end, &e->name, &L->seps[VAL_F_NAME]);
    if (q) fast_flow_end(o, q, &L->seps[e->ph.v[1] == 'f' ? SEP_F_END_F : SEP_F_END_S]);
    return N_EXPECTED;
}

/* Instant events after their ph, as Kineto writes them ([memory] events
 * by the thousand when memory is profiled): cat, s (not kept), name, pid,
 * tid, ts, and then args (*args_v, as for complete events).              */
static size_t fast_instant_members(raw_event *e, kt_obj *o, kt_id_memo ids[KT_ID_MEMOS], sep_state *L,
                                   const char *at, const char *next_v, const char **args_v)
{
    member scope; /* "s": read past, as the member loop does */
    FAST_MEMBER(N_EXPECTED, SEP_I_CAT_S, KEY3('c', 'a', 't'), fast_plain_string(v_, o->end, &e->cat));
    FAST_MEMBER(N_EXPECTED, SEP_I_S_NAME, KEY1('s'), fast_plain_string(v_, o->end, &scope));
    FAST_MEMBER(N_EXPECTED, SEP_I_NAME_PID, KEY4('n', 'a', 'm', 'e'),
                fast_repeated_string(v_, o->end, &e->name, &L->seps[VAL_I_NAME]));
    FAST_MEMBER(N_EXPECTED, SEP_I_PID_TID, KEY3('p', 'i', 'd'), fast_thread_id(v_, &e->pid, &ids[KT_MEMO_PID]));
    FAST_MEMBER(N_EXPECTED, SEP_I_TID_TS, KEY3('t', 'i', 'd'), fast_thread_id(v_, &e->tid, &ids[KT_MEMO_TID]));
    FAST_MEMBER(N_EXPECTED, SEP_I_TS_ARGS, KEY2('t', 's'), fast_time(v_, &e->ts, &ids[KT_MEMO_TS]));
    fast_stop(o, at, N_EXPECTED);
    if (!next_v) sep_learn_args(L, o);
    *args_v = next_v;
    return N_EXPECTED;
}

/* Events written name first, as Kineto writes its metadata: name, ph,
 * ts, pid, tid, then args (*args_v, as for complete events).  MTIA traces
 * repeat process and thread names for every pid and tid: two thirds of
 * their events.  No more keys are predicted (N_EXPECTED).  Not inlined:
 * fast_members, inlined into the event loop, stays as it was for the
 * ph-first events of every other trace.                                  */
static __attribute__((noinline)) size_t fast_named_members(raw_event *e, kt_obj *o, kt_id_memo ids[KT_ID_MEMOS],
                                                           sep_state *L, const char **args_v)
{
    const char *at = o->q, *next_v = sep_match(L, SEP_N_OPEN, at); /* after '{' */
    FAST_MEMBER(0, SEP_N_NAME_PH, KEY4('n', 'a', 'm', 'e'), fast_plain_string(v_, o->end, &e->name));
    FAST_MEMBER(N_EXPECTED, SEP_N_PH_TS, KEY2('p', 'h'), fast_ph(v_, &e->ph));
    FAST_MEMBER(N_EXPECTED, SEP_N_TS_PID, KEY2('t', 's'), fast_time(v_, &e->ts, &ids[KT_MEMO_TS]));
    FAST_MEMBER(N_EXPECTED, SEP_N_PID_TID, KEY3('p', 'i', 'd'), fast_thread_id(v_, &e->pid, &ids[KT_MEMO_PID]));
    FAST_MEMBER(N_EXPECTED, SEP_N_TID_ARGS, KEY3('t', 'i', 'd'),
                fast_thread_id(v_, &e->tid, &ids[KT_MEMO_TID]));
    fast_stop(o, at, N_EXPECTED);
    if (!next_v) sep_learn_args(L, o);
    *args_v = next_v;
    return N_EXPECTED;
}

/* After a value ending at v: past its ',' (the next member's start); else
 * NULL, with o->closed and o->q past the event's '}' when that came.    */
static inline const char *sorted_member_end(kt_obj *o, const char *v)
{
    const char *c = kt_skip_ws(v, o->end);
    if (c < o->end && *c == ',') return c + 1;
    if (c < o->end && *c == '}') {
        o->q = c + 1;
        o->closed = true;
    }
    return NULL;
}

/* The args value, skipped as the member loop skips it: the kind that says
 * how to keep them comes after them (commit parses them then).           */
static inline const char *sorted_args(kt_obj *o, const char *v, member *args)
{
    kt_pair pr = { .v = v };
    if (kt_member_skip(o, &pr) != KT_SCAN_OK) return NULL; /* the loop says why */
    *args = (member){ pr.v, pr.vend, pr.vflags, false, false, 0 };
    return pr.vend;
}

/* One member of a sorted event when its key comes next; members may be
 * absent (a flow has no args, an instant no dur).  A value this path does
 * not read, or one followed by neither ',' nor '}' (an exponent after the
 * digits read), leaves the member to the loop, from its key.  n: members
 * read before it.                                                        */
#define SORTED_MEMBER(key, read_value)                                        \
    do {                                                                      \
        const char *v_ = fast_key(at, o->end, key), *next_;                   \
        if (!v_) break;                                                       \
        if (!(v_ = read_value) || !(next_ = sorted_member_end(o, v_)))        \
            return o->closed ? N_EXPECTED : fast_stop(o, at, n);              \
        at = next_;                                                           \
        n = N_EXPECTED;                                                       \
    } while (0)

/* Events written with their keys sorted, as json.dumps(sort_keys=True)
 * and `jq -S` write them: args, bp, cat, dur, id, name, ph, pid, s, tid,
 * ts, each one present or not.  The member loop would find every key by
 * the general scan; here each is one compare.  o->closed when the whole
 * event was read; else the loop goes on from the member that differed,
 * predicting no keys (N_EXPECTED).  Not inlined, as fast_named_members. */
static __attribute__((noinline)) size_t fast_sorted_members(raw_event *e, kt_obj *o, kt_id_memo ids[KT_ID_MEMOS])
{
    const char *at = o->q;
    size_t n = 0;
    member bp, scope; /* read past, as the member loop does */
    SORTED_MEMBER(KEY4('a', 'r', 'g', 's'), sorted_args(o, v_, &e->args));
    SORTED_MEMBER(KEY2('b', 'p'), fast_plain_string(v_, o->end, &bp));
    SORTED_MEMBER(KEY3('c', 'a', 't'), fast_plain_string(v_, o->end, &e->cat));
    SORTED_MEMBER(KEY3('d', 'u', 'r'), fast_time(v_, &e->dur, NULL));
    SORTED_MEMBER(KEY2('i', 'd'), fast_int(v_, &e->id));
    SORTED_MEMBER(KEY4('n', 'a', 'm', 'e'), fast_plain_string(v_, o->end, &e->name));
    SORTED_MEMBER(KEY2('p', 'h'), fast_ph(v_, &e->ph));
    SORTED_MEMBER(KEY3('p', 'i', 'd'), fast_thread_id(v_, &e->pid, &ids[KT_MEMO_PID]));
    SORTED_MEMBER(KEY1('s'), fast_plain_string(v_, o->end, &scope));
    SORTED_MEMBER(KEY3('t', 'i', 'd'), fast_thread_id(v_, &e->tid, &ids[KT_MEMO_TID]));
    SORTED_MEMBER(KEY2('t', 's'), fast_time(v_, &e->ts, &ids[KT_MEMO_TS]));
    return fast_stop(o, at, n);
}
#undef SORTED_MEMBER

/* The leading members of the event whose '{' precedes o->q, o->q after
 * the last one's ','; returns how far kineto_order was followed (the
 * member loop predicts from there).  *args_v: the args value when the
 * "args" key followed dur as in the last such event, else NULL.          */
static size_t fast_members(raw_event *e, kt_obj *o, kt_id_memo ids[KT_ID_MEMOS], kt_sep_memo *seps, const char **args_v)
{
    sep_state state = { seps, NULL, SEP_OPEN }, *L = &state; /* from: set on a mismatch */
    const char *at = o->q, *next_v = sep_match(L, SEP_OPEN, at); /* after '{' */
    if (!next_v && !fast_key(at, o->end, KEY2('p', 'h'))) {
        if (fast_key(at, o->end, KEY4('n', 'a', 'm', 'e'))) return fast_named_members(e, o, ids, L, args_v);
        return fast_sorted_members(e, o, ids);
    }
    FAST_MEMBER(0, SEP_PH_CAT, KEY2('p', 'h'), fast_ph(v_, &e->ph));
    if (e->ph.v[1] == 'f' || e->ph.v[1] == 's') {
        /* flows go on with "id", not with the "cat" guessed above */
        return fast_flow_members(e, o, ids, L, at, sep_match(L, SEP_PH_ID, e->ph.vend));
    }
    if (e->ph.v[1] == 'i') return fast_instant_members(e, o, ids, L, at, next_v, args_v);
    if (e->ph.v[1] != 'X') return fast_stop(o, at, 1);
    FAST_MEMBER(1, SEP_CAT_NAME, KEY3('c', 'a', 't'), fast_repeated_string(v_, o->end, &e->cat, &L->seps[VAL_X_CAT]));
    FAST_MEMBER(2, SEP_NAME_PID, KEY4('n', 'a', 'm', 'e'), fast_plain_string(v_, o->end, &e->name));
    FAST_MEMBER(3, SEP_PID_TID, KEY3('p', 'i', 'd'), fast_thread_id(v_, &e->pid, &ids[KT_MEMO_PID]));
    FAST_MEMBER(4, SEP_TID_TS, KEY3('t', 'i', 'd'), fast_thread_id(v_, &e->tid, &ids[KT_MEMO_TID]));
    FAST_MEMBER(5, SEP_TS_DUR, KEY2('t', 's'), fast_time(v_, &e->ts, &ids[KT_MEMO_TS]));
    FAST_MEMBER(6, SEP_DUR_ARGS, KEY3('d', 'u', 'r'), fast_time(v_, &e->dur, NULL));
    fast_stop(o, at, 7);
    if (!next_v) sep_learn_args(L, o);
    *args_v = next_v;
    return 7;
}
#undef FAST_MEMBER
#undef KEY1
#undef KEY2
#undef KEY3
#undef KEY4
#undef KB

/* After a member's value: its ',' or the event's '}' (kt_member_sep);
 * after args, Kineto's "\n  }" closing the event is one compare.        */
static inline kt_scan_res member_end(const raw_event *e, const member *m, kt_obj *o, const kt_pair *pr,
                                     bool *closed)
{
    const char *q = m == &e->args ? kt_match16(pr->vend, o->end, KT_PATTERN("\n  }")) : NULL;
    if (!q) return kt_member_sep(o, pr->vend, closed);
    o->q = q;
    *closed = true;
    return KT_SCAN_OK;
}

kt_scan_res kt_parse_event(kt_parser *p, const char *s, const char *end, bool eof,
                           const char **next, const char **err)
{
    kt_rank *r = p->r;
    size_t n0 = r->ev.n, a0 = r->nargs;
    raw_event e;
    raw_event_init(&e);
    kt_obj o = { .q = s + 1, .end = end, .eof = eof };
    const char *args_v = NULL;
    size_t at = fast_members(&e, &o, p->thread_ids, p->seps, &args_v);
    o.after_comma = at > 0;
    for (bool closed = o.closed; !closed;) { /* a flow may be read whole already */
        kt_pair pr;
        member *m;
        kt_scan_res res = next_key(&e, &o, &pr, &closed, &m, &at, &args_v);
        if (res == KT_SCAN_OK && !closed) {
            if (m == &e.args && !e.pushed && args_now(&e, &pr))
                res = args_in_place(p, &e, &o, &pr);
            else
                res = member_value(&e, m, &o, &pr);
        }
        if (res == KT_SCAN_OK && !closed) res = member_end(&e, m, &o, &pr, &closed);
        if (res != KT_SCAN_OK) { /* nothing of a partial event stays */
            drop_event(p, n0, a0);
            *err = o.err;
            return res;
        }
    }
    if (o.trailing_comma)
        kt_pdiag_note(p, KT_PD_TRAILING_COMMA, kt_offset_of(p, o.comma),
                      "trailing comma before '}' (ignored)");
    *next = o.q;
    commit(p, &e, n0, a0);
    return KT_SCAN_OK;
}
