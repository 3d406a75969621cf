/*
 * rocpd.c — rocpd SQLite databases (ROCm 7's default output): recognised,
 * read in a later step.
 */
#include "load/sqlite_reader.h"

bool kt_rocpd_recognise(sqlite3 *db)
{
    sqlite3_stmt *st = NULL;
    bool found = sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE name LIKE 'rocpd_%'", -1, &st, NULL) == SQLITE_OK &&
                 sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return found;
}

kt_status kt_read_rocpd(sqlite3 *db, const kt_reader_in *in, kt_build *b)
{
    (void)db;
    (void)b;
    kt_diags_add(in->diags, KT_DIAG_ERROR, in->path, -1, "a rocpd database: recognised but not read yet");
    return KT_EINPUT;
}
