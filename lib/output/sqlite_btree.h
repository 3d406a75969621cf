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
 * 1, rowids strictly increase.  Index entries must arrive in the index's
 * order: the caller sorts them (the tests check every shape with SQLite's
 * PRAGMA integrity_check).
 */
#ifndef KT_SQLITE_BTREE_H
#define KT_SQLITE_BTREE_H

#include "kineta.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct sqlb sqlb;

/* One record built in place, as the cell that will hold it:
 *   [lead: payload size (and rowid), right-aligned before SQLB_LEAD]
 *   [header size][serial types][values]
 * The caller declares the column count first, so every value lands where
 * it stays.  A text of 58 bytes or more, whose serial type takes two
 * bytes, moves the values written before it by one.  Texts keep the
 * values within SQLB_TEXT_ROOM; integers (8 bytes at most, stored 8 at a
 * time) always fit after them.
 *
 * While a record is built its write position travels by value (sqlb_pos,
 * in registers): kept in the record itself, every byte stored into the
 * record would make the compiler reload it (a char store may alias
 * anything), a third of the cost of an export's rows.
 *
 * SQLB_LEAD holds the lead (18 bytes at most) and more: a record's end is
 * always 64 bytes or more into buf, so that the b-tree copies a short
 * cell as the fixed 64 bytes that end with it (sqlite_btree.c).          */
#define SQLB_MAX_COLS 16
#define SQLB_TEXT_ROOM 1024
#define SQLB_LEAD 64
typedef struct sqlb_rec {
    uint8_t buf[SQLB_LEAD + 1 + 2 * SQLB_MAX_COLS + SQLB_TEXT_ROOM + SQLB_MAX_COLS * 8 + 8];
    unsigned body_at, end; /* where the values start and end (sqlb_rec_end) */
    bool too_big;          /* more columns or text than declared or held    */
} sqlb_rec;

typedef struct sqlb_pos {
    unsigned type_at, body_at, end; /* next serial type; values' start, end */
    unsigned left;                  /* columns still to come                 */
    bool bad;                       /* one more than declared, or too long   */
} sqlb_pos;

static inline sqlb_pos sqlb_rec_begin(unsigned ncols)
{
    bool bad = ncols > SQLB_MAX_COLS;
    unsigned n = bad ? 0 : ncols;
    return (sqlb_pos){ SQLB_LEAD + 1, SQLB_LEAD + 1 + n, SQLB_LEAD + 1 + n, n, bad };
}

/* The record as written; too big when its columns are not those declared. */
static inline void sqlb_rec_end(sqlb_rec *r, sqlb_pos p)
{
    r->body_at = p.body_at;
    r->end = p.end;
    r->too_big = p.bad || p.left != 0;
}

static inline sqlb_pos sqlb_rec_null(sqlb_rec *r, sqlb_pos p)
{
    if (__builtin_expect(p.left == 0, 0)) return p.bad = true, p;
    p.left--;
    r->buf[p.type_at++] = 0;
    return p;
}

/* An integer's serial type (https://sqlite.org/fileformat2.html): 8 and 9
 * are the constants 0 and 1 (schema format 4); otherwise the smallest of
 * 1-6 (1, 2, 3, 4, 6, 8 bytes) holding it, found from the highest bit of
 * its magnitude (a k-byte type holds 8k - 1 of them) by one table look-up
 * rather than a compare per size.  Its bytes, big-endian, go in one
 * 8-byte store of v shifted to the top: with the type, the length and the
 * shift read from tables, a column costs about 16 instructions, which an
 * export pays some ten times per event.                                   */
