/*
 * trace_gen.h — the structure-aware fuzzer's generator: input bytes decide
 * the events of a syntactically valid Kineto trace with adversarial values.
 *
 * Random bytes rarely parse as JSON, so the byte fuzzer spends most of its
 * time in the parser; every output of this generator loads, and its bytes
 * choose what is wrong with it (overlapping, negative and huge durations,
 * dangling and duplicated correlation / External / flow ids, nested and
 * out-of-order steps, GPU events on CPU pids, unknown ph values, ...).
 */
#ifndef KT_FUZZ_TRACE_GEN_H
#define KT_FUZZ_TRACE_GEN_H

#include <stddef.h>
#include <stdint.h>

/* The trace the bytes describe (malloc'd, *len bytes, NUL-terminated), or
 * NULL when out of memory.  The same bytes always give the same trace.    */
char *fz_generate_trace(const uint8_t *data, size_t size, size_t *len);

#endif
