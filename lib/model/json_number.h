/*
 * json_number.h — numbers in machine text (JSON, CSV, args, specs), read
 * and written the same way whatever LC_NUMERIC the host program set.
 *
 * strtod and printf follow the process locale: after a program calls
 * setlocale(LC_ALL, "de_DE.UTF-8") they read and write "0,5", and JSON's
 * "0.5" stops parsing at the '.'.  Every layer that reads a number from
 * machine text uses the loader's reader (kt_parse_number, json_number.c),
 * and every writer of machine text formats through kt_c_snprintf.
 */
#ifndef KT_MODEL_JSON_NUMBER_H
#define KT_MODEL_JSON_NUMBER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum { KT_NUM_NONE, KT_NUM_INT, KT_NUM_FLOAT, KT_NUM_BIGINT } kt_num_kind;
typedef struct kt_num {
    kt_num_kind kind;
    int64_t i;
    double f;       /* also set for INT and BIGINT                           */
} kt_num;
/* Parse a JSON number at s (up to end); returns the byte after it or NULL.
 * The double is correctly rounded, as Python's float() reads it.          */
const char *kt_parse_number(const char *s, const char *end, kt_num *out);
/* Microseconds as written → exact ns.  *rounded when sub-ns digits or an
 * exponent forced rounding.  Returns the byte after the number or NULL.   */
const char *kt_parse_us_as_ns(const char *s, const char *end, int64_t *ns, bool *rounded,
                              bool *overflow);

/* f truncated to an integer, or dflt when it has none (NaN, inf, huge). */
static inline int64_t kt_double_to_i64(double f, int64_t dflt)
{
    return f > -9.2e18 && f < 9.2e18 ? (int64_t)f : dflt;
}

/* snprintf with '.' as the radix (the C locale), on any thread.          */
int kt_c_snprintf(char *b, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
