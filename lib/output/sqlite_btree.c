/*
 * sqlite_btree.c — SQLite b-trees written bottom-up into a fresh file.
 *
 * Why not INSERT: see sqlite_btree.h.  How: a table's rows arrive in rowid
 * order, so its leaves are filled one after the other and written as they
 * fill; each written page is remembered with the separator that follows
 * it (a table's: the page's largest rowid; an index's: the entry between
 * two leaves, which in SQLite's index b-trees lives in the parent only).
 * When the table or index ends, each interior level is packed from that
 * list the same way, up to a single root.  Page 1 (the file header and
 * the schema table) is written last, once the roots are known.
 *
 * Format facts used (https://sqlite.org/fileformat2.html): big-endian
 * varints of 1-9 bytes; records as a header of serial types then the
 * values; leaf cells "payload size, [rowid,] payload", interior cells
 * "left child page, key"; page header 8 bytes (leaves) or 12 (interior,
 * with the right-most child); cell pointers in key order after it, cell
 * content packed at the page's end.
 */
#include "output/sqlite_btree.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PAGE 4096u
#define OUT_PAGES 256u /* pages gathered per write() */
#define MAX_SCHEMA 16
/* The largest payloads a cell keeps on its page; anything larger would
 * need overflow pages, which the bulk tables never do.                   */
#define TABLE_MAX_LOCAL (PAGE - 35)
#define INDEX_MAX_LOCAL ((PAGE - 12) * 64 / 255 - 23)
#define SQLITE_VERSION_WRITTEN 3040001 /* Debian 12's; readers ignore it */

/* SQLite locks a database through the bytes from PENDING_BYTE, 1 GiB into
 * the file, and so never stores anything in the page that holds them (the
 * lock-byte page, https://sqlite.org/fileformat2.html#the_lock_byte_page;
 * page 262145 at 4 KiB).  That page stays in the file, as zeros, counted
 * in the header's page count and referenced by no b-tree; a b-tree page
 * written there is one libsqlite3 hands out again as new, and the file is
 * corrupt.  Tests move it (sqlb_move_lock_page).                        */

enum { LEAF_TABLE = 0x0D, INTERIOR_TABLE = 0x05, LEAF_INDEX = 0x0A, INTERIOR_INDEX = 0x02 };

typedef struct page {
    uint8_t b[PAGE];
    unsigned hdr;      /* where the page header starts: 100 on page 1, else 0 */
    unsigned ncells;
    unsigned content;  /* start of the cell content area                  */
    unsigned last_len; /* bytes of the last cell added                      */
} page;

/* The pages of one level in order and the separators between them (cell
 * bodies without the child pointer): nchild - 1 of them once complete.   */
typedef struct level {
    uint32_t *child;
    size_t nchild, cap_child;
    uint32_t *sep_at; /* separator i is sep[sep_at[i] .. sep_at[i + 1]) */
    size_t nsep, cap_sep_at;
    uint8_t *sep;
    size_t sep_bytes, cap_sep;
} level;

typedef struct schema_row {
    const char *type;
    char *name, *tbl, *sql;
    uint32_t root;
} schema_row;

struct sqlb {
    int fd;
    char *err;
    size_t errlen;
    bool failed;
    uint32_t npages; /* pages written or gathered, page 1 included */
    uint32_t lock_page; /* the lock-byte page, written as zeros         */
    uint8_t *out;
    size_t nout;
    schema_row schema[MAX_SCHEMA];
    size_t nschema;
    /* the b-tree being written */
    bool open, index;
    page *cur, *prev;   /* the leaf filling; an index's full leaf waiting */
    bool pending;       /* an index entry waits in pend to separate prev  */
    uint8_t pend[PAGE]; /* from the next leaf                              */
    unsigned npend;
    int64_t last_rowid;
    bool any_row;
    level leaves;
    page pages[2];
};

/* Kept out of line: inlined, its snprintf would make every row's call
 * save and restore registers it never uses.                            */
static __attribute__((noinline, cold)) bool fail(sqlb *w, const char *why)
{
    if (!w->failed && w->err && w->errlen) snprintf(w->err, w->errlen, "%s", why);
    w->failed = true;
    return false;
}

