/*
 * rocprof_json.c — rocprofv3's JSON output (`--output-format json`,
 * <pid>_results.json[.gz]) into the model.
 *
 * One file holds one entry per profiled process under
 * "rocprofiler-sdk-tool".  Its records name things indirectly: a record's
 * kind and operation index the string tables, a dispatch's kernel_id the
 * kernel symbols, agent handles the agents.  Those tables are resolved
 * first, then every record becomes one model event.  Times are ns already.
 */
#include "load/json_stream.h"
#include "load/readers.h"
#include "rocprof_common.h"
#include "model/i64map.h"

#include <stdlib.h>

typedef struct names {
    uint32_t *id;
    size_t n;
} names;

typedef struct proc {
    kt_build *b;
    kt_jstream *s;           /* what is walked: the document, or records kept */
    kt_jstream *doc;         /* the document (the symbols' offsets are in it) */
    int64_t pid;
    kt_agent_map agents;
    bool agent_memo;         /* memo_agent's device is memo_device        */
    int64_t memo_agent, memo_device;
    names kernels;           /* strtab id by kernel_id (PENDING: unread)  */
    uint64_t *ksym;          /* by kernel_id: its symbol's offset          */
    uint32_t *ksym_len;      /* and length                                */
    char *symbuf;            /* a symbol read back (kt_js_at)              */
    size_t symcap;
    names *ops;              /* by kind: strtab id by operation           */
    uint32_t *kind_name;     /* by kind: strtab id of the kind's name     */
    size_t nkinds;
    kt_i64map markers;       /* correlation id -> marker message strtab id */
    char *buf;               /* decoded strings                          */
    size_t cap;
    uint64_t dropped;        /* records without the fields an event needs */
} proc;

static uint32_t str_id(proc *p, kt_jv v)
{
    const char *t;
    size_t n;
    if (!kt_jv_str(v, &p->buf, &p->cap, &t, &n)) return KT_NONE;
    return kt_build_str(p->b, t, n);
}

static bool names_put(names *ns, int64_t k, uint32_t id)
{
    if (k < 0 || k > (1 << 24)) return true;
    if ((size_t)k >= ns->n) {
        size_t n = (size_t)k + 1 > 2 * ns->n ? (size_t)k + 1 : 2 * ns->n;
        uint32_t *a = realloc(ns->id, n * sizeof *a);
        if (!a) return false;
        for (size_t i = ns->n; i < n; i++) a[i] = KT_NONE;
        ns->id = a;
        ns->n = n;
    }
    ns->id[k] = id;
    return true;
}

static uint32_t names_get(const names *ns, int64_t k)
{
    return k >= 0 && (size_t)k < ns->n ? ns->id[k] : KT_NONE;
}

/* Past a value walked to its end (end NULL: it was not an object or
 * list, the next step skips it). */
static void walked(const char **it, const char *end)
{
    if (end) *it = end;
}

static bool is_box(kt_jv v) { return kt_jv_is(v, '{') || kt_jv_is(v, '['); }

/* A table the walk of it just handed over, whole (scalars are already). */
static kt_jv whole(proc *p, kt_jiter *it, kt_jv v)
{
    if (is_box(v)) kt_js_whole(p->s, it, &v);
    return v;
}

/* strings.buffer_records: [{kind, operations: [...]}, ...] by kind number. */
static bool read_kind_strings(proc *p, kt_jv recs)
{
    size_t n = 0;
    const char *it = NULL;
    kt_jv e;
    while (kt_jv_next(recs, &it, &e)) n++;
    p->ops = calloc(n ? n : 1, sizeof *p->ops);
    p->kind_name = malloc((n ? n : 1) * sizeof *p->kind_name);
    if (!p->ops || !p->kind_name) return false;
    p->nkinds = n;
    it = NULL;
    for (size_t k = 0; kt_jv_next(recs, &it, &e); k++) {
        p->kind_name[k] = str_id(p, kt_jv_get(e, "kind"));
        const char *oi = NULL;
        kt_jv ops = kt_jv_get(e, "operations"), op;
        for (int64_t o = 0; kt_jv_next(ops, &oi, &op); o++)
            if (!names_put(&p->ops[k], o, str_id(p, op))) return false;
    }
    return true;
}

