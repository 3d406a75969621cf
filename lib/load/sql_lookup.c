/* sql_lookup.c — see sql_lookup.h. */
#include "sql_lookup.h"
#include "sqlite_reader.h"

#include <stdio.h>
#include <stdlib.h>

bool kt_sql_lookup_open(kt_sql_lookup *lk, sqlite3 *db, const char *table, const char *expr, kt_build *b, bool names)
{
    *lk = (kt_sql_lookup){ .names = names ? b : NULL };
    char sql[512];
    if (!table[0] || snprintf(sql, sizeof sql, "SELECT %s FROM \"%s\" WHERE id = ?", expr, table) >= (int)sizeof sql ||
        sqlite3_prepare_v2(db, sql, -1, &lk->st, NULL) != SQLITE_OK)
        return false;
    lk->cap = kt_sql_rows(db, table);
    lk->val = malloc((lk->cap ? lk->cap : 1) * sizeof *lk->val);
    lk->null = malloc(lk->cap ? lk->cap : 1);
    if (lk->val && lk->null && kt_i64map_init(&lk->at, lk->cap)) return true;
    b->oom = true;
    return false;
}

void kt_sql_lookup_close(kt_sql_lookup *lk)
{
    sqlite3_finalize(lk->st);
    kt_i64map_free(&lk->at);
    free(lk->val);
    free(lk->null);
    *lk = (kt_sql_lookup){ 0 };
}

/* id's row from SQLite: false when there is none; its value in *v,
 * *null when it is NULL (or a name that could not be interned).       */
static bool fetch(kt_sql_lookup *lk, sqlite3_value *id, int64_t *v, bool *null)
{
    sqlite3_reset(lk->st);
    sqlite3_bind_value(lk->st, 1, id);
    if (sqlite3_step(lk->st) != SQLITE_ROW) return false;
    *null = sqlite3_column_type(lk->st, 0) == SQLITE_NULL;
    if (*null) return true;
    if (!lk->names) *v = sqlite3_column_int64(lk->st, 0);
    else {
        const char *s = (const char *)sqlite3_column_text(lk->st, 0);
        uint32_t name = s ? kt_build_str(lk->names, s, (size_t)sqlite3_column_bytes(lk->st, 0)) : KT_NONE;
        *null = name == KT_NONE;
        *v = name;
    }
    return true;
}

/* The value of id (false: no row, or NULL), kept when id is an integer
 * of a row: those number at most the table's rows, so the map (sized for
 * them) never fills.  Other ids are asked again each time.  Rows often
 * repeat the previous row's id: that one is checked first.             */
static bool value_of(kt_sql_lookup *lk, sqlite3_value *id, int64_t *v)
{
    int type = sqlite3_value_type(id);
    if (!lk->st || type == SQLITE_NULL) return false;
    int64_t key = type == SQLITE_INTEGER ? sqlite3_value_int64(id) : INT64_MIN;
    bool keep = key != INT64_MIN, null = true;
    uint32_t k = !keep ? KT_NONE : lk->n && key == lk->last_key ? lk->last : kt_i64map_get(&lk->at, key, KT_NONE);
    if (k != KT_NONE) {
        lk->last_key = key, lk->last = k;
        *v = lk->val[k];
        return !lk->null[k];
    }
    if (!fetch(lk, id, v, &null)) return false;
    if (keep && lk->n < lk->cap) {
        lk->val[lk->n] = *v;
        lk->null[lk->n] = null;
        *kt_i64map_slot(&lk->at, key, (uint32_t)lk->n) = (uint32_t)lk->n;
        lk->last_key = key, lk->last = (uint32_t)lk->n;
        lk->n++;
    }
    return !null;
}

bool kt_sql_lookup_int(kt_sql_lookup *lk, sqlite3_value *id, int64_t *out) { return value_of(lk, id, out); }

uint32_t kt_sql_lookup_name(kt_sql_lookup *lk, sqlite3_value *id)
{
    int64_t v;
    return value_of(lk, id, &v) ? (uint32_t)v : KT_NONE;
}
