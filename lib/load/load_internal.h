/*
 * load_internal.h — what the loader's files share (not part of the API).
 *
 * The loader is a pipeline: discover.c turns paths into files, read_input.c
 * turns a file (plain or gzip, by magic bytes) into a stream of bytes in a
 * reused window, parse_json.c / parse_event.c / parse_meta.c scan that window
 * into a rank's columns, rank_detect.c names the rank, load.c runs it all on
 * a thread pool and finishes the trace.
 */
#ifndef KT_LOAD_INTERNAL_H
#define KT_LOAD_INTERNAL_H

#include "model/model.h"
#include "model/json_number.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* ---- input sources (read_input.c) ----------------------------------------- */
typedef struct kt_src kt_src;

/* Open a file; gzip is detected by its magic bytes, never by its name.
 * On failure returns KT_EINPUT (or KT_ENOMEM) with a one-line reason in err. */
kt_status kt_src_open_file(const char *path, kt_src **out, char *err, size_t errlen);
/* Plain files only: read just the decompressed byte range [start, end). */
kt_status kt_src_open_range(const char *path, uint64_t start, uint64_t end, kt_src **out,
                            char *err, size_t errlen);
/* Decompressed bytes from offset off of a block stream (gz_blocks.c). */
typedef struct kt_blocks kt_blocks;
kt_status kt_src_open_blocks(kt_blocks *b, uint64_t off, kt_src **out);
/* A caller's buffer (plain or gzip). The buffer must outlive the source. */
kt_status kt_src_open_mem(const void *buf, size_t len, kt_src **out);
/* Decompress in a background thread so inflating overlaps parsing.         */
void kt_src_start_prefetch(kt_src *s);
bool kt_src_is_gzip(const kt_src *s);
uint64_t kt_src_file_bytes(const kt_src *s);
/* Input bytes consumed so far (compressed bytes for gzip): for progress.   */
uint64_t kt_src_consumed(const kt_src *s);
/* Read up to cap bytes; 0 = end of data, -1 = error (see kt_src_error).     */
ptrdiff_t kt_src_read(kt_src *s, char *dst, size_t cap);
/* A plain file read whole, KT_WIN_PAD zero bytes after it (read_whole.c:
 * read, not mapped, so that a file cut short while it loads cannot fault);
 * *len: the bytes read (fewer than its size if it was cut short since);
 * NULL when it is no regular file, empty, gzip or cannot be read.  Give
 * it back with kt_free_whole(data, *held_len).                           */
const char *kt_read_whole(const char *path, size_t *len, size_t *held_len);
void kt_free_whole(const char *data, size_t held_len);
/* Sources whose bytes already sit in memory followed by KT_WIN_PAD zero
 * bytes (gzip blocks) lend them: *at and the count (0 = end), consumed as
 * if read.  -1: this source only copies (kt_src_read).                    */
ptrdiff_t kt_src_lend(kt_src *s, const char **at);
/* n bytes of fd at offset off into dst, as many as there are: pread until
 * they are all read, the file ends (it may have shrunk) or a read fails
 * (*err, when err is not NULL: its errno, else 0).  How many were read.
 * The one positional read loop of the library (the cache's key, the
 * overlay writer's windows and the streamed readers use it).            */
size_t kt_pread_full(int fd, void *dst, size_t n, uint64_t off, int *err);
/* Plain bytes (a file or a memory buffer, not gzip) at offset off, the
 * stream's position unmoved: how many (fewer at the end), -1 when the
 * source cannot (gzip) or on a read error.                             */
ptrdiff_t kt_src_pread(const kt_src *s, uint64_t off, char *dst, size_t n);
const char *kt_src_error(const kt_src *s);
/* A problem that did not stop reading (e.g. garbage after the last gzip
 * member), or NULL.                                                          */
const char *kt_src_warning(const kt_src *s);
void kt_src_close(kt_src *s);

/* ---- the read window (read_input.c) ---------------------------------------
 * A reused, 64-byte-aligned buffer holding a stretch of the decompressed
 * JSON.  data[len..len+KT_WIN_PAD) are always zero so scanners may look
 * ahead a vector width without bounds checks.                                */