static const char *kind_text(const proc *p, int64_t kind, size_t *n)
{
    if (kind < 0 || (size_t)kind >= p->nkinds || p->kind_name[kind] == KT_NONE) {
        *n = 0;
        return "";
    }
    *n = kt_strtab_len(p->b->strs, p->kind_name[kind]);
    return kt_strtab_get(p->b->strs, p->kind_name[kind]);
}

/* A string value's text given the flags its scan found: in place when
 * plain (no escape, no byte past ASCII: as kt_jv_str would find it),
 * without a second pass over it.                                    */
static uint32_t scanned_str_id(proc *p, kt_jv v, unsigned flags)
{
    if (kt_jv_is(v, '"') && v.e - v.s >= 2 && !(flags & (KT_STR_ESC | KT_STR_HIGH)))
        return kt_build_str(p->b, v.s + 1, (size_t)(v.e - v.s - 2));
    return str_id(p, v);
}

/* A kernel whose symbol is known but not yet read (most of a large
 * file's kernels are never dispatched in it).                          */
#define PENDING (KT_NONE - 1)

/* kernel_symbols: where each kernel's symbol is, by kernel_id (the last
 * symbol of an id wins); its name is read when a dispatch first names it
 * (kernel_name).  The four names of every kernel in the code objects can
 * be half of the file: each symbol is only stepped over here.  False on
 * OOM.                                                                */
static bool read_kernels(proc *p, kt_jiter *parent, kt_jv syms)
{
    if (!kt_jv_is(syms, '[')) {
        kt_js_skip(p->s, parent, syms);
        return true;
    }
    kt_jiter it = { syms.s, false };
    kt_jv s;
    while (kt_js_walk(p->s, &it, &s)) {
        s = whole(p, &it, s);
        kt_pair pr;
        kt_jv v;
        for (const char *mi = NULL; kt_jv_walk_member(s, &mi, &pr, &v);)
            if (KT_KEY_IS(&pr, "kernel_id")) {
                int64_t k = kt_jv_int_or(v, -1);
                size_t had = p->kernels.n;
                if (!names_put(&p->kernels, k, PENDING)) return false;
                if (p->kernels.n > had) {
                    uint64_t *at = realloc(p->ksym, p->kernels.n * sizeof *at);
                    uint32_t *len = at ? realloc(p->ksym_len, p->kernels.n * sizeof *len) : NULL;
                    if (at) p->ksym = at;
                    if (!len) return false;
                    p->ksym_len = len;
                }
                if (k >= 0 && (size_t)k < p->kernels.n) {
                    p->ksym[k] = kt_js_offset(p->s, s.s);
                    p->ksym_len[k] = (uint32_t)(s.e - s.s < UINT32_MAX ? s.e - s.s : UINT32_MAX);
                }
                break;
            }
    }
    parent->at = it.at;
    return true;
}

/* The name of the symbol at sym (its members read in one walk, each
 * name scanned once): Kineto's names are demangled without ".kd", the
 * first non-empty of these keys.                                      */
static uint32_t symbol_name(proc *p, kt_jv sym)
{
#define KEY(s) { s, sizeof s - 1 }
    static const struct {
        const char *text;
        size_t len;
    } keys[] = { KEY("formatted_kernel_name"), KEY("demangled_kernel_name"), KEY("kernel_name"),
                 KEY("truncated_kernel_name") };
#undef KEY
    kt_jv text[4] = { { NULL, NULL } }, v;
    unsigned flags[4] = { 0 };
    kt_pair pr;
    for (const char *mi = NULL; kt_jv_walk_member(sym, &mi, &pr, &v);)
        for (size_t k = 0; k < 4; k++)
            if (!text[k].s && kt_key_is(&pr, keys[k].text, keys[k].len)) {
                text[k] = v;
                flags[k] = pr.vflags;
            }
    uint32_t id = KT_NONE;
    for (size_t k = 0; k < 4 && (id == KT_NONE || kt_strtab_len(p->b->strs, id) == 0); k++)
        id = scanned_str_id(p, text[k], flags[k]);
    return id;
}

/* Kernel k's symbol read back from the file (the window has moved on
 * since), its name kept: once a kernel.                               */
static __attribute__((noinline)) uint32_t read_kernel_name(proc *p, int64_t k)
{
    const char *sym = kt_js_at(p->doc, p->ksym[k], p->ksym_len[k], &p->symbuf, &p->symcap);
    return p->kernels.id[k] = sym ? symbol_name(p, (kt_jv){ sym, sym + p->ksym_len[k] }) : KT_NONE;
}

