/*
 * copy_names.h — the names of the trace copies analyses write (overlays,
 * counter tracks): made from the input's file name, with the rank added
 * when two selected ranks' files share a name (rank directories), so one
 * copy cannot overwrite another.
 */
#ifndef KT_COPY_NAMES_H
#define KT_COPY_NAMES_H

#include "../../kineta.h"
#include "model/model.h"

#include <stdbool.h>
#include <stddef.h>

/* The file name of path (after its last '/'). */
const char *kt_base_name(const char *path);
/* Does another selected rank's input file have r's file name? */
bool kt_file_name_shared(const kt_trace *t, const kt_rank_sel *sel, const kt_rank *r);
/* <dir>/<name><_rankTAG><suffix>.json[.gz] (HTA's names of its counter
 * copies): suffix goes before the last ".json" of the input's file name,
 * else before a final ".gz"; tag < 0: no rank.  False when cap is short. */
bool kt_copy_path(const char *dir, const char *in, const char *suffix, int tag, char *out, size_t cap);

#endif