#define KT_WIN_PAD 64
typedef struct kt_window {
    char *mem;
    size_t cap;     /* usable bytes in mem (mem has cap + KT_WIN_PAD)        */
    char *data;     /* first valid byte: in mem, or lent by the source       */
    size_t len;     /* valid bytes                                           */
    uint64_t base;  /* offset of data[0] in the decompressed stream          */
    bool eof;       /* the source has no more bytes                          */
    bool lent;      /* data is the source's memory (kt_src_lend), not mem    */
    size_t read_max; /* at most this many bytes a refill (0: the default;
                        tests set a few to cut values at every byte)     */
} kt_window;

bool kt_window_init(kt_window *w, uint64_t base);
/* Empty the window for a new stream starting at offset base. */
void kt_window_reset(kt_window *w, uint64_t base);
void kt_window_free(kt_window *w);
/* Drop the bytes before keep, read more after the kept ones (growing the
 * window when keep is already at its start).  False on read error or OOM. */
bool kt_window_refill(kt_window *w, kt_src *s, const char *keep);

/* ---- diagnostics collected while parsing (parse_json.c) -------------------
 * Each kind of problem is reported once per file (first offset and count). */
typedef enum {
    KT_PD_TRUNCATED, KT_PD_SYNTAX, KT_PD_BIGINT, KT_PD_UTF8, KT_PD_CTRL,
    KT_PD_QUOTE, KT_PD_TRAILING_COMMA, KT_PD_TIME_ROUNDED, KT_PD_NON_OBJECT,
    KT_PD_BAD_FIELD, KT_PD_BAD_ESCAPE, KT_PD_ARGS_RANGE, KT_PD_GARBAGE,
    KT_PD_TOO_MANY_ARGS, KT_PD_MISSING_COMMA, KT_PD_NEGATIVE_DUR, KT_PD_GPU_ON_CPU_PID,
    KT_PD_CPU_ON_GPU_PID, KT_PD__COUNT
} kt_pdiag_kind;

typedef struct kt_pdiag {
    uint64_t count;
    int64_t offset;   /* first occurrence */
    char detail[160]; /* what was skipped or recovered, first occurrence */
} kt_pdiag;

/* ---- which pids hold CPU work and which GPU work (pid_roles.c) ------------
 * Kineto writes CPU ops and annotations under the process id and GPU
 * events (kernels, copies, sets) under the device id, so a pid holding
 * both means misplaced events (a merged or edited trace).  The analyses take a GPU event's pid as its device whatever it
 * is; the loader says so.  Each parser tallies the pids of the events it
 * stores (the first KT_PID_ROLES distinct pids; more are not tallied), a
 * split file's ranges are merged, and the file's totals decide: on a pid
 * with both, the fewer side is the misplaced one (GPU events on a CPU pid,
 * or CPU events on a GPU pid), reported once per kind per file.          */
#define KT_PID_ROLES 32
enum { KT_ROLE_CPU, KT_ROLE_GPU, KT_ROLE_NONE };
typedef struct kt_pid_role {
    int64_t pid;
    uint64_t n[2];          /* events by KT_ROLE_CPU / KT_ROLE_GPU           */
    int64_t first_off[2];   /* byte offset of the first of each             */
    uint32_t first_name[2]; /* its name (strtab id)                         */
} kt_pid_role;
typedef struct kt_pid_roles {
    kt_pid_role e[KT_PID_ROLES];
    size_t n;
    size_t last;            /* slot of the last pid tallied                  */
} kt_pid_roles;

/* ---- per-thread string interning cache (parse_json.c) ---------------------- */
#define KT_ICACHE_SIZE 4096
typedef struct kt_icache_entry { /* one cache line holds a whole entry  */
    uint64_t hash;
    const char *str; /* the interned text (never moves)                   */
    uint32_t len;
    uint32_t id;     /* KT_NONE: empty                                     */
} kt_icache_entry;
typedef struct kt_icache {
    kt_icache_entry e[KT_ICACHE_SIZE];
} kt_icache;