/* The name of kernel k, its symbol read the first time (inline: every
 * dispatch asks, all but a few of them for a name known already).    */
static inline uint32_t kernel_name(proc *p, int64_t k)
{
    uint32_t id = names_get(&p->kernels, k);
    return id != PENDING ? id : read_kernel_name(p, k);
}

/* agents: GPUs (type 2) are devices by gpu_index, else logical node id. */
static void read_agents(proc *p, kt_jv agents)
{
    const char *it = NULL;
    kt_jv a;
    while (kt_jv_next(agents, &it, &a)) {
        int64_t handle = kt_jv_int_or(kt_jv_get(kt_jv_get(a, "id"), "handle"), -1);
        bool gpu = kt_jv_int_or(kt_jv_get(a, "type"), 0) == 2;
        int64_t dev = kt_jv_int_or(kt_jv_get(a, "gpu_index"), -1);
        if (dev < 0) dev = kt_jv_int_or(kt_jv_get(a, "logical_node_id"), -1);
        kt_agent_add(&p->agents, handle, dev, gpu && dev >= 0);
        const char *t;
        size_t n;
        kt_jv name = kt_jv_get(a, "product_name");
        if (gpu && dev >= 0 && kt_jv_str(name, &p->buf, &p->cap, &t, &n) && n) kt_build_device(p->b, dev, t, n);
    }
}

/* strings.marker_api: [{key: correlation id, value: message}]. */
static bool read_markers(proc *p, kt_jv list)
{
    size_t n = 0;
    const char *it = NULL;
    kt_jv m;
    while (kt_jv_next(list, &it, &m)) n++;
    if (!kt_i64map_init(&p->markers, n)) return false;
    for (it = NULL; kt_jv_next(list, &it, &m);)
        *kt_i64map_slot(&p->markers, kt_jv_int_or(kt_jv_get(m, "key"), -1), KT_NONE) = str_id(p, kt_jv_get(m, "value"));
    return true;
}

static int64_t handle_of(kt_jv obj, const char *key)
{
    return kt_jv_int_or(kt_jv_get(kt_jv_get(obj, key), "handle"), -1);
}

/* The integers of a small object ({"handle": n}, {"x": .., "y": ..,
 * "z": ..}) by key, walked to its end (keys: NULL-terminated; values
 * absent stay as they were); where it ended.                        */
static const char *walk_ints(kt_jv obj, const char *const *keys, int64_t *out)
{
    const char *it = NULL;
    kt_pair pr;
    kt_jv v;
    while (kt_jv_walk_member(obj, &it, &pr, &v))
        for (size_t k = 0; keys[k]; k++)
            if (kt_key_is(&pr, keys[k], strlen(keys[k]))) out[k] = kt_jv_int_or(v, out[k]);
    return it;
}

static const char *const HANDLE[] = { "handle", NULL }, *const XYZ[] = { "x", "y", "z", NULL },
                         *const INTERNAL[] = { "internal", NULL };

/* The fields every record has: times and its internal correlation id. */
static bool record_base(proc *p, kt_jv r, int64_t *ts, int64_t *dur, int64_t *corr)
{
    int64_t start, end;
    if (!kt_jv_int(kt_jv_get(r, "start_timestamp"), &start) || !kt_jv_int(kt_jv_get(r, "end_timestamp"), &end) ||
        end < start) {
        p->dropped++;
        return false;
    }
    *ts = start;
    *dur = end - start;
    *corr = kt_jv_int_or(kt_jv_get(kt_jv_get(r, "correlation_id"), "internal"), -1);
    return true;
}

/* An agent handle as the device its GPU work runs on; the last one's
 * answer kept (an agent's answer never changes once asked, and
 * dispatches come in long runs of one agent).                        */
static int64_t dispatch_device(proc *p, int64_t agent)
{
    if (!p->agent_memo || agent != p->memo_agent) {
        int64_t d = kt_agent_gpu(&p->agents, agent);
        p->memo_agent = agent;
        p->memo_device = d >= 0 ? d : agent;
        p->agent_memo = true;
    }
    return p->memo_device;
}

