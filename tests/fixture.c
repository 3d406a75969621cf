/* fixture.c — see fixture.h. */
#include "fixture.h"
#include "test.h"

#include <locale.h>
#include <stdlib.h>
#include <string.h>

kt_trace *fx_trace(void)
{
    kt_trace *t = calloc(1, sizeof *t);
    t->strs = kt_strtab_new();
    return t;
}

kt_rank *fx_rank(kt_trace *t, int rank)
{
    kt_rank *r = kt_rank_new();
    r->rank = rank;
    r->file = strdup("fixture.json");
    t->ranks = realloc(t->ranks, (t->nranks + 1) * sizeof *t->ranks);
    t->ranks[t->nranks++] = r;
    return r;
}

static uint32_t intern(kt_trace *t, const char *s)
{
    return kt_strtab_intern(t->strs, s, strlen(s));
}

uint32_t fx_event(kt_trace *t, kt_rank *r, char ph, const char *cat, const char *name,
                  int64_t ts, int64_t dur, int64_t pid, int64_t tid, int32_t stream, int64_t corr)
{
    uint32_t i = kt_events_push(&r->ev);
    const char *norm;
    r->ev.kind[i] = (uint8_t)kt_kind_of(ph, cat, strlen(cat), &norm);
    r->ev.cat[i] = intern(t, norm ? norm : cat);
    r->ev.name[i] = intern(t, name);
    r->ev.ph[i] = (uint8_t)ph;
    r->ev.ts[i] = ts;
    r->ev.dur[i] = dur;
    int32_t pid_col, tid_col;
    if (!kt_rank_id_put(r, pid, &pid_col) || !kt_rank_id_put(r, tid, &tid_col) ||
        (r->ev.thread[i] = kt_events_thread(&r->ev, pid_col, tid_col, stream)) == KT_NONE)
        return KT_NONE;
    if (!kt_rank_id_put(r, corr, &r->ev.corr[i])) return KT_NONE;
    r->total_events++;
    r->by_ph[(unsigned char)ph & 127]++;
    return i;
}

void fx_arg_int(kt_rank *r, uint32_t key, int64_t v) { kt_rank_push_arg(r, key, KT_ARGT_INT, v, 0, 0); }
void fx_arg_float(kt_rank *r, uint32_t key, double v) { kt_rank_push_arg(r, key, KT_ARGT_FLOAT, 0, v, 0); }
void fx_arg_str(kt_trace *t, kt_rank *r, uint32_t key, const char *s)
{
    kt_rank_push_arg(r, key, KT_ARGT_STR, 0, 0, intern(t, s));
}

void fx_finish(kt_trace *t)
{
    for (size_t i = 0; i < t->nranks; i++) {
        kt_summary_scan(t->ranks[i], t->strs);
        CHECK_INT(kt_index_build(t->ranks[i], t->strs), KT_OK);
    }
    kt_trace_align(t);
}

const kt_table *fx_table(const kt_tables *ts, const char *name)
{
    const kt_table *tb = ts ? kt_tables_find(ts, name) : NULL;
    CHECK(tb != NULL);
    return tb;
}

double fx_num(const kt_table *tb, size_t row, const char *col)
{
    long c = tb ? kt_table_col_index(tb, col) : -1;
    return c < 0 || row >= kt_table_nrows(tb) ? -12345 : kt_table_float(tb, row, (size_t)c);
}

/* Every cell of a equals b's (numbers, nulls and strings). */
void fx_check_same_table(const kt_table *a, const kt_table *b)
{
    CHECK_STR(kt_table_name(a), kt_table_name(b));
    CHECK_INT(kt_table_nrows(a), kt_table_nrows(b));
    CHECK_INT(kt_table_ncols(a), kt_table_ncols(b));
    for (size_t i = 0; i < kt_table_nrows(a) && i < kt_table_nrows(b); i++)
        for (size_t c = 0; c < kt_table_ncols(a) && c < kt_table_ncols(b); c++) {
            CHECK_INT(kt_table_is_null(a, i, c), kt_table_is_null(b, i, c));
            if (kt_table_col_type(a, c) == KT_COL_STR) CHECK_STR(kt_table_str(a, i, c), kt_table_str(b, i, c));
            else if (!kt_table_is_null(a, i, c)) CHECK_NEAR(kt_table_float(a, i, c), kt_table_float(b, i, c), 0);
        }
}

long fx_row(const kt_table *tb, const char *col, const char *value, int rank)
{
    long c = tb ? kt_table_col_index(tb, col) : -1, rc = tb ? kt_table_col_index(tb, "rank") : -1;
    for (size_t i = 0; c >= 0 && i < kt_table_nrows(tb); i++)
        if (!strcmp(kt_table_str(tb, i, (size_t)c), value) &&
            (rank < 0 || (rc >= 0 && kt_table_int(tb, i, (size_t)rc) == rank)))
            return (long)i;
    return -1;
}

char *fx_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) { free(s); s = NULL; }
    if (s) s[n] = '\0';
    if (s && len) *len = (size_t)n;
    fclose(f);
    return s;
}

const char *fx_why(kt_diags *d)
{
    static _Thread_local char text[2048];
    size_t n = 0;
    text[0] = '\0';
    for (size_t i = 0; i < kt_diags_count(d) && n < sizeof text; i++) {
        int k = snprintf(text + n, sizeof text - n, "%s%s", i ? "; " : "", kt_diags_get(d, i)->message);
        if (k > 0) n += (size_t)k;
    }
    kt_diags_free(d);
    return text;
}

bool fx_comma_locale(int category)
{
    const char *comma[] = { "de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8", "ru_RU.UTF-8" };
    for (size_t i = 0; i < sizeof comma / sizeof *comma; i++)
        if (setlocale(category, comma[i])) return true;
    return false;
}
