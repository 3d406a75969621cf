/*
 * number_text.h — integers, fixed-point and shortest decimals as text
 * without printf.
 *
 * Commands that print a row per event (queue's series, the counter tracks
 * of `kineta counters`) spent more time in snprintf than in the analysis
 * (issue 16): these write the same characters printf's "%lld" and "%.*f"
 * write, ~10x faster.  The decimal point is always '.', whatever the
 * host's LC_NUMERIC (CSV and JSON need it).
 */
#ifndef KT_NUMBER_TEXT_H
#define KT_NUMBER_TEXT_H

#include <stddef.h>
#include <stdint.h>

#define KT_NUMBER_TEXT_MAX 32 /* room any result below needs, with a NUL */

/* v in decimal, as "%lld"; NUL-terminated; returns the length. */
size_t kt_int_text(char *b, int64_t v);

/* v with `decimals` (0-9) digits after the point, as "%.*f" rounds it;
 * NUL-terminated; returns the length, or 0 (nothing written) when this
 * cannot be sure of printf's answer — not finite, too large, or within
 * rounding error of a tie — so the caller falls back to printf.          */
size_t kt_fixed_text(char *b, double v, int decimals);

/* v as the shortest decimal that reads back (strtod) to the same double:
 * what printf writes with "%.15g", else "%.16g", else "%.17g" — the first
 * that reads back — so every digit is there and no more (the machine
 * formats, csv and json, write numbers this way).  v finite; b has room
 * for KT_NUMBER_TEXT_MAX bytes; NUL-terminated; returns the length.      */
size_t kt_shortest_text(char *b, double v);

#endif