/* A dispatch read whole: its kernel event (dropped without valid times). */
static void dispatch_done(proc *p, kt_gpu_op *op, int64_t start, int64_t end, int64_t queue)
{
    if (start < 0 || end < start) {
        p->dropped++;
        return;
    }
    op->ts = start;
    op->dur = end - start;
    if (op->stream < 0) op->stream = queue;
    kt_build_gpu(p->b, op);
}

/* dispatch_info's members, in one pass; where it ended. */
static const char *read_dispatch_info(proc *p, kt_jv di, kt_gpu_op *op, int64_t *queue)
{
    const char *it = NULL;
    kt_pair pr;
    kt_jv v;
    while (kt_jv_walk_member(di, &it, &pr, &v)) {
        if (KT_KEY_IS(&pr, "agent_id")) {
            int64_t agent = -1;
            walked(&it, walk_ints(v, HANDLE, &agent));
            op->device = dispatch_device(p, agent);
        } else if (KT_KEY_IS(&pr, "queue_id")) {
            *queue = -1;
            walked(&it, walk_ints(v, HANDLE, queue));
        } else if (KT_KEY_IS(&pr, "kernel_id")) op->name = kernel_name(p, kt_jv_int_or(v, -1));
        else if (KT_KEY_IS(&pr, "grid_size")) walked(&it, walk_ints(v, XYZ, op->grid));
        else if (KT_KEY_IS(&pr, "workgroup_size")) walked(&it, walk_ints(v, XYZ, op->block));
        else if (KT_KEY_IS(&pr, "group_segment_size")) op->shared_mem = kt_jv_int_or(v, -1);
    }
    return it;
}

/* A dispatch record as rocprofv3 writes it: compact, its keys in this
 * order, every value an integer.  The text between its integers, each
 * piece compared at once (32 readable bytes: the document is padded;
 * one 16-byte compare for a piece that short), want: its bytes' bits. */
typedef struct piece {
    char text[32];
    unsigned len;
    uint32_t want;
} piece;
#define PIECE(s) { s, sizeof s - 1, (1u << (sizeof s - 1)) - 1 }
static const piece DISPATCH_TEXT[] = {
    PIECE("{\"size\":"), PIECE(",\"kind\":"), PIECE(",\"operation\":"), PIECE(",\"thread_id\":"),
    PIECE(",\"correlation_id\":{\"internal\":"), PIECE(",\"external\":"), PIECE("},\"start_timestamp\":"),
    PIECE(",\"end_timestamp\":"), PIECE(",\"dispatch_info\":{\"size\":"), PIECE(",\"agent_id\":{\"handle\":"),
    PIECE("},\"queue_id\":{\"handle\":"), PIECE("},\"kernel_id\":"), PIECE(",\"dispatch_id\":"),
    PIECE(",\"private_segment_size\":"), PIECE(",\"group_segment_size\":"), PIECE(",\"workgroup_size\":{\"x\":"),
    PIECE(",\"y\":"), PIECE(",\"z\":"), PIECE("},\"grid_size\":{\"x\":"), PIECE(",\"y\":"), PIECE(",\"z\":"),
    PIECE("}},\"stream_id\":{\"handle\":"), PIECE("}}"),
};
#undef PIECE
/* The integers between those pieces, in order. */
enum { D_SIZE, D_KIND, D_OP, D_TID, D_CORR, D_EXT, D_START, D_END, D_INFO_SIZE, D_AGENT, D_QUEUE, D_KERNEL,
       D_DISPATCH, D_PRIVATE, D_GROUP, D_WG, D_GRID = D_WG + 3, D_STREAM = D_GRID + 3, D_N };
/* Those whose value the event takes (the others are only stepped over). */
#define D_USED                                                                                                       \
    (1u << D_CORR | 1u << D_START | 1u << D_END | 1u << D_AGENT | 1u << D_QUEUE | 1u << D_KERNEL | 1u << D_GROUP |  \
     7u << D_WG | 7u << D_GRID | 1u << D_STREAM)

/* The digits of an integer at q (16 readable bytes), fewer than 16: how
 * many (0 when there are none or more).                               */
static unsigned short_digits(const char *q)
{
    uint64_t x;
    memcpy(&x, q, 8);
    unsigned n = kt_leading_digits(x);
    if (n == 8) {
        memcpy(&x, q + 8, 8);
        n += kt_leading_digits(x);
    }
    return n < 16 ? n : 0;
}

