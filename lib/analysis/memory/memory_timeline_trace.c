/* memory_timeline_trace.c — see memory_timeline_trace.h. */
#include "analysis/memory/memory_timeline_trace.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool output_path(const char *dir, const char *in, char *out, size_t cap)
{
    const char *slash = strrchr(in, '/'), *base = slash ? slash + 1 : in;
    size_t len = strlen(base);
    if (len > 3 && !strcmp(base + len - 3, ".gz")) len -= 3;
    int n = snprintf(out, cap, "%s/%.*s_counters.json", dir, (int)len, base);
    return n > 0 && (size_t)n < cap;
}

static bool same_file(const char *a, const char *b)
{
    struct stat x, y;
    return stat(a, &x) == 0 && stat(b, &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

/* One counter event: ts in µs (ns / 1000), one arg per category column. */
static void write_event(FILE *f, const kt_table *tl, size_t row, bool first)
{
    int64_t ns = kt_table_int(tl, row, 0), us = ns / 1000, frac = ns % 1000;
    if (frac < 0) { us--; frac += 1000; }
    fprintf(f, "%s\n  {\"ph\": \"C\", \"name\": \"Memory by category\", \"pid\": 0, \"ts\": %" PRId64 ".%03" PRId64
               ", \"args\": {",
            first ? "" : ",", us, frac);
    size_t ncat = kt_table_ncols(tl) - 2; /* ts_ns ... total */
    for (size_t c = 1; c <= ncat; c++)
        fprintf(f, "%s\"%s\": %" PRId64, c > 1 ? ", " : "", kt_table_col_name(tl, c), kt_table_int(tl, row, c));
    fputs("}}", f);
}

kt_status kt_mem_timeline_write(const kt_table *timeline, const char *in_path, const char *out_dir, char *out,
                                size_t cap, uint64_t *events, uint64_t *bytes, char *err, size_t errlen)
{
    if (!output_path(out_dir, in_path, out, cap)) return KT_EUSAGE;
    if (same_file(out, in_path)) {
        snprintf(err, errlen, "%s would overwrite the input", out);
        return KT_EUSAGE;
    }
    FILE *f = fopen(out, "w");
    if (!f) {
        snprintf(err, errlen, "cannot write %s: %s", out, strerror(errno));
        return KT_EANALYSIS;
    }
    fputs("{\"traceEvents\": [", f);
    size_t n = kt_table_nrows(timeline);
    for (size_t i = 0; i < n; i++) write_event(f, timeline, i, i == 0);
    fputs("\n]}\n", f);
    long size = ftell(f);
    if (ferror(f) | (fclose(f) != 0)) {
        snprintf(err, errlen, "error writing %s", out);
        unlink(out);
        return KT_EANALYSIS;
    }
    *events = n;
    *bytes = size > 0 ? (uint64_t)size : 0;
    return KT_OK;
}