/* A short text (a category, an args key) remembered with what was derived
 * from it, so that the per-event work is one hash and one 32-byte compare
 * (scan_inline.h: kt_memo_slot, kt_memo_hit, kt_memo_set).               */
#define KT_MEMO_TEXT 32
typedef struct kt_memo_key {
    char text[KT_MEMO_TEXT]; /* zero padded                               */
    uint8_t len;
    bool valid;
} kt_memo_key;

/* Kind and stored category for (ph, category as written), memoized by the
 * category's bytes: interning it for every event cost more than parsing.
 * tag: ph's byte, | KT_KIND_NO_CAT for events without a category.        */
#define KT_KIND_MEMO_BITS 6
#define KT_KIND_NO_CAT 0x100
typedef struct kt_kind_memo {
    kt_memo_key key;
    uint16_t tag;
    uint8_t kind;
    uint32_t raw, cat;
} kt_kind_memo;

/* Names a category's events had (by kinds[] slot, one per hash of the
 * name's length and last byte), each with its strtab id: an event's name
 * is most often one of them (every flow's "ac2g", most runtime calls' and
 * kernels'), and then costs one compare instead of a hash and a cache
 * probe.  text NULL: nothing remembered.                                  */
#define KT_NAME_MEMO 32
typedef struct kt_name_memo {
    const char *text; /* the interned text (never moves)                   */
    uint32_t len, id;
} kt_name_memo;

/* Raw category → complete-event count, per parser (merged into the rank). */
typedef struct kt_catcount {
    uint32_t *id;
    uint64_t *count;
    size_t n, cap; /* open addressing, cap power of two */
} kt_catcount;

/* The args keys the last event of a category had, in order, each as the
 * bytes from the separator before it to its value (blanks and key as
 * written, up to KT_MEMO_TEXT; a longer one leaves a gap of length 0),
 * with what typed_arg made of the key: the next event of that category
 * nearly always has the same, and then each member costs one compare
 * (parse_event.c: layout_args).  Kernels have ~14 args.                   */
#define KT_LAYOUT_KEYS 16
typedef struct kt_arg_slot {
    kt_memo_key key; /* text: then the last value read and its ',' or '}' */
    uint32_t want;   /* kt_want32(key.len) */
    uint32_t arg;
    uint8_t how;
    /* The text up to the last value's ',' or '}' (vlen bytes) when it fit:
     * the same bytes again store the same arg (value, when arg is not 0).
     * vneed is vwant once learnt, 1 (never the masked bits) before.     */
    uint8_t vlen;
    uint32_t vwant, vneed;
    kt_arg value;
} kt_arg_slot;
typedef struct kt_arg_layout {
    uint8_t n;
    kt_arg_slot k[KT_LAYOUT_KEYS];
} kt_arg_layout;

/* A recent short pid or tid as written (its 8 bytes) and its value; for
 * ts, its first 8 digits and their value.                               */
typedef struct kt_id_memo {
    uint64_t word;
    uint8_t len;      /* bytes of the id; 0: nothing remembered            */
    int64_t value;
} kt_id_memo;
enum { KT_MEMO_PID = 0, KT_MEMO_TID = 2, KT_MEMO_TS = 4, KT_ID_MEMOS }; /* thread_ids[] */

/* A "grid" or "block" array as written ("[2048, 1, 1]", up to 16 bytes,
 * zero padded; all zero: none) and its values, by a hash of its text
 * (parse_event.c: fast_xyz_arg): kernels cycle through ~150 grids and
 * ~15 blocks, and the last one alone was the same only a third of the
 * time.                                                                 */
#define KT_XYZ_BITS 7
typedef struct kt_xyz_memo {
    uint64_t text[2];
    int64_t value[3];
} kt_xyz_memo;

