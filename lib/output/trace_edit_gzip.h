/*
 * trace_edit_gzip.h — the gzip side of the writer of trace copies
 * (trace_edit.h): a plain input is mapped and copied from the file, a
 * gzip one (or a file that cannot be mapped) is read through the
 * loader's reader, inflated a background thread ahead of the writer.
 */
#ifndef KT_TRACE_EDIT_GZIP_H
#define KT_TRACE_EDIT_GZIP_H

#include "../kineta.h"
#include "load/load_internal.h"

#include <stdbool.h>
#include <stddef.h>

/* All of src read into *doc (malloc'd, NUL-terminated, *len bytes
 * before the NUL); path names the input in err.                         */
kt_status kt_edit_read_whole(kt_src *src, const char *path, char **doc, size_t *len, char *err, size_t errlen);

#endif
