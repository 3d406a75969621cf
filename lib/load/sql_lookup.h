/*
 * sql_lookup.h — one column of a small table (names, agents, threads) by
 * the id a large table's rows refer to, fetched at the first use of each
 * id and kept.
 *
 * A reader that JOINs the small table to every row of the large one pays
 * a b-tree seek and the joined columns' decoding per row; a kernel table
 * refers to a few kernel symbols and agents a million times over.  The
 * lookup asks SQLite once per distinct id ("SELECT expr FROM table WHERE
 * id = ?", so the comparison is SQL's, as in the join) and answers the
 * rest from a hash map.
 */
#ifndef KT_SQL_LOOKUP_H
#define KT_SQL_LOOKUP_H

#include "model/i64map.h"
#include "model/model_build.h"

#include <sqlite3.h>

typedef struct kt_sql_lookup {
    sqlite3_stmt *st;  /* SELECT expr FROM table WHERE id = ?              */
    kt_build *names;   /* non-NULL: expr is a name, interned in its strtab */
    kt_i64map at;      /* integer id -> k                                  */
    int64_t *val;      /* value of k                                       */
    bool *null;        /* k's value is NULL                                */
    size_t n, cap;     /* ids kept; at most the table's rows               */
    int64_t last_key;  /* the id last asked for, when kept (n > 0)         */
    uint32_t last;     /* its k                                            */
} kt_sql_lookup;

/* The lookup of expr in table by id; names: the values are names (text)
 * interned in b's strtab, else integers.  False when the table is absent
 * or expr names a column it lacks (as the join's statement would fail),
 * or on OOM (b->oom set).                                              */
bool kt_sql_lookup_open(kt_sql_lookup *lk, sqlite3 *db, const char *table, const char *expr, kt_build *b, bool names);
void kt_sql_lookup_close(kt_sql_lookup *lk);

/* The integer value of the row whose id is id: false when there is no
 * such row or its value is NULL (the join's NULL).                      */
bool kt_sql_lookup_int(kt_sql_lookup *lk, sqlite3_value *id, int64_t *out);
/* The interned name of the row whose id is id, KT_NONE when there is no
 * such row or its value is NULL.                                        */
uint32_t kt_sql_lookup_name(kt_sql_lookup *lk, sqlite3_value *id);

#endif
