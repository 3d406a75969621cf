/*
 * sqlite_target.c — an export's file written beside its target and
 * renamed over it once whole (why: sqlite_target.h).
 */
#include "output/sqlite_target.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Files SQLite keeps beside a database, applied when it is next opened. */
static const char *const companions[] = { "-journal", "-wal", "-shm" };

static void say(char *err, size_t errlen, const char *what, const char *path)
{
    if (err && errlen) snprintf(err, errlen, "%s %s: %s", what, path, strerror(errno));
}

kt_status sqlite_target_begin(const char *path, char **tmp, char *err, size_t errlen)
{
    size_t cap = strlen(path) + 64;
    *tmp = malloc(cap);
    if (!*tmp) return KT_ENOMEM;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    /* a name no other export has: another thread's (its thread id), another
     * process's (pid), a crashed one's leftover (the time; the next
     * attempt if taken)                                                    */
    for (int attempt = 0; attempt < 100; attempt++) {
        snprintf(*tmp, cap, "%s.%ld-%ld-%lx.partial", path, (long)getpid(), (long)gettid(),
                 (unsigned long)now.tv_nsec + (unsigned long)attempt);
        int fd = open(*tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd >= 0) {
            close(fd);
            return KT_OK;
        }
        if (errno != EEXIST) break;
    }
    say(err, errlen, "cannot create", *tmp);
    free(*tmp);
    *tmp = NULL;
    return KT_EINPUT;
}

/* Remove path's companion files (absent ones are fine). */
static bool remove_companions(const char *path, char *err, size_t errlen)
{
    size_t cap = strlen(path) + 16;
    char *name = malloc(cap);
    if (!name) {
        if (err && errlen) snprintf(err, errlen, "out of memory");
        return false;
    }
    bool ok = true;
    for (size_t i = 0; ok && i < sizeof companions / sizeof companions[0]; i++) {
        snprintf(name, cap, "%s%s", path, companions[i]);
        if (unlink(name) != 0 && errno != ENOENT) {
            say(err, errlen, "cannot remove", name);
            ok = false;
        }
    }
    free(name);
    return ok;
}

kt_status sqlite_target_end(char *tmp, const char *path, bool ok, char *err, size_t errlen)
{
    if (ok) ok = remove_companions(path, err, errlen);
    if (ok && rename(tmp, path) != 0) {
        say(err, errlen, "cannot rename to it the file written,", tmp);
        ok = false;
    }
    if (!ok) unlink(tmp);
    free(tmp);
    return ok ? KT_OK : KT_EINPUT;
}
