/*
 * fixture.h — building small traces by hand in tests.
 *
 * Hand-built models give tests exact, hand-computable expectations without
 * depending on the JSON loader.
 */
#ifndef KT_FIXTURE_H
#define KT_FIXTURE_H

#include "model/index.h"
#include "model/model.h"

kt_trace *fx_trace(void);
kt_rank *fx_rank(kt_trace *t, int rank);
/* Append an event; times in ns; cat as written in a trace (kind derived). */
uint32_t fx_event(kt_trace *t, kt_rank *r, char ph, const char *cat, const char *name,
                  int64_t ts, int64_t dur, int64_t pid, int64_t tid, int32_t stream, int64_t corr);
/* Typed arg on the last event of r. */
void fx_arg_int(kt_rank *r, uint32_t key, int64_t v);
void fx_arg_float(kt_rank *r, uint32_t key, double v);
void fx_arg_str(kt_trace *t, kt_rank *r, uint32_t key, const char *s);
/* Build indexes and alignment as the loader does after parsing. */
void fx_finish(kt_trace *t);

/* Looking at results: a table by name (a failed CHECK when missing) and a
 * numeric cell by column name (-12345 when the column or row is missing). */
const kt_table *fx_table(const kt_tables *ts, const char *name);
double fx_num(const kt_table *tb, size_t row, const char *col);
/* First row whose string column col is value (and, when rank >= 0, whose
 * "rank" column is rank); -1 if none.                                     */
long fx_row(const kt_table *tb, const char *col, const char *value, int rank);
/* Every cell of a equals b's (numbers, nulls and strings), a failed CHECK
 * for each that does not, and the names and sizes too.                    */
void fx_check_same_table(const kt_table *a, const kt_table *b);

/* A whole file as a NUL-terminated string (binary-safe length in *len when
 * len is not NULL); NULL if it cannot be read.  Free with free().          */
char *fx_read_file(const char *path, size_t *len);

/* A call's reasons (its kt_diags, docs/api.md) as one line, messages joined
 * by "; " ("" for none), valid until the next call; frees d.             */
const char *fx_why(kt_diags *d);

/* category (LC_NUMERIC, or LC_ALL as a host program would) switched to an
 * installed locale whose radix is ',', for tests that numbers read and
 * write the same under it; false (locale unchanged) when none is
 * installed.  The caller sets "C" back.                                   */
bool fx_comma_locale(int category);

#endif