static inline sqlb_pos sqlb_rec_int(sqlb_rec *r, sqlb_pos p, int64_t v)
{
    static const uint8_t type_of_top[64] = { 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3,
                                             3, 4, 4, 4, 4, 4, 4, 4, 4, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5,
                                             5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6 };
    static const uint8_t len_of_type[7] = { 0, 1, 2, 3, 4, 6, 8 };
    static const uint8_t shift_of_type[7] = { 0, 56, 48, 40, 32, 16, 0 };
    if (__builtin_expect(p.left == 0, 0)) return p.bad = true, p;
    p.left--;
    if ((uint64_t)v <= 1) {
        r->buf[p.type_at++] = (uint8_t)(8 + v);
        return p;
    }
    uint64_t u = (uint64_t)(v ^ (v >> 63)); /* v, or -v - 1 when negative */
    uint8_t t = type_of_top[63 ^ __builtin_clzll(u | 1)];
    r->buf[p.type_at++] = t;
    uint64_t be = __builtin_bswap64((uint64_t)v << shift_of_type[t]);
    memcpy(r->buf + p.end, &be, 8);
    p.end += len_of_type[t];
    return p;
}

/* Whether a text of len bytes fits: a column left, and room for it. */
static inline bool sqlb_rec_text_fits(sqlb_pos p, size_t len)
{
    return p.left != 0 && len <= SQLB_TEXT_ROOM - (p.end - p.body_at) && (p.end - p.body_at) <= SQLB_TEXT_ROOM;
}

static inline sqlb_pos sqlb_rec_text(sqlb_rec *r, sqlb_pos p, const char *s, size_t len)
{
    if (!sqlb_rec_text_fits(p, len)) return p.bad = true, p;
    p.left--;
    unsigned type = 13 + 2 * (unsigned)len;
    if (type < 0x80) {
        r->buf[p.type_at++] = (uint8_t)type;
    } else { /* two bytes: the values so far move up by one */
        memmove(r->buf + p.body_at + 1, r->buf + p.body_at, p.end - p.body_at);
        p.body_at++, p.end++;
        r->buf[p.type_at++] = (uint8_t)(0x80 | (type >> 7));
        r->buf[p.type_at++] = (uint8_t)(type & 0x7f);
    }
    memcpy(r->buf + p.end, s, len);
    p.end += (unsigned)len;
    return p;
}

/* Where SQLite's lock bytes start: PENDING_BYTE, 0x40000000 (1 GiB), in
 * every SQLite build; the page holding it is left empty (sqlite_btree.c). */
#define SQLB_PENDING_BYTE 0x40000000u

/* Create path (replacing a file there).  KT_EINPUT with err set when it
 * cannot be created.                                                       */
kt_status sqlb_create(const char *path, char *err, size_t errlen, sqlb **out);
/* For tests: the lock bytes at pending_byte instead, as libsqlite3's own
 * moved by sqlite3_test_control(SQLITE_TESTCTRL_PENDING_BYTE, ...), so that
 * a small file crosses the page.  Before the first table.                 */
void sqlb_move_lock_page(sqlb *w, uint32_t pending_byte);

/* Start a table or an index: its schema row (name, the table it belongs
 * to, the CREATE statement SQLite will parse when it opens the file).
 * Tables before their indexes.                                             */
bool sqlb_table(sqlb *w, const char *name, const char *sql);
bool sqlb_index(sqlb *w, const char *name, const char *table, const char *sql);
/* A table's next row (rowid greater than the last one's), its record
 * ended (sqlb_rec_end); rec's lead is written.                           */
bool sqlb_row(sqlb *w, int64_t rowid, sqlb_rec *rec);
/* An index's next entry: the indexed columns then the row's rowid, in the
 * index's order (the caller sorts).                                        */
bool sqlb_entry(sqlb *w, sqlb_rec *rec);
/* Finish the current table or index (its interior pages). */
bool sqlb_end(sqlb *w);

/* Remember a failure of the caller's own (returns false). */
bool sqlb_fail(sqlb *w, const char *why);

/* When ok and nothing failed: write the schema page and close: KT_OK.
 * Otherwise close and KT_EINPUT (the caller removes the file).  Frees w.   */
kt_status sqlb_close(sqlb *w, bool ok);

#endif