bool sqlb_fail(sqlb *w, const char *why) { return fail(w, why); }

/* ---- numbers as SQLite writes them ---------------------------------- */

/* v as a varint ending right before end (written backwards, so no
 * reversal); its length.                                                */
static inline unsigned put_varint_before(uint8_t *end, uint64_t v)
{
    uint8_t *p = end;
    if (v >> 56) { /* nine bytes: the last one carries eight bits */
        *--p = (uint8_t)v;
        v >>= 8;
        for (int i = 0; i < 8; i++, v >>= 7) *--p = (uint8_t)(0x80 | (v & 0x7f));
        return 9;
    }
    *--p = (uint8_t)(v & 0x7f); /* the last byte has no continuation bit */
    for (v >>= 7; v; v >>= 7) *--p = (uint8_t)(0x80 | (v & 0x7f));
    return (unsigned)(end - p);
}

/* v as a varint at p; its length. */
static inline unsigned put_varint(uint8_t *p, uint64_t v)
{
    if (v < 0x80) {
        p[0] = (uint8_t)v;
        return 1;
    }
    uint8_t tmp[9];
    unsigned n = put_varint_before(tmp + 9, v);
    memcpy(p, tmp + 9 - n, n);
    return n;
}

static void put_be(uint8_t *p, uint64_t v, unsigned len)
{
    for (unsigned i = len; i-- > 0; v >>= 8) p[i] = (uint8_t)v;
}

/* ---- records ------------------------------------------------------- */

/* The record's size (its header size byte written), or 0 when it is not
 * what was declared.                                                     */
static unsigned rec_finish(sqlb_rec *r)
{
    if (r->too_big) return 0;
    r->buf[SQLB_LEAD] = (uint8_t)(r->body_at - SQLB_LEAD); /* under 128: 33 at most */
    return r->end - SQLB_LEAD;
}

/* The cell: the record's payload size (and a table row's rowid) put
 * right before it; its start and length.  Inlined, so that each caller's
 * with_rowid is a constant.                                              */
static inline __attribute__((always_inline)) const uint8_t *rec_cell(sqlb_rec *r, unsigned payload, bool with_rowid,
                                                                    int64_t rowid, unsigned *len)
{
    uint8_t *start = r->buf + SQLB_LEAD;
    if (with_rowid) start -= put_varint_before(start, (uint64_t)rowid);
    start -= put_varint_before(start, payload);
    *len = (unsigned)(r->buf + r->end - start);
    return start;
}

/* ---- pages ------------------------------------------------------------ */

static bool leaf_type(uint8_t type) { return type == LEAF_TABLE || type == LEAF_INDEX; }

/* Only page 1's file header needs zeros first: on every page the cells
 * and their pointers overwrite what they cover, and page_seal clears the
 * space left between them (a whole page's memset cost more than a row's
 * share of the export's instructions).                                   */
static void page_reset(page *p, unsigned hdr)
{
    if (hdr) memset(p->b, 0, hdr);
    p->hdr = hdr;
    p->ncells = 0;
    p->content = PAGE;
    p->last_len = 0;
}

static bool page_fits(const page *p, unsigned hlen, unsigned cell)
{
    return p->hdr + hlen + 2 * (p->ncells + 1) + cell <= p->content;
}

static __attribute__((noinline)) void page_add(page *p, unsigned hlen, const uint8_t *cell, unsigned len)
{
    p->content -= len;
    memcpy(p->b + p->content, cell, len);
    uint8_t *ptr = p->b + p->hdr + hlen + 2 * p->ncells;
    ptr[0] = (uint8_t)(p->content >> 8), ptr[1] = (uint8_t)p->content;
    p->ncells++;
    p->last_len = len;
}

/* page_add for a cell built in a record (sqlb_rec), at most SHORT_CELL
 * bytes from the record's start: the SHORT_CELL bytes ending at the cell's
 * end go in as one fixed-size copy (a few vector moves instead of a call
 * to memcpy, once per row).  The bytes it puts before the cell land in
 * the free space, which page_seal clears; near a full page, memcpy.     */
