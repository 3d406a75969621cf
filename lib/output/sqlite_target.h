/*
 * sqlite_target.h — where an export writes: a fresh file beside its
 * target, put in the target's place only once it is whole.
 *
 * Writing the target itself loses data two ways: a failed export would
 * leave the earlier file cut, and libsqlite3, opening the target to add
 * the small tables, first rolls back a hot "-journal" or replays a "-wal"
 * of that name left by some earlier database there, putting that
 * database's pages over the export (integrity_check then says ok).  A
 * file created for the export has no such companions and no other
 * connection holds it open; the target's are removed right before the
 * rename that replaces it.
 */
#ifndef KT_SQLITE_TARGET_H
#define KT_SQLITE_TARGET_H

#include "kineta.h"

#include <stdbool.h>
#include <stddef.h>

/* Create an empty file of a new name in path's directory ("PATH.N.partial");
 * its name (malloc'd) in *tmp.  KT_EINPUT and err when it cannot be
 * created, KT_ENOMEM.                                                       */
kt_status sqlite_target_begin(const char *path, char **tmp, char *err, size_t errlen);

/* When ok: remove path's "-journal", "-wal" and "-shm" and rename tmp to
 * path (KT_EINPUT and err when either fails).  When anything failed, tmp
 * is removed and path is as it was (but for companions removed before a
 * failed rename, the one step that can fail after them).  Frees tmp.        */
kt_status sqlite_target_end(char *tmp, const char *path, bool ok, char *err, size_t errlen);

#endif
