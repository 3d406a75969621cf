/* test_cache_cli.c — `--cache[=DIR]` on the command line: the directory
 * given with `=`, the default under $XDG_CACHE_HOME, the same output from
 * the cache file as from the JSON, and `--cache` refused without a place
 * to put it.  Runs the built binary ($KINETA_BIN, set by `make test`).   */
#include "test.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *bin(void)
{
    const char *b = getenv("KINETA_BIN");
    return b && access(b, X_OK) == 0 ? b : NULL;
}

/* Run a shell command line, its stdout into out; the exit code. */
static int run(const char *cmd, char *out, size_t cap)
{
    FILE *p = popen(cmd, "r");
    if (!p) return -1;
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = '\0';
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int ktc_files(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));) n += strstr(e->d_name, ".ktc") != NULL;
    if (d) closedir(d);
    return n;
}

TEST(cli_cache_option_writes_then_reads_the_cache)
{
    if (!bin()) {
        kt_test_skip("KINETA_BIN not set (run make test)");
        return;
    }
    char dir[] = "/tmp/kineta-test-cachecli-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char trace[128], cmd[1024], a[8192], b[8192], c[8192], sub[160];
    snprintf(trace, sizeof trace, "%s/rank0.json", dir);
    FILE *f = fopen(trace, "w");
    CHECK(f != NULL);
    if (!f) return;
    fprintf(f, "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\","
               "\"pid\":1,\"tid\":1,\"ts\":100,\"dur\":5,\"args\":{\"correlation\":7}},\n"
               "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":110,"
               "\"dur\":20,\"args\":{\"stream\":7,\"correlation\":7}}]}\n");
    fclose(f);
    snprintf(sub, sizeof sub, "%s/given", dir);

    snprintf(cmd, sizeof cmd, "%s kernels -q --format csv %s", bin(), trace);
    CHECK_INT(run(cmd, a, sizeof a), 0);
    snprintf(cmd, sizeof cmd, "%s kernels -q --format csv --cache=%s %s", bin(), sub, trace);
    CHECK_INT(run(cmd, b, sizeof b), 0);
    CHECK_INT(ktc_files(sub), 1);
    CHECK_INT(run(cmd, c, sizeof c), 0);
    CHECK_STR(b, a);
    CHECK_STR(c, a);
    CHECK(strstr(a, "gemm") != NULL);

    /* the default: $XDG_CACHE_HOME/kineta */
    snprintf(cmd, sizeof cmd, "XDG_CACHE_HOME=%s/xdg %s info -q --cache %s", dir, bin(), trace);
    CHECK_INT(run(cmd, b, sizeof b), 0);
    snprintf(sub, sizeof sub, "%s/xdg/kineta", dir);
    CHECK_INT(ktc_files(sub), 1);

    /* no place for it: a usage error, not a cache next to the input */
    snprintf(cmd, sizeof cmd, "env -u XDG_CACHE_HOME -u HOME %s info -q --cache %s 2>/dev/null", bin(), trace);
    CHECK_INT(run(cmd, b, sizeof b), 2);
    CHECK_INT(ktc_files(dir), 0);

    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK_INT(system(cmd), 0);
}