#define SHORT_CELL 64u
_Static_assert(SQLB_LEAD >= SHORT_CELL, "a record's last SHORT_CELL bytes are inside its buffer");
static inline __attribute__((always_inline)) void page_add_rec(page *p, unsigned hlen, const uint8_t *cell,
                                                               unsigned len)
{
    unsigned ptrs_end = p->hdr + hlen + 2 * (p->ncells + 1), content = p->content;
    if (len > SHORT_CELL || content < ptrs_end + SHORT_CELL) {
        page_add(p, hlen, cell, len);
        return;
    }
    memcpy(p->b + content - SHORT_CELL, cell + len - SHORT_CELL, SHORT_CELL);
    content -= len;
    p->b[ptrs_end - 2] = (uint8_t)(content >> 8), p->b[ptrs_end - 1] = (uint8_t)content;
    p->content = content;
    p->ncells++;
    p->last_len = len;
}

/* Take the last cell added back out (into cell; its length returned). */
static unsigned page_pop(page *p, unsigned hlen, uint8_t *cell)
{
    unsigned len = p->last_len;
    memcpy(cell, p->b + p->content, len);
    memset(p->b + p->content, 0, len);
    p->content += len;
    p->ncells--;
    memset(p->b + p->hdr + hlen + 2 * p->ncells, 0, 2);
    p->last_len = 0; /* one pop per page (build_level, finish_index_leaves) */
    return len;
}

static void page_seal(page *p, uint8_t type, uint32_t right)
{
    uint8_t *h = p->b + p->hdr;
    unsigned ptrs_end = p->hdr + (leaf_type(type) ? 8 : 12) + 2 * p->ncells;
    memset(p->b + ptrs_end, 0, p->content - ptrs_end); /* the free space */
    h[0] = type;
    put_be(h + 1, 0, 2); /* no free blocks */
    put_be(h + 3, p->ncells, 2);
    put_be(h + 5, p->content, 2);
    h[7] = 0; /* no fragmented bytes */
    if (!leaf_type(type)) put_be(h + 8, right, 4);
}

/* ---- the file --------------------------------------------------------- */

static bool flush_out(sqlb *w)
{
    for (size_t done = 0; done < w->nout;) {
        ssize_t n = write(w->fd, w->out + done, w->nout - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            char why[160];
            snprintf(why, sizeof why, "cannot write the database: %s", n < 0 ? strerror(errno) : "short write");
            return fail(w, why);
        }
        done += (size_t)n;
    }
    w->nout = 0;
    return true;
}

/* Append a page's bytes (zeros when b is NULL) as page npages + 1. */
static bool append_page(sqlb *w, const uint8_t *b)
{
    if (w->npages == UINT32_MAX - 1) return fail(w, "the database would exceed SQLite's page count");
    if (w->nout == (size_t)OUT_PAGES * PAGE && !flush_out(w)) return false;
    if (b) memcpy(w->out + w->nout, b, PAGE);
    else memset(w->out + w->nout, 0, PAGE);
    w->nout += PAGE;
    w->npages++;
    return true;
}

/* Seal p and append it as the next page, after the lock-byte page when
 * that comes next; its number in *pgno.                                */
static bool emit_page(sqlb *w, page *p, uint8_t type, uint32_t right, uint32_t *pgno)
{
    if (w->failed) return false;
    if (w->npages + 1 == w->lock_page && !append_page(w, NULL)) return false;
    page_seal(p, type, right);
    if (!append_page(w, p->b)) return false;
    *pgno = w->npages;
    return true;
}

kt_status sqlb_create(const char *path, char *err, size_t errlen, sqlb **out)
{
    *out = NULL;
    sqlb *w = calloc(1, sizeof *w);
    uint8_t *buf = malloc((size_t)OUT_PAGES * PAGE);
    if (!w || !buf) {
        free(w);
        free(buf);
        return KT_ENOMEM;
    }
    w->err = err;
    w->errlen = errlen;
    w->out = buf;
    w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (w->fd < 0) {
        if (err && errlen) snprintf(err, errlen, "%s", strerror(errno));
        free(buf);
        free(w);
        return KT_EINPUT;
    }
    /* page 1's place, filled at the end */
    memset(w->out, 0, PAGE);
    w->nout = PAGE;
    w->npages = 1;
    w->lock_page = SQLB_PENDING_BYTE / PAGE + 1;
    *out = w;
    return KT_OK;
}