/* An integer of fewer than 16 digits at q (24 readable bytes): where it
 * ends, or NULL (then the generic path reads the record); its value into
 * *v when v is not NULL.                                               */
static const char *short_int(const char *q, int64_t *v)
{
    bool neg = *q == '-';
    uint64_t x;
    unsigned n = v ? kt_digits16(q + neg, &x) : short_digits(q + neg);
    if (n == 0 || n >= 16) return NULL;
    if (v) *v = neg ? -(int64_t)x : (int64_t)x;
    return q + neg + n;
}

/* The record at r written exactly as DISPATCH_TEXT: its integers into v
 * (those of D_USED); where it ends, or NULL when it is written otherwise. */
static const char *fixed_dispatch(kt_jv r, int64_t *v)
{
    const char *q = r.s;
#pragma GCC unroll 32 /* each piece's length, compare and use known when compiled */
    for (size_t k = 0; k < D_N; k++) {
        const piece *t = &DISPATCH_TEXT[k];
        uint32_t same = t->len <= 16 ? kt_eq16(q, t->text) : kt_same32(q, t->text);
        if (q + t->len > r.e || (same & t->want) != t->want) return NULL;
        q += t->len;
        if (!(q = short_int(q, D_USED >> k & 1 ? &v[k] : NULL))) return NULL;
    }
    const piece *t = &DISPATCH_TEXT[D_N];
    return q + t->len <= r.e && (kt_eq16(q, t->text) & t->want) == t->want ? q + t->len : NULL;
}

/* A dispatch record written as rocprofv3 writes it (fixed_dispatch):
 * its event; where it ended, or NULL when it is written otherwise (or
 * runs past r, the window's text: then read_dispatch reads it whole). */
static const char *fast_dispatch(proc *p, kt_jv r)
{
    int64_t v[D_N];
    const char *at = fixed_dispatch(r, v);
    if (!at) return NULL;
    kt_gpu_op op = kt_gpu_op_blank(KT_K_KERNEL);
    op.corr = v[D_CORR];
    op.stream = v[D_STREAM];
    op.device = dispatch_device(p, v[D_AGENT]);
    op.name = kernel_name(p, v[D_KERNEL]);
    op.shared_mem = v[D_GROUP];
    memcpy(op.block, v + D_WG, sizeof op.block);
    memcpy(op.grid, v + D_GRID, sizeof op.grid);
    dispatch_done(p, &op, v[D_START], v[D_END], v[D_QUEUE]);
    return at;
}

/* A dispatch record's members by key, in one pass. */
static void read_dispatch(proc *p, kt_jv r)
{
    kt_gpu_op op = kt_gpu_op_blank(KT_K_KERNEL);
    int64_t start = -1, end = -1, queue = -1;
    op.stream = -1;
    const char *it = NULL;
    kt_pair pr;
    kt_jv m;
    while (kt_jv_walk_member(r, &it, &pr, &m)) {
        if (KT_KEY_IS(&pr, "start_timestamp")) start = kt_jv_int_or(m, -1);
        else if (KT_KEY_IS(&pr, "end_timestamp")) end = kt_jv_int_or(m, -1);
        else if (KT_KEY_IS(&pr, "correlation_id")) walked(&it, walk_ints(m, INTERNAL, &op.corr));
        else if (KT_KEY_IS(&pr, "stream_id")) walked(&it, walk_ints(m, HANDLE, &op.stream));
        else if (KT_KEY_IS(&pr, "dispatch_info")) walked(&it, read_dispatch_info(p, m, &op, &queue));
    }
    dispatch_done(p, &op, start, end, queue);
}

static void read_copy(proc *p, kt_jv r)
{
    kt_gpu_op op = kt_gpu_op_blank(KT_K_MEMCPY);
    if (!record_base(p, r, &op.ts, &op.dur, &op.corr)) return;
    int64_t kind = kt_jv_int_or(kt_jv_get(r, "kind"), -1), o = kt_jv_int_or(kt_jv_get(r, "operation"), -1);
    uint32_t dir = kind >= 0 && (size_t)kind < p->nkinds ? names_get(&p->ops[kind], o) : KT_NONE;
    const char *name = dir == KT_NONE ? "Memcpy"
                                      : kt_rocprof_copy_name(kt_strtab_get(p->b->strs, dir), kt_strtab_len(p->b->strs, dir));
    op.name = kt_build_str(p->b, name, strlen(name));
    int64_t dst = kt_agent_device(&p->agents, handle_of(r, "dst_agent_id"));
    op.device = dst >= 0 ? dst : kt_agent_gpu(&p->agents, handle_of(r, "src_agent_id"));
    op.stream = handle_of(r, "stream_id");
    if (op.stream < 0) op.stream = 0;
    op.bytes = kt_jv_int_or(kt_jv_get(r, "bytes"), -1);
    kt_build_gpu(p->b, &op);
}