/* The bytes from one of an event's leading members' value to the next
 * one's value (',', blanks, quoted key, ':', blanks) as this file writes
 * them, learnt from the last event that had that member there
 * (parse_event.c, fast_members): Kineto's, compact or re-indented
 * layouts all then cost one 16-byte compare per member (kt_sep_at; the
 * ',' and blanks between two events too, parse_stream.c, and a few values
 * that repeat, fast_repeated_string).  len 0: nothing learnt yet.       */
typedef struct kt_sep_memo {
    char pat[16];
    unsigned len;
    uint32_t miss; /* ~kt_want32(len): the bits of kt_eq16's mask that need not be set; 0 (nothing learnt): all do */
} kt_sep_memo;
#define KT_SEP_SLOTS 32

/* Typed-arg runs already stored in the rank, by a hash of their bytes.
 * Kernels of one shape repeat their 14 args exactly (grid, block,
 * registers, shared memory...), and runtime calls their one cbid, so an
 * event whose run equals a stored one points at it instead of storing it
 * again (parse_event.c: share_args): 60 % of a real trace's arg bytes.
 * n 0: empty slot.  An entry is only a hint; the bytes are compared.    */
#define KT_RUN_SLOTS 1024
typedef struct kt_arg_run {
    uint32_t first;
    uint32_t n;
} kt_arg_run;

/* ---- the parser: one per file or per byte range of a file ----------------- */
typedef enum {
    KT_PS_TOP_START,   /* before the top-level '{'                           */
    KT_PS_TOP_KEY,     /* expecting a top-level key or '}'                   */
    KT_PS_TOP_NEXT,    /* after a top-level value: ',' or '}'               */
    KT_PS_EVENT,       /* inside traceEvents: an event or ']'               */
    KT_PS_EVENT_NEXT,  /* after an event: ',' or ']'                        */
    KT_PS_RESYNC,      /* looking for the next event after damage            */
    KT_PS_DONE,        /* after the top-level object                         */
    KT_PS_STOPPED,     /* range mode: reached an event at or after limit     */
    KT_PS_FAILED       /* not a Kineto trace / unreadable                    */
} kt_pstate;

typedef struct kt_parser {
    kt_rank *r;          /* events, args, counts and metadata go here        */
    kt_strtab *strs;
    kt_icache *cache;
    const char *file;    /* for diagnostics                                  */
    kt_window *w;

    kt_pstate state;
    int32_t row_stream;  /* the stream arg of the event being read (-1 none):
                            kept with its pid and tid when it is committed */
    uint64_t limit;      /* stop at an event starting at or after this offset */
    uint64_t end_off;    /* where parsing stopped (offset of the next event)  */
    bool seen_events;    /* the traceEvents key was found                     */
    bool in_range;       /* parsing a byte range (no top-level start)         */
    bool after_comma;    /* the last traceEvents separator was a ','          */
    bool oom;            /* an allocation failed: the load fails with ENOMEM  */
    const char *full;    /* with oom: "events" or "typed args" passed the
                            model's 32-bit limits (the load fails, saying so) */
    size_t ready_rows;   /* rows of r->ev before this hold the defaults (kt_events_ready) */
    int64_t resync_from, resync_err; /* damage being skipped (KT_PS_RESYNC)     */

    char *scratch;       /* unescaping / UTF-8 repair                          */
    size_t scratch_cap;
    kt_pdiag pd[KT_PD__COUNT];
    kt_pid_roles roles;  /* pids of CPU and GPU events (pid_roles.c)          */
    char fail[256];      /* why the file is not a Kineto trace                */

    kt_catcount xcat;
    kt_kind_memo kinds[1 << KT_KIND_MEMO_BITS];
    kt_arg_layout layouts[1 << KT_KIND_MEMO_BITS]; /* by kinds[] slot     */
    kt_name_memo names[1 << KT_KIND_MEMO_BITS][KT_NAME_MEMO]; /* by kinds[] slot */
    kt_id_memo thread_ids[KT_ID_MEMOS]; /* pid, tid (two each), ts's first 8 digits */
    kt_sep_memo seps[KT_SEP_SLOTS];    /* leading members' separators    */
    kt_xyz_memo xyz[2][1 << KT_XYZ_BITS]; /* kernels' grids, blocks        */
    kt_arg_run runs[KT_RUN_SLOTS];     /* shared arg runs (share_args)    */
    char *meta;          /* top-level keys except traceEvents: "k": v, ...     */
    size_t meta_len, meta_cap;
    int64_t dist_rank;   /* distributedInfo.rank, -1 absent                    */
    bool not_trace;      /* valid JSON, but no traceEvents list in it          */
    bool looks_et;       /* a top-level "nodes" key: a PyTorch execution trace */
    uint32_t empty_str;  /* strtab id of ""                                    */

    atomic_uint_fast64_t *progress_done; /* shared counter or NULL            */
    uint64_t reported;                   /* consumed bytes already counted     */
    const kt_load_options *opt;
    uint64_t progress_total;
} kt_parser;