void sqlb_move_lock_page(sqlb *w, uint32_t pending_byte) { w->lock_page = pending_byte / PAGE + 1; }

/* ---- levels: pages and their separators ---------------------------- */

static bool grow(sqlb *w, void **arr, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap) return true;
    size_t c = *cap ? *cap : 64;
    while (c < need) c *= 2;
    void *p = realloc(*arr, c * size);
    if (!p) return fail(w, "out of memory");
    *arr = p;
    *cap = c;
    return true;
}

static bool level_child(sqlb *w, level *l, uint32_t pg)
{
    if (!grow(w, (void **)&l->child, &l->cap_child, l->nchild + 1, sizeof *l->child)) return false;
    l->child[l->nchild++] = pg;
    return true;
}

static bool level_sep(sqlb *w, level *l, const uint8_t *sep, unsigned len)
{
    if (!grow(w, (void **)&l->sep_at, &l->cap_sep_at, l->nsep + 2, sizeof *l->sep_at) ||
        !grow(w, (void **)&l->sep, &l->cap_sep, l->sep_bytes + len, 1))
        return false;
    if (l->sep_bytes + len > UINT32_MAX) return fail(w, "too many index pages");
    l->sep_at[l->nsep] = (uint32_t)l->sep_bytes;
    memcpy(l->sep + l->sep_bytes, sep, len);
    l->sep_bytes += len;
    l->sep_at[++l->nsep] = (uint32_t)l->sep_bytes;
    return true;
}

static void level_free(level *l)
{
    free(l->child);
    free(l->sep_at);
    free(l->sep);
    *l = (level){ 0 };
}

/* Pack the level's children into interior pages, the level above them.
 * Every page needs one cell at least, so when the last page would get
 * none, the page before gives it its last child.                       */
static bool build_level(sqlb *w, const level *below, uint8_t type, level *up)
{
    size_t last = below->nchild - 1;
    page *p = &w->pages[0];
    uint8_t cell[PAGE];
    page_reset(p, 0);
    for (size_t i = 0; i < last; i++) {
        const uint8_t *sep = below->sep + below->sep_at[i];
        unsigned len = below->sep_at[i + 1] - below->sep_at[i];
        if (page_fits(p, 12, 4 + len)) {
            put_be(cell, below->child[i], 4);
            memcpy(cell + 4, sep, len);
            page_add(p, 12, cell, 4 + len);
            continue;
        }
        size_t split = i;
        if (i + 1 == last) { /* the next page would hold c_last alone */
            if (p->ncells < 2) return fail(w, "sqlite_btree: an interior page holds one cell"); /* cells fit 4 */
            page_pop(p, 12, cell);
            split = i - 1;
        }
        uint32_t pg;
        const uint8_t *up_sep = below->sep + below->sep_at[split];
        unsigned up_len = below->sep_at[split + 1] - below->sep_at[split];
        if (!emit_page(w, p, type, below->child[split], &pg) || !level_child(w, up, pg) ||
            !level_sep(w, up, up_sep, up_len))
            return false;
        page_reset(p, 0);
        i = split; /* the loop goes on with the child after the separator */
    }
    uint32_t pg;
    return emit_page(w, p, type, below->child[last], &pg) && level_child(w, up, pg);
}

/* The interior levels over the leaves, up to the root. */
static bool build_interior(sqlb *w, uint32_t *root)
{
    level l = w->leaves;
    w->leaves = (level){ 0 };
    uint8_t type = w->index ? INTERIOR_INDEX : INTERIOR_TABLE;
    bool ok = true;
    while (ok && l.nchild > 1) {
        level up = { 0 };
        ok = build_level(w, &l, type, &up);
        level_free(&l);
        l = up;
    }
    if (ok) *root = l.child[0];
    level_free(&l);
    return ok;
}

/* ---- tables and indexes ----------------------------------------------- */

static char *copy_text(sqlb *w, const char *s)
{
    char *d = strdup(s);
    if (!d) fail(w, "out of memory");
    return d;
}