/* An API call (HIP, HSA, RCCL) or a marker. */
static void read_call(proc *p, kt_jv r)
{
    kt_host_op op = { .pid = p->pid };
    if (!record_base(p, r, &op.ts, &op.dur, &op.corr)) return;
    int64_t kind = kt_jv_int_or(kt_jv_get(r, "kind"), -1), o = kt_jv_int_or(kt_jv_get(r, "operation"), -1);
    size_t n;
    const char *domain = kind_text(p, kind, &n);
    op.kind = kt_rocprof_domain_kind(domain, n);
    if (op.kind == KT_K_OTHER) return;
    op.tid = kt_jv_int_or(kt_jv_get(r, "thread_id"), 0);
    op.name = kind >= 0 && (size_t)kind < p->nkinds ? names_get(&p->ops[kind], o) : KT_NONE;
    if (op.kind == KT_K_USER_ANNOTATION) {
        uint32_t msg = p->markers.key ? kt_i64map_get(&p->markers, op.corr, KT_NONE) : KT_NONE;
        if (msg != KT_NONE) op.name = msg;
        op.corr = -1;
    }
    kt_build_host(p->b, &op);
}

/* A section of records: its key under buffer_records, the reader of one
 * record as rocprofv3 writes it (giving where it ended; NULL: written
 * otherwise) or none, the reader of one record whole, and the typed args
 * its event has.                                                      */
typedef struct section {
    const char *key;
    const char *(*fast)(proc *, kt_jv);
    void (*one)(proc *, kt_jv);
    unsigned args;
} section;

static const section SECTIONS[] = {
    { "kernel_dispatch", fast_dispatch, read_dispatch, 8 }, { "memory_copy", NULL, read_copy, 2 },
    { "hip_api", NULL, read_call, 0 },                     { "hsa_api", NULL, read_call, 0 },
    { "marker_api", NULL, read_call, 0 },                  { "rccl_api", NULL, read_call, 0 },
};

/* Records sampled before the model's rows for the rest are reserved, and
 * the fewest bytes a record is taken to have (a record of fewer bytes
 * cannot carry an event's fields: a hostile run of empty records before
 * a large skipped section reserves no more than this allows).          */
enum { SAMPLE = 64, MIN_RECORD = 128 };

/* Rows for as many more records as the document's rest holds at the
 * sample's bytes a record (rocprofv3 writes a kind's records alike), so
 * that their pages are faulted in at once, not one fault a page as the
 * columns grow: a hint, a shorter list leaves the rest unused.        */
static void expect_rest(proc *p, const section *s, uint64_t sampled, uint64_t rest)
{
    uint64_t each = sampled / SAMPLE > MIN_RECORD ? sampled / SAMPLE : MIN_RECORD, n = rest / each;
    kt_build_expect(p->b, (size_t)n, (size_t)n * s->args);
}

/* The rows for the rest reserved once SAMPLE records were met (the n-th
 * at offset at; the first at *first).                                 */
static void sampled(proc *p, const section *s, size_t n, uint64_t at, uint64_t *first)
{
    if (n == 0) *first = at;
    else if (n == SAMPLE) expect_rest(p, s, at - *first, kt_js_length(p->s) > at ? kt_js_length(p->s) - at : 0);
}

/* A list of records in one pass: each read in the window's text by the
 * fast reader (the next one too when it follows at once, as rocprofv3
 * writes them: no step of the walk between), else whole.             */
