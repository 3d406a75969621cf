/*
 * short_names.h — long strings (kernel names) cut to a column width for
 * text tables, keeping different strings different.
 */
#ifndef KT_SHORT_NAMES_H
#define KT_SHORT_NAMES_H

#include <stdbool.h>
#include <stddef.h>

/* Display columns of a UTF-8 string (code points; no wide characters in
 * kernel names).                                                          */
size_t text_width(const char *s);

/* Replace each strs[i] (malloc'd) by a form at most w columns wide: short
 * strings as they are, long ones cut in the middle ("head...tail"); when
 * two different strings would look the same, the part where they differ
 * is shown instead ("head...diff...tail"), and as a last resort "#n" is
 * appended.  Equal strings get equal forms.  A cell "A → B" (a kernel
 * transition) has A and B cut separately so the arrow stays.  false when
 * out of memory (strs then still valid, some maybe not shortened).        */
bool shorten_distinct(char **strs, size_t n, size_t w);

#endif
