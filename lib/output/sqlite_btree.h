/*
 * sqlite_btree.h — a fresh SQLite database file laid out page by page.
 *
 * An export writes millions of rows once into a file that is then only
 * read.  Through SQLite's API each row costs its virtual machine and its
 * b-tree inserts (~0.75 µs a row, five times the load of the trace); yet
 * the rows come in rowid order and an index's entries can be sorted first,
 * so each b-tree can be written bottom-up in one pass instead: leaves as
 * they fill, then each interior level from the list of pages below it.
 * The result is an ordinary SQLite 3 database (https://sqlite.org/
 * fileformat2.html: 4 KiB pages, UTF-8, schema format 4) which libsqlite3
 * then opens to add the small tables and views (output/sqlite_export.c).
 *
 * Limits, checked: a row's record fits in a page (no overflow pages: the
 * bulk tables hold integers and short texts), the schema rows fit in page
 * 1, rowids strictly increase, index entries arrive in order (the caller
 * sorts; compared here only as far as cheap: see sqlb_entry).
 */
#ifndef KT_SQLITE_BTREE_H
#define KT_SQLITE_BTREE_H

#include "kineta.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct sqlb sqlb;

/* One record being built: its serial types and its body, column by column
 * (inline: an export builds tens of millions of them).  Texts keep the
 * body within SQLB_TEXT_ROOM; integers (8 bytes at most each, stored 8 at
 * a time) always fit after them.                                          */
#define SQLB_MAX_COLS 16
#define SQLB_TEXT_ROOM 1024
typedef struct sqlb_rec {
    uint8_t head[SQLB_MAX_COLS * 9];
    uint8_t body[SQLB_TEXT_ROOM + SQLB_MAX_COLS * 8 + 8];
    unsigned nhead, nbody, ncols;
    bool too_big; /* more columns or text than the buffers hold */
} sqlb_rec;

static inline void sqlb_rec_clear(sqlb_rec *r) { r->nhead = r->nbody = r->ncols = 0, r->too_big = false; }

static inline bool sqlb_rec_full(sqlb_rec *r)
{
    if (__builtin_expect(r->ncols < SQLB_MAX_COLS, 1)) return r->ncols++, false;
    r->too_big = true;
    return true;
}

static inline void sqlb_rec_null(sqlb_rec *r)
{
    if (!sqlb_rec_full(r)) r->head[r->nhead++] = 0;
}

/* v's serial type: the smallest of 1-6 (1, 2, 3, 4, 6, 8 bytes) holding
 * it, or 8 and 9, the constants 0 and 1 (schema format 4); found from the
 * bits v needs rather than by a compare per size.                        */
static inline uint8_t sqlb_int_serial(int64_t v, unsigned *len)
{
    /* by the bits of v's magnitude (a k-byte type holds 8k - 1 of them) */
    static const uint8_t type_of_bits[65] = { 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3,
                                              3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5,
                                              5, 5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6 };
    static const uint8_t len_of_type[7] = { 0, 1, 2, 3, 4, 6, 8 };
    if ((uint64_t)v <= 1) return *len = 0, (uint8_t)(8 + v);
    uint64_t u = (uint64_t)(v ^ (v >> 63)); /* v, or -v - 1 when negative */
    uint8_t t = type_of_bits[64 - __builtin_clzll(u | 1)];
    *len = len_of_type[t];
    return t;
}

static inline void sqlb_rec_int(sqlb_rec *r, int64_t v)
{
    unsigned len;
    uint8_t t = sqlb_int_serial(v, &len);
    if (sqlb_rec_full(r)) return;
    r->head[r->nhead++] = t;
    /* the low len bytes, big-endian, in one 8-byte store (two shifts: a
     * shift by 64 is undefined)                                          */
    unsigned drop = 4 * (8 - len);
    uint64_t be = __builtin_bswap64(((uint64_t)v << drop) << drop);
    memcpy(r->body + r->nbody, &be, 8);
    r->nbody += len;
}

static inline void sqlb_rec_text(sqlb_rec *r, const char *s, size_t len)
{
    if (r->nbody > SQLB_TEXT_ROOM || len > SQLB_TEXT_ROOM - r->nbody) {
        r->too_big = true;
        return;
    }
    if (sqlb_rec_full(r)) return;
    uint64_t type = 13 + 2 * (uint64_t)len;
    if (type < 0x80) r->head[r->nhead++] = (uint8_t)type;
    else r->head[r->nhead++] = (uint8_t)(0x80 | (type >> 7)), r->head[r->nhead++] = (uint8_t)(type & 0x7f);
    memcpy(r->body + r->nbody, s, len);
    r->nbody += (unsigned)len;
}

/* Create path (replacing a file there).  KT_EINPUT with err set when it
 * cannot be created.                                                       */
kt_status sqlb_create(const char *path, char *err, size_t errlen, sqlb **out);

/* Start a table or an index: its schema row (name, the table it belongs
 * to, the CREATE statement SQLite will parse when it opens the file).
 * Tables before their indexes.                                             */
bool sqlb_table(sqlb *w, const char *name, const char *sql);
bool sqlb_index(sqlb *w, const char *name, const char *table, const char *sql);
/* A table's next row (rowid greater than the last one's). */
bool sqlb_row(sqlb *w, int64_t rowid, const sqlb_rec *rec);
/* An index's next entry: the indexed columns then the row's rowid, in the
 * index's order (the caller sorts).                                        */
bool sqlb_entry(sqlb *w, const sqlb_rec *rec);
/* Finish the current table or index (its interior pages). */
bool sqlb_end(sqlb *w);

/* Remember a failure of the caller's own (returns false). */
bool sqlb_fail(sqlb *w, const char *why);

/* When ok and nothing failed: write the schema page and close: KT_OK.
 * Otherwise close and KT_EINPUT (the caller removes the file).  Frees w.   */
kt_status sqlb_close(sqlb *w, bool ok);

#endif