static void read_records(proc *p, kt_jiter *parent, kt_jv list, const section *s)
{
    kt_jiter it = { list.s, false };
    uint64_t first = 0;
    size_t n = 0;
    kt_jv r;
    while (!p->b->oom && kt_js_walk(p->s, &it, &r)) {
        sampled(p, s, n++, kt_js_offset(p->s, r.s), &first);
        const char *end = s->fast && is_box(r) ? s->fast(p, (kt_jv){ r.s, kt_js_end(p->s) }) : NULL, *next;
        if (!end) {
            s->one(p, whole(p, &it, r));
            continue;
        }
        while (end[0] == ',' && end[1] == '{' && !p->b->oom && (next = s->fast(p, (kt_jv){ end + 1, kt_js_end(p->s) }))) {
            sampled(p, s, n++, kt_js_offset(p->s, end + 1), &first);
            end = next;
        }
        it.at = end;
    }
    parent->at = it.at;
}

/* buffer_records: the sections of records by kind. */
static void read_sections(proc *p, kt_jiter *parent, kt_jv recs)
{
    if (!kt_jv_is(recs, '{')) {
        kt_js_skip(p->s, parent, recs);
        return;
    }
    kt_jiter it = { recs.s, false };
    kt_pair pr;
    kt_jv v;
    while (kt_js_walk_member(p->s, &it, &pr, &v) && !p->b->oom) {
        size_t k = 0;
        while (k < sizeof SECTIONS / sizeof SECTIONS[0] && !kt_key_is(&pr, SECTIONS[k].key, strlen(SECTIONS[k].key))) k++;
        if (k < sizeof SECTIONS / sizeof SECTIONS[0] && kt_jv_is(v, '[')) read_records(p, &it, v, &SECTIONS[k]);
        else kt_js_skip(p->s, &it, v);
    }
    parent->at = it.at;
}

/* buffer_records met before the tables: its text, kept to be read once
 * they are (rocprofv3 writes the tables first).  False on OOM.        */
static bool keep_records(proc *p, kt_jiter *it, kt_jv v, char **kept, size_t *len)
{
    v = whole(p, it, v);
    *len = (size_t)(v.e - v.s);
    if (!(*kept = malloc(*len + KT_WIN_PAD))) return false;
    memcpy(*kept, v.s, *len);
    memset(*kept + *len, 0, KT_WIN_PAD);
    return true;
}

/* The records kept by keep_records, read from their copy. */
static void read_kept(proc *p, const char *kept, size_t len)
{
    kt_jstream held, *s = p->s;
    kt_js_held(&held, kept, len);
    p->s = &held;
    kt_jiter root = kt_js_root(&held);
    if (root.at) read_sections(p, &root, (kt_jv){ root.at, kt_js_end(&held) });
    p->s = s;
}

static void name_process(proc *p, kt_jv meta)
{
    const char *t;
    size_t n;
    kt_jv host = kt_jv_get(kt_jv_get(meta, "node"), "hostname");
    if (kt_jv_str(host, &p->buf, &p->cap, &t, &n)) kt_build_meta_str(p->b, "hostname", t, n);
    char name[64];
    snprintf(name, sizeof name, "pid %lld", (long long)p->pid);
    kt_build_name_thread(p->b, p->pid, -1, name, strlen(name));
}

enum { HAS_META = 1, HAS_AGENTS = 2, HAS_STRINGS = 4, HAS_KERNELS = 8, HAS_TABLES = 15 };

/* A process's tables (metadata, agents, strings, kernel_symbols; each
 * once), then its records: in one pass over the entry when the tables
 * come first, as rocprofv3 writes them.                               */
static bool read_process(proc *p, kt_jiter *parent, kt_jv tool)
{
    kt_jiter it = { tool.s, false };
    kt_jv v;
    kt_pair pr;
    unsigned has = 0;
    bool ok = true, recs = false, obj = kt_jv_is(tool, '{'); /* tool.s moves as the window does */
    char *kept = NULL;
    size_t kept_len = 0;
    while (ok && kt_js_walk_member(p->s, &it, &pr, &v)) {
        if (KT_KEY_IS(&pr, "metadata") && !(has & HAS_META)) {
            v = whole(p, &it, v);
            p->pid = kt_jv_int_or(kt_jv_get(v, "pid"), 0);
            name_process(p, v);
            has |= HAS_META;
        } else if (KT_KEY_IS(&pr, "agents") && !(has & HAS_AGENTS)) {
            read_agents(p, whole(p, &it, v));
            has |= HAS_AGENTS;
        } else if (KT_KEY_IS(&pr, "strings") && !(has & HAS_STRINGS)) {
            v = whole(p, &it, v);
            ok = read_kind_strings(p, kt_jv_get(v, "buffer_records")) && read_markers(p, kt_jv_get(v, "marker_api"));
            has |= HAS_STRINGS;
        } else if (KT_KEY_IS(&pr, "kernel_symbols") && !(has & HAS_KERNELS)) {
            ok = read_kernels(p, &it, v);
            has |= HAS_KERNELS;
        } else if (KT_KEY_IS(&pr, "buffer_records") && !recs) {
            recs = true;
            if (has == HAS_TABLES) read_sections(p, &it, v);
            else ok = keep_records(p, &it, v, &kept, &kept_len);
        } else {
            kt_js_skip(p->s, &it, v);
        }
    }
    if (obj) parent->at = it.at;
    else kt_js_skip(p->s, parent, tool);
    if (ok && !(has & HAS_META)) name_process(p, (kt_jv){ NULL, NULL });
    if (ok && !(has & HAS_STRINGS)) ok = read_kind_strings(p, (kt_jv){ NULL, NULL });
    if (ok && kept) read_kept(p, kept, kept_len); /* records before a table: read last */
    free(kept);
    return ok && !p->b->oom;
}