static bool begin(sqlb *w, const char *type, const char *name, const char *tbl, const char *sql, bool index)
{
    if (w->failed) return false;
    if (w->open || w->nschema == MAX_SCHEMA) return fail(w, "sqlite_btree: misuse");
    schema_row *s = &w->schema[w->nschema++];
    *s = (schema_row){ .type = type, .name = copy_text(w, name), .tbl = copy_text(w, tbl), .sql = copy_text(w, sql) };
    w->open = true;
    w->index = index;
    w->cur = &w->pages[0];
    w->prev = &w->pages[1];
    page_reset(w->cur, 0);
    w->pending = false;
    w->any_row = false;
    return !w->failed;
}

bool sqlb_table(sqlb *w, const char *name, const char *sql) { return begin(w, "table", name, name, sql, false); }

bool sqlb_index(sqlb *w, const char *name, const char *table, const char *sql)
{
    return begin(w, "index", name, table, sql, true);
}

/* A row on a new leaf, the full one out.  Out of line (and page_add's
 * call at the end of sqlb_row a tail call), so that a row that fits, nearly
 * all of them, saves no registers for these calls.                       */
static __attribute__((noinline)) bool row_on_new_leaf(sqlb *w, int64_t rowid, const uint8_t *cell, unsigned n)
{
    uint8_t sep[9];
    uint32_t pg = 0; /* set by emit_page when it succeeds (gcc cannot see it with the profile) */
    if (!emit_page(w, w->cur, LEAF_TABLE, 0, &pg) || !level_child(w, &w->leaves, pg) ||
        !level_sep(w, &w->leaves, sep, put_varint(sep, (uint64_t)w->last_rowid)))
        return false;
    page_reset(w->cur, 0);
    page_add(w->cur, 8, cell, n);
    w->last_rowid = rowid;
    return true;
}

bool sqlb_row(sqlb *w, int64_t rowid, sqlb_rec *rec)
{
    if (w->failed) return false;
    if (!w->open || w->index) return fail(w, "sqlite_btree: misuse");
    if (w->any_row && rowid <= w->last_rowid) return fail(w, "two rows with the same key (ranks numbered alike?)");
    unsigned payload = rec_finish(rec), n;
    if (!payload || payload > TABLE_MAX_LOCAL) return fail(w, "a row too large for the bulk writer");
    const uint8_t *cell = rec_cell(rec, payload, true, rowid, &n);
    w->any_row = true;
    if (!page_fits(w->cur, 8, n)) return row_on_new_leaf(w, rowid, cell, n);
    w->last_rowid = rowid;
    page_add_rec(w->cur, 8, cell, n);
    return true;
}

/* An index entry after a full leaf (the waiting one and its separator go
 * out) or that does not fit (it separates the full leaf from the next).
 * Out of line, as row_on_new_leaf.                                        */
static __attribute__((noinline)) bool entry_slow(sqlb *w, const uint8_t *cell, unsigned n)
{
    if (w->pending) { /* a new leaf starts: the waiting one and its separator go */
        uint32_t pg;
        if (!emit_page(w, w->prev, LEAF_INDEX, 0, &pg) || !level_child(w, &w->leaves, pg) ||
            !level_sep(w, &w->leaves, w->pend, w->npend))
            return false;
        w->pending = false;
    }
    if (page_fits(w->cur, 8, n)) {
        page_add(w->cur, 8, cell, n);
        return true;
    }
    /* the leaf is full: this entry separates it from the next leaf */
    page *full = w->cur;
    w->cur = w->prev;
    w->prev = full;
    page_reset(w->cur, 0);
    memcpy(w->pend, cell, n);
    w->npend = n;
    w->pending = true;
    return true;
}

bool sqlb_entry(sqlb *w, sqlb_rec *rec)
{
    if (w->failed) return false;
    if (!w->open || !w->index) return fail(w, "sqlite_btree: misuse");
    unsigned payload = rec_finish(rec), n;
    if (!payload || payload > INDEX_MAX_LOCAL) return fail(w, "an index entry too large for the bulk writer");
    const uint8_t *cell = rec_cell(rec, payload, false, 0, &n);
    if (w->pending || !page_fits(w->cur, 8, n)) return entry_slow(w, cell, n);
    page_add_rec(w->cur, 8, cell, n);
    return true;
}

