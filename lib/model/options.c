/*
 * options.c — reading a caller's options struct of any version.
 *
 * A program built against an older kineta.h passes a shorter struct; one
 * built against a newer header, a longer one.  Each struct says its own
 * size in its first member, so the library copies only the bytes the
 * caller has and keeps its defaults for the fields added since
 * (docs/api.md: fields are only ever added at the end).
 */
#include "model.h"

void kt_options_init(void *o, size_t size, const void *d, size_t dsize)
{
    if (!o || size < sizeof(size_t)) return;
    memset(o, 0, size);
    memcpy(o, d, size < dsize ? size : dsize);
    memcpy(o, &size, sizeof size);
}

bool kt_options_take(void *o, size_t osize, const void *opt)
{
    if (!opt) return true;
    size_t size;
    memcpy(&size, opt, sizeof size);
    if (size < sizeof size || size > osize) return false;
    memcpy(o, opt, size);
    memcpy(o, &osize, sizeof osize);
    return true;
}