static void proc_free(proc *p)
{
    for (size_t k = 0; k < p->nkinds; k++) free(p->ops[k].id);
    free(p->ops);
    free(p->kind_name);
    free(p->kernels.id);
    free(p->ksym);
    free(p->ksym_len);
    free(p->symbuf);
    kt_i64map_free(&p->markers);
    free(p->buf);
}

/* The processes of the tool list; false on OOM. */
static bool read_tools(kt_build *b, kt_jstream *s, kt_jiter *parent, kt_jv tools, uint64_t *dropped, size_t *nproc)
{
    kt_jiter it = { tools.s, false };
    kt_jv tool;
    bool ok = true;
    while (ok && kt_js_walk(s, &it, &tool)) {
        proc p = { .b = b, .s = s, .doc = s };
        ok = read_process(&p, &it, tool);
        *dropped += p.dropped;
        (*nproc)++;
        proc_free(&p);
    }
    parent->at = it.at;
    return ok;
}

/* One walk over the document, no pass to check it first: where the walk
 * breaks, the file is cut short or broken there.                      */
static kt_status read_doc(const kt_reader_in *in, kt_jstream *s, kt_build *b)
{
    kt_jiter root = kt_js_root(s);
    kt_pair pr;
    kt_jv v;
    uint64_t dropped = 0;
    size_t nproc = 0;
    bool found = false, ok = true;
    while (ok && kt_js_walk_member(s, &root, &pr, &v))
        if (!found && KT_KEY_IS(&pr, "rocprofiler-sdk-tool") && kt_jv_is(v, '[')) {
            found = true;
            kt_build_source(b, "rocprofv3 JSON", "rocprofv3", "ROCm");
            ok = read_tools(b, s, &root, v, &dropped, &nproc);
        } else {
            kt_js_skip(s, &root, v);
        }
    if (s->read_error) {
        kt_diags_add(in->diags, KT_DIAG_ERROR, in->path, (int64_t)kt_js_length(s), "cannot read: %s", kt_src_error(s->src));
        return KT_EINPUT;
    }
    if (!found) {
        kt_diags_add(in->diags, KT_DIAG_ERROR, in->path, -1, "rocprofv3 JSON without a \"rocprofiler-sdk-tool\" list");
        return KT_EINPUT;
    }
    if (!ok) return KT_ENOMEM;
    if (dropped)
        kt_diags_add(in->diags, KT_DIAG_WARNING, in->path, -1, "%llu records without start/end timestamps (skipped)",
                     (unsigned long long)dropped);
    int64_t len = (int64_t)kt_js_length(s);
    if (s->broke)
        kt_diags_add(in->diags, KT_DIAG_WARNING, in->path, len,
                     "the JSON is cut short or broken before byte %lld: kept the %zu events of %zu process(es) read before it",
                     (long long)len, b->r->ev.n, nproc);
    return KT_OK;
}

kt_status kt_read_rocprof_json(const kt_reader_in *in, kt_build *b)
{
    kt_jstream s;
    if (!in->src) kt_js_held(&s, in->data, in->len);
    else if (!kt_js_open(&s, in->src, in->read_max)) return KT_ENOMEM;
    kt_status st = read_doc(in, &s, b);
    kt_js_close(&s);
    return st;
}