bool kt_parser_init(kt_parser *p, kt_rank *r, kt_strtab *strs, kt_icache *cache,
                    const char *file, kt_window *w);
void kt_parser_free(kt_parser *p);
/* Parse from the window's current data until the source ends, the top-level
 * object ends, or (range mode) an event starts at or after p->limit.
 * Returns false only when the input is not a Kineto trace or unreadable
 * (p->fail says why).                                                       */
bool kt_parse_stream(kt_parser *p, kt_src *src);
void kt_pdiag_note(kt_parser *p, kt_pdiag_kind k, int64_t offset, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The same for n occurrences at once (first at offset). */
void kt_pdiag_note_n(kt_parser *p, kt_pdiag_kind k, uint64_t n, int64_t offset, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* Emit the collected problems as one diag per kind. */
bool kt_pdiag_flush(kt_parser *p, kt_diags *out);

/* ---- scanner primitives (parse_json.c) ------------------------------------ */
enum { KT_STR_ESC = 1, KT_STR_HIGH = 2, KT_STR_CTRL = 4, KT_STR_QUOTE = 8 };
/* OK; MORE: the window ends inside the value (refill and retry); ERR: not
 * valid JSON here; TRUNC: the data ends inside the value (end of file).    */
typedef enum { KT_SCAN_OK, KT_SCAN_MORE, KT_SCAN_ERR, KT_SCAN_TRUNC } kt_scan_res;

/* Skip one value of any type starting at s; *next gets the byte after it.  */
kt_scan_res kt_skip_value(const char *s, const char *end, bool eof, const char **next,
                          unsigned *flags);
/* Members of an object, one at a time.  Start with q just after the '{'. */
typedef struct kt_obj {
    const char *q, *end;
    bool eof;             /* end is the end of the data (no more will come)  */
    bool after_comma, trailing_comma;
    const char *comma;    /* the last ',' consumed (for trailing-comma reports) */
    bool closed;          /* the closing '}' was consumed                     */
    const char *err;      /* where scanning stopped on MORE / ERR            */
} kt_obj;
typedef struct kt_pair {
    const char *key;      /* raw key bytes (between the quotes)              */
    size_t klen;
    unsigned kflags;
    const char *v, *vend; /* raw value text                                  */
    unsigned vflags;      /* string flags found inside the value             */
} kt_pair;
/* The next member with its value skipped; *done (and nothing in pr) once
 * the object has ended.                                                     */
kt_scan_res kt_obj_next(kt_obj *o, kt_pair *pr, bool *done);
/* The pieces for callers that parse values in place, kt_member_key,
 * kt_member_skip and kt_member_sep, are in scan_inline.h.                   */
static inline bool kt_key_is(const kt_pair *pr, const char *lit, size_t len)
{
    return pr->klen == len && memcmp(pr->key, lit, len) == 0;
}
#define KT_KEY_IS(pr, lit) kt_key_is((pr), lit, sizeof lit - 1)

/* Decoded string bytes (unescaped, UTF-8 repaired) in p->scratch or in
 * place; reports problems at offset.                                        */
bool kt_string_text(kt_parser *p, const char *s, size_t len, unsigned flags, const char **out,
                    size_t *outlen);
/* a[0..n) == b[0..n), reading only those bytes: most strings interned
 * again (ac2g, [memory], cudaLaunchKernel, aten ops, args' texts) are 4
 * to 16 bytes, two overlapping loads a side, cheaper than a call to
 * memcmp.                                                                  */
static inline bool kt_same_text(const char *a, const char *b, size_t n)
{
    if (n >= 8 && n <= 16) {
        uint64_t a0, a1, b0, b1;
        memcpy(&a0, a, 8), memcpy(&a1, a + n - 8, 8);
        memcpy(&b0, b, 8), memcpy(&b1, b + n - 8, 8);
        return ((a0 ^ b0) | (a1 ^ b1)) == 0;
    }
    if (n >= 4 && n < 8) {
        uint32_t a0, a1, b0, b1;
        memcpy(&a0, a, 4), memcpy(&a1, a + n - 4, 4);
        memcpy(&b0, b, 4), memcpy(&b1, b + n - 4, 4);
        return ((a0 ^ b0) | (a1 ^ b1)) == 0;
    }
    return memcmp(a, b, n) == 0;
}

/* A raw JSON string body decoded (escapes, UTF-8 repaired) into out, which
 * has room for 4 * len + 16 bytes; its length.  For readers holding a
 * whole document (json_doc.c).                                          */
size_t kt_decode_json_string(const char *s, size_t len, char *out);
uint32_t kt_intern(kt_parser *p, const char *s, size_t len);
/* Intern a raw JSON string body (between the quotes). KT_NONE on OOM.       */
uint32_t kt_intern_json(kt_parser *p, const char *s, size_t len, unsigned flags);
/* Where s (in the window) is in the decompressed stream.  Inline: the
 * loader keeps the offset of every event's args.                          */
static inline int64_t kt_offset_of(const kt_parser *p, const char *s)
{
    return (int64_t)(p->w->base + (uint64_t)(s - p->w->data));
}

/* numbers: kt_parse_number, kt_parse_us_as_ns (model/json_number.h)       */

/* ---- events and metadata (parse_event.c, parse_meta.c) -------------------- */
/* Parse one event object starting at '{' (s) into p->r.  *next = the byte
 * after '}'; otherwise *err = where scanning stopped.   */
kt_scan_res kt_parse_event(kt_parser *p, const char *s, const char *end, bool eof,
                           const char **next, const char **err);
/* One top-level key:value pair (value is the raw text [v, vend)).           */
bool kt_meta_handle(kt_parser *p, const char *key, size_t klen, unsigned kflags, const char *v,
                    const char *vend);
/* Finish the rank's meta_json from the collected pairs.                    */
bool kt_meta_finish(kt_parser *p);
/* Count n more complete events of raw category id (false on OOM).  Inline:
 * the loader counts every complete event.                                */
bool kt_catcount_grow(kt_catcount *c);
static inline bool kt_catcount_add(kt_catcount *c, uint32_t id, uint64_t n)
{
    if ((c->n + 1) * 2 > c->cap && !kt_catcount_grow(c)) return false;
    size_t j = (id * 2654435761u) & (c->cap - 1);
    while (c->id[j] != KT_NONE && c->id[j] != id) j = (j + 1) & (c->cap - 1);
    if (c->id[j] == KT_NONE) {
        c->id[j] = id;
        c->n++;
    }
    c->count[j] += n;
    return true;
}
void kt_catcount_free(kt_catcount *c);

/* ---- pid roles (pid_roles.c) ------------------------------------------------ */
/* The role of an event kind: CPU work, GPU work, or neither.  Runtime
 * calls and Python functions are neither: real traces put them on device
 * pids (MTIA's runtime calls on the device's pid; the Python tracer's
 * threads without a process on pid 0, the first GPU's).                 */
static inline int kt_role_of(uint8_t kind)
{
    switch (kind) {
    case KT_K_CPU_OP: case KT_K_USER_ANNOTATION:
        return KT_ROLE_CPU;
    case KT_K_KERNEL: case KT_K_MEMCPY: case KT_K_MEMSET:
        return KT_ROLE_GPU;
    default:
        return KT_ROLE_NONE;
    }
}
/* The slot of pid (added when new), NULL when the table is full. */
kt_pid_role *kt_pid_roles_slot(kt_pid_roles *t, int64_t pid);
/* Tally one stored event of role (not KT_ROLE_NONE) on pid; at is where
 * it is in the window (its offset is kept for the first of each).  Inline:
 * the loader calls it for most events.                                    */
static inline void kt_pid_roles_add(kt_parser *p, int64_t pid, int role, const char *at, uint32_t name)
{
    kt_pid_roles *t = &p->roles;
    kt_pid_role *s = &t->e[t->last];
    if (!t->n || s->pid != pid) s = kt_pid_roles_slot(t, pid);
    if (s && s->n[role]++ == 0) {
        s->first_off[role] = kt_offset_of(p, at);
        s->first_name[role] = name;
    }
}
/* Add a range parser's tallies to the file's. */
void kt_pid_roles_merge(kt_pid_roles *dst, const kt_pid_roles *src);
/* Note the file's misplaced events (KT_PD_GPU_ON_CPU_PID, _CPU_ON_GPU_PID). */
void kt_pid_roles_report(kt_parser *p);

/* ---- ranks and files (rank_detect.c, discover.c) --------------------------- */
/* Rank from a file name: rank-3, rank_3, rank3, worker3; -1 if none.      */
int kt_rank_from_filename(const char *path);

typedef struct kt_filelist {
    char **paths;
    int *explicit_rank; /* -1 = detect */
    bool *in_dir;       /* found in a directory (not named explicitly) */
    size_t n, cap;
} kt_filelist;
/* Expand paths: a directory contributes its *.json, *.json.gz,
 * *.pt.trace.json[.gz] files (non-recursive, sorted), but those matching
 * opt->exclude and the traces kineta derived from others (a note each).
 * opt->ranks: one per path, or (opt->nranks) one per file found.  opt
 * may be NULL.                                                            */
kt_status kt_discover(const char *const *paths, size_t npaths, const kt_load_options *opt,
                      kt_filelist *out, kt_diags *diags);

/* The member a trace kineta wrote (an overlay, a counter trace) opens
 * with, naming the trace it copied (derived.c, written by trace_sink.c). */
#define KT_SOURCE_KEY "kinetaSource"
/* Whether the file at path is such a copy; source (cap bytes): the name
 * of the trace it was made from.                                         */
bool kt_derived_trace(const char *path, char *source, size_t cap);
void kt_filelist_free(kt_filelist *l);

uint64_t kt_file_size(const char *path); /* 0 when unknown */

/* ---- the load (load.c) ------------------------------------------------------ */
typedef struct kt_file_job {
    const char *path;      /* file path, or the name of a caller's buffer      */
    const void *buf;       /* the caller's buffer, or NULL for a file          */
    size_t len;
    int explicit_rank;     /* -1 = detect                                      */
    bool in_dir;           /* a directory's file: skipped if not a trace        */
    bool not_trace;        /* valid JSON without traceEvents                   */
    uint64_t file_bytes;
    kt_rank *rank;         /* result                                           */
    kt_diags diags;        /* this file's reports                              */
    kt_status status;
    int64_t dist_rank;     /* distributedInfo.rank, -1 absent                  */
    bool hta_rows;         /* --hta-compat, not cached: ranges parsed in
                              parallel read HTA's rows as they go (hta_rows.h) */
} kt_file_job;

typedef struct kt_load_ctx {
    kt_strtab *strs;
    const kt_load_options *opt;
    kt_file_job *jobs;
    size_t njobs;
    atomic_size_t next;          /* next job to take                       */
    atomic_int working;          /* workers not yet out of jobs            */
    atomic_uint_fast64_t done;   /* input bytes consumed, for progress     */
    uint64_t total;
    int threads;
    uint64_t range_bytes;        /* split.c: bytes per parallel range      */
} kt_load_ctx;

/* A large plain file is parsed in ranges of this many bytes, in parallel. */
#define KT_RANGE_BYTES ((uint64_t)16 << 20)
/* kt_load with another range size (tests exercise splitting on small files). */
kt_status kt_load_ranges(const char *const *paths, size_t npaths, const kt_load_options *opt,
                         uint64_t range_bytes, kt_trace **out, kt_diags **failure);
/* One file of a kt_discover list loaded alone, as kt_load loads it among
 * the others (lib/scale); *skipped: a directory's non-trace JSON.         */
kt_status kt_load_listed(const char *path, int explicit_rank, bool in_dir, const kt_load_options *opt,
                         kt_trace **out, kt_diags **failure, bool *skipped);

/* A plain file's rank given columns for as many events as its bytes can
 * hold, before the events fill them (parse_event.c).  Columns grown by
 * doubling are copied ~once in all, and moved: on a PVM guest the first
 * read of a moved page after the load cost ~15x a later read (reading
 * eight columns of the 1 GB synthetic trace once: 0.19 s against 0.01 s),
 * which --hta-compat's passes over the columns paid.                    */
void kt_rank_size_for_file(kt_rank *r);

kt_icache *kt_icache_new(void);
/* A parser for job j writing into r (j->rank or a staging rank). */
bool kt_job_parser(kt_parser *p, kt_load_ctx *ctx, kt_file_job *j, kt_rank *r, kt_icache *cache,
                   kt_window *w);
/* Status, metadata, counts and reports of a parsed job into j. */
kt_status kt_finish_job(kt_file_job *j, kt_parser *p, bool ok, uint64_t json_bytes);

/* ---- one large file on several threads (split.c) --------------------------
 * The file is parsed in byte ranges of the decompressed JSON; where the
 * ranges start and how their bytes are read depends on the input:          */
typedef enum { KT_RANGE_AT, KT_RANGE_NONE, KT_RANGE_END } kt_range_kind;
typedef struct kt_range_io {
    void *ctx;
    /* Guessed start of range k (AT), no start in it (NONE: it joins the
     * range before), or no such range (END).  May wait for data.          */
    kt_range_kind (*start)(void *ctx, size_t k, uint64_t *off);
    /* The bytes from off on. */
    kt_status (*open)(void *ctx, uint64_t off, kt_src **out);
    /* Parsing is final up to end, and ranges before next are committed:
     * data before both will not be read again.                            */
    void (*release)(void *ctx, uint64_t end, size_t next);
} kt_range_io;

bool kt_split_worth_it(const kt_load_ctx *ctx, const kt_file_job *j);
kt_status kt_parse_split(kt_load_ctx *ctx, kt_file_job *j, kt_icache *cache);
/* The ranges driver, for both kinds of input. */
kt_status kt_parse_ranges(kt_load_ctx *ctx, kt_file_job *j, kt_icache *cache, const kt_range_io *io,
                          uint64_t *json_bytes);
/* A plausible event start in buf ('{' after ',' or '[', '"' after it). */
long kt_event_start_in(const char *buf, size_t n);

/* ---- gzip decompressed into shared blocks (gz_blocks.c) ------------------- */
/* Inflate src (a gzip source) on a background thread into blocks of
 * block_bytes, at most max_live alive at once; parse them in ranges.      */
kt_status kt_parse_gzip_split(kt_load_ctx *ctx, kt_file_job *j, kt_src *src, kt_icache *cache);
/* Copy up to cap bytes from offset pos (waits for the inflater); 0 = end. */
size_t kt_blocks_read(kt_blocks *b, uint64_t pos, char *dst, size_t cap);
/* The bytes from pos to the end of their block, in place (*at; KT_WIN_PAD
 * zero bytes follow them); 0 = end.  Valid until the block is released.   */
size_t kt_blocks_lend(kt_blocks *b, uint64_t pos, const char **at);

#include "scan_inline.h"

#endif /* KT_LOAD_INTERNAL_H */