/* The index's last leaves: an entry still waiting to separate the full leaf
 * from a next one that got no entry becomes that leaf's entry, and the
 * full leaf's last entry the separator.                                  */
static bool finish_index_leaves(sqlb *w)
{
    if (!w->pending) return true;
    uint8_t sep[PAGE];
    unsigned len = page_pop(w->prev, 8, sep);
    uint32_t pg;
    if (!emit_page(w, w->prev, LEAF_INDEX, 0, &pg) || !level_child(w, &w->leaves, pg) ||
        !level_sep(w, &w->leaves, sep, len))
        return false;
    page_add(w->cur, 8, w->pend, w->npend);
    w->pending = false;
    return true;
}

bool sqlb_end(sqlb *w)
{
    if (w->failed) return false;
    if (!w->open) return fail(w, "sqlite_btree: misuse");
    w->open = false;
    if (w->index && !finish_index_leaves(w)) return false;
    uint32_t pg;
    if (!emit_page(w, w->cur, w->index ? LEAF_INDEX : LEAF_TABLE, 0, &pg) || !level_child(w, &w->leaves, pg))
        return false;
    return build_interior(w, &w->schema[w->nschema - 1].root);
}

/* ---- page 1: the header and the schema table ------------------------ */

/* sqlite_schema's row (type, name, tbl_name, rootpage, sql) as a cell,
 * built as every other record; NULL when its texts exceed the record's
 * room.                                                                  */
static const uint8_t *schema_cell(const schema_row *s, int64_t rowid, sqlb_rec *rec, unsigned *len)
{
    sqlb_pos p = sqlb_rec_text(rec, sqlb_rec_begin(5), s->type, strlen(s->type));
    p = sqlb_rec_text(rec, p, s->name, strlen(s->name));
    p = sqlb_rec_text(rec, p, s->tbl, strlen(s->tbl));
    p = sqlb_rec_int(rec, p, s->root);
    sqlb_rec_end(rec, sqlb_rec_text(rec, p, s->sql, strlen(s->sql)));
    unsigned payload = rec_finish(rec);
    return payload ? rec_cell(rec, payload, true, rowid, len) : NULL;
}

static void file_header(uint8_t *h, uint32_t npages)
{
    memcpy(h, "SQLite format 3", 16);
    put_be(h + 16, PAGE, 2);
    h[18] = h[19] = 1; /* rollback journal, as SQLite creates files */
    h[20] = 0;         /* no reserved bytes per page */
    h[21] = 64, h[22] = 32, h[23] = 32;
    put_be(h + 24, 1, 4);      /* change counter */
    put_be(h + 28, npages, 4); /* valid: the change counter equals offset 92 */
    put_be(h + 40, 1, 4);      /* schema cookie */
    put_be(h + 44, 4, 4);      /* schema format 4 */
    put_be(h + 56, 1, 4);      /* UTF-8 */
    put_be(h + 92, 1, 4);
    put_be(h + 96, SQLITE_VERSION_WRITTEN, 4);
}

static bool write_page1(sqlb *w)
{
    page *p = &w->pages[0];
    page_reset(p, 100);
    sqlb_rec rec;
    for (size_t i = 0; i < w->nschema; i++) {
        unsigned len;
        const uint8_t *cell = schema_cell(&w->schema[i], (int64_t)i + 1, &rec, &len);
        if (!cell || !page_fits(p, 8, len)) return fail(w, "the schema does not fit the first page");
        page_add(p, 8, cell, len);
    }
    page_seal(p, LEAF_TABLE, 0);
    file_header(p->b, w->npages);
    if (pwrite(w->fd, p->b, PAGE, 0) != (ssize_t)PAGE) return fail(w, "cannot write the database's first page");
    return true;
}

kt_status sqlb_close(sqlb *w, bool ok)
{
    ok = ok && !w->failed && !w->open && flush_out(w) && write_page1(w);
    if (close(w->fd) != 0 && ok) ok = fail(w, "cannot close the database");
    for (size_t i = 0; i < w->nschema; i++) {
        free(w->schema[i].name);
        free(w->schema[i].tbl);
        free(w->schema[i].sql);
    }
    level_free(&w->leaves);
    free(w->out);
    free(w);
    return ok ? KT_OK : KT_EINPUT;
}
