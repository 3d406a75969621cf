/*
 * test_load_traces.c — every real trace under ../shared/traces loads, and its
 * event counts equal those of an independent parser (tests/count_events.py,
 * Python's json module).  Files that are not Kineto traces must fail with
 * "not a Kineto trace".
 * Python takes ~17 s for all of them; it runs while we load.
 */
#include "oracle.h"
#include "test.h"
#include "model/model.h"

#include <stdlib.h>
#include <string.h>

/* "xcat N CATEGORY\n" lines by CATEGORY */
static int by_category(const void *a, const void *b)
{
    return strcmp(strchr(*(char *const *)a + 5, ' '), strchr(*(char *const *)b + 5, ' '));
}

/* Our counts in count_events.py's format. */
static void our_counts(const kt_trace *t, char *out, size_t cap)
{
    const kt_rank *r = t->ranks[0];
    size_t len = (size_t)snprintf(out, cap, "total %llu\n", (unsigned long long)r->total_events);
    for (int c = 0; c < 128; c++)
        if (r->by_ph[c])
            len += (size_t)snprintf(out + len, cap - len, "ph %c %llu\n", c ? c : '-',
                                    (unsigned long long)r->by_ph[c]);
    char *lines[512];
    size_t n = 0;
    for (size_t i = 0; i < r->nxcat && n < 512; i++) {
        char buf[512];
        snprintf(buf, sizeof buf, "xcat %llu %s\n", (unsigned long long)r->xcat_count[i],
                 kt_strtab_get(t->strs, r->xcat_id[i]));
        lines[n++] = strdup(buf);
    }
    qsort(lines, n, sizeof *lines, by_category); /* as the script prints them */
    for (size_t i = 0; i < n; i++) {
        len += (size_t)snprintf(out + len, cap - len, "%s", lines[i]);
        free(lines[i]);
    }
}

/* Our own counts must also agree with each other and with the model. */
static void check_consistent(const kt_trace *t, const char *path)
{
    const kt_rank *r = t->ranks[0];
    uint64_t sum = 0, xsum = 0;
    for (int c = 0; c < 128; c++) sum += r->by_ph[c];
    for (size_t i = 0; i < r->nxcat; i++) xsum += r->xcat_count[i];
    if (sum != r->total_events || xsum != r->by_ph['X'] || r->ev.n != r->total_events)
        kt_test_fail(__FILE__, __LINE__, "%s: inconsistent counts", path);
}

/* One Python process for all files (interpreter start-up is slow). */
static FILE *start_script(char **found, size_t nfound)
{
    static char cmd[1 << 15];
    size_t len = (size_t)snprintf(cmd, sizeof cmd, "python3 tests/count_events.py");
    for (size_t i = 0; i < nfound; i++)
        if (len + strlen(found[i]) + 8 < sizeof cmd)
            len += (size_t)snprintf(cmd + len, sizeof cmd - len, " '%s'", found[i]);
    return popen(cmd, "r");
}

/* The script's section for path (it prints them in file order). */
static bool script_section(FILE *f, const char *path, char *out, size_t cap)
{
    static char line[4096];
    static bool pending;
    size_t len = 0;
    out[0] = '\0';
    if (!pending && !fgets(line, sizeof line, f)) return false;
    pending = false;
    if (strncmp(line, "== ", 3) || strncmp(line + 3, path, strlen(path))) {
        pending = true; /* not this file's section */
        return false;
    }
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "== ", 3)) {
            pending = true;
            break;
        }
        len += (size_t)snprintf(out + len, cap - len, "%s", line);
    }
    return true;
}

TEST(load_every_shared_trace_matches_independent_counts)
{
    NEED_SHARED();
    if (system("python3 -c 'import json, gzip' >/dev/null 2>&1") != 0) {
        kt_test_skip("python3 not available");
        return;
    }
    size_t nfound = 0;
    char **found = fx_shared_trace_files(&nfound);
    CHECK(nfound >= 30);
    FILE *script = start_script(found, nfound); /* runs while we load */
    CHECK(script != NULL);
    static char want[1 << 16], got[1 << 16];
    for (size_t i = 0; i < nfound; i++) {
        kt_trace *t = NULL;
        kt_diags *fail = NULL;
        const char *path = found[i];
        kt_status st = kt_load(&path, 1, NULL, &t, &fail);
        bool checked = script && script_section(script, path, want, sizeof want);
        if (checked && !strcmp(want, "not-kineto\n")) {
            CHECK_INT(st, KT_EINPUT);
            const kt_diag *d = kt_diags_get(fail, kt_diags_count(fail) - 1);
            if (!d || !strstr(d->message, "not a Kineto trace"))
                kt_test_fail(__FILE__, __LINE__, "%s: expected 'not a Kineto trace', got '%s'", path,
                             d ? d->message : "(none)");
        } else if (st != KT_OK) {
            kt_test_fail(__FILE__, __LINE__, "%s: load failed (%d)", path, st);
        } else if (!checked) {
            kt_test_fail(__FILE__, __LINE__, "%s: no independent count", path);
        } else {
            check_consistent(t, path);
            our_counts(t, got, sizeof got);
            if (strcmp(got, want) != 0)
                kt_test_fail(__FILE__, __LINE__, "%s: counts differ\n--- ours\n%s--- python\n%s", path, got, want);
        }
        kt_trace_free(t);
        kt_diags_free(fail);
    }
    if (script) pclose(script);
    fx_free_paths(found, nfound);
}
