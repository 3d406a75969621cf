/*
 * test_layers.c — the folders of lib/ are layers, and an #include runs
 * only from a layer to one below it (docs/architecture.md).
 *
 * The layers, bottom to top: model (the in-memory trace), load (fills the
 * model), table (the tables analyses produce), scale (tables and rank
 * files across processes), then analysis and output side by side (output
 * renders and writes, never an analysis), and report (runs analyses and
 * lays out pages with output's renderers).
 * lib/kineta.h, the public API's declarations, may be included anywhere.
 * Every quoted #include of every file under lib/ is read and resolved
 * (beside the file, else from lib/); one that reaches a folder its own
 * may not include is a failure, named with file and line.
 */
#include "test.h"

#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* Bottom to top; a folder may include its own files and those of a layer
 * with a lower rank.  analysis and output share a rank: neither may
 * include the other.                                                     */
typedef struct layer {
    const char *name;
    int rank;
} layer;

static const layer layers[] = {
    { "model", 0 }, { "load", 1 }, { "table", 2 }, { "scale", 3 },
    { "analysis", 4 }, { "output", 4 }, { "report", 5 },
};

typedef struct check {
    const char *root;            /* the lib/ folder checked               */
    char first[512];             /* the first violation, for the message  */
    size_t violations, includes;
} check;

static const layer *layer_of(const char *folder)
{
    for (size_t i = 0; i < sizeof layers / sizeof layers[0]; i++)
        if (!strcmp(layers[i].name, folder)) return &layers[i];
    return NULL;
}

static bool allowed(const layer *from, const char *to)
{
    const layer *l = layer_of(to);
    return l == from || (l && l->rank < from->rank);
}

/* The top folder under root of path (relative to root), or "" for a file
 * at the top (lib/kineta.h).                                              */
static void top_folder(const char *rel, char *out, size_t cap)
{
    const char *slash = strchr(rel, '/');
    size_t n = slash ? (size_t)(slash - rel) : 0;
    if (n >= cap) n = cap - 1;
    memcpy(out, rel, n);
    out[n] = '\0';
}

/* The included file relative to root: beside the including file (dir,
 * relative to root) when it exists there, else as given from root.       */
static void resolve(const check *c, const char *dir, const char *inc, char *out, size_t cap)
{
    char path[1024];
    if (snprintf(path, sizeof path, "%s/%s/%s", c->root, dir, inc) >= (int)sizeof path) path[0] = '\0';
    char *real = realpath(path, NULL), *root = realpath(c->root, NULL);
    size_t rl = root ? strlen(root) : 0;
    if (real && root && !strncmp(real, root, rl) && real[rl] == '/') snprintf(out, cap, "%s", real + rl + 1);
    else snprintf(out, cap, "%s", inc);
    free(real);
    free(root);
}

static void check_include(check *c, const char *rel, int line, const char *inc)
{
    char dir[1024], from[64], target[1024], to[64];
    if (snprintf(dir, sizeof dir, "%s", rel) >= (int)sizeof dir) return;
    char *slash = strrchr(dir, '/');
    if (slash) *slash = '\0';
    else snprintf(dir, sizeof dir, ".");
    resolve(c, dir, inc, target, sizeof target);
    top_folder(rel, from, sizeof from);
    top_folder(target, to, sizeof to);
    const layer *l = layer_of(from);
    c->includes++;
    if (!l || !to[0] || allowed(l, to)) return;
    if (!c->violations++)
        snprintf(c->first, sizeof c->first, "lib/%.200s:%d includes %.100s: %.60s may not include %.60s", rel, line, inc,
                 from, to);
}

static void check_file(check *c, const char *rel)
{
    char path[1024], buf[1024];
    FILE *f = snprintf(path, sizeof path, "%s/%s", c->root, rel) < (int)sizeof path ? fopen(path, "r") : NULL;
    if (!f) return;
    for (int line = 1; fgets(buf, sizeof buf, f); line++) {
        const char *p = buf;
        while (*p == ' ' || *p == '\t') p++;
        if (*p++ != '#') continue;
        while (*p == ' ' || *p == '\t') p++;
        if (strncmp(p, "include", 7)) continue;
        const char *q = strchr(p, '"'), *e = q ? strchr(q + 1, '"') : NULL;
        if (!e) continue;
        char inc[512];
        snprintf(inc, sizeof inc, "%.*s", (int)(e - q - 1), q + 1);
        check_include(c, rel, line, inc);
    }
    fclose(f);
}

static void walk(check *c, const char *rel)
{
    char path[1024];
    DIR *d = snprintf(path, sizeof path, "%s%s%s", c->root, rel[0] ? "/" : "", rel) < (int)sizeof path ? opendir(path) : NULL;
    if (!d) return;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.') continue;
        char sub[1024], full[1024];
        struct stat st;
        if (snprintf(sub, sizeof sub, "%s%s%s", rel, rel[0] ? "/" : "", e->d_name) >= (int)sizeof sub ||
            snprintf(full, sizeof full, "%s/%s", c->root, sub) >= (int)sizeof full || stat(full, &st) != 0)
            continue;
        size_t n = strlen(sub);
        if (S_ISDIR(st.st_mode)) walk(c, sub);
        else if (n > 2 && sub[n - 2] == '.' && (sub[n - 1] == 'c' || sub[n - 1] == 'h')) check_file(c, sub);
    }
    closedir(d);
}

TEST(layers_include_only_lower_layers)
{
    check c = { .root = "lib" };
    walk(&c, "");
    CHECK(c.includes > 500); /* the walk read the library */
    if (c.violations) kt_test_fail(__FILE__, __LINE__, "%zu includes run up a layer; first: %s", c.violations, c.first);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f) return;
    fputs(text, f);
    fclose(f);
}

/* The check itself finds an include running up (from beside the file and
 * from lib/) and lets one running down pass.                              */
TEST(layers_check_finds_an_upward_include)
{
    char root[] = "/tmp/kt_layers_XXXXXX", p[256];
    CHECK(mkdtemp(root) != NULL);
    const char *dirs[] = { "model", "table", "analysis", "analysis/x" };
    for (size_t i = 0; i < 4; i++) {
        snprintf(p, sizeof p, "%s/%s", root, dirs[i]);
        CHECK(mkdir(p, 0700) == 0);
    }
    snprintf(p, sizeof p, "%s/analysis/x/a.h", root);
    write_file(p, "#include \"model/m.h\"\n#include \"../../table/t.h\"\n");
    snprintf(p, sizeof p, "%s/model/m.h", root);
    write_file(p, "#include <stdio.h>\n");
    snprintf(p, sizeof p, "%s/table/t.h", root);
    write_file(p, "#include \"model/m.h\"\n");
    check down = { .root = root };
    walk(&down, "");
    CHECK_INT(down.includes, 3);
    CHECK_INT(down.violations, 0);
    snprintf(p, sizeof p, "%s/table/t.c", root);
    write_file(p, "#include \"t.h\"\n  #  include \"analysis/x/a.h\"\n");
    check up = { .root = root };
    walk(&up, "");
    CHECK_INT(up.violations, 1);
    CHECK(strstr(up.first, "lib/table/t.c:2") != NULL);
    const char *files[] = { "analysis/x/a.h", "model/m.h", "table/t.h", "table/t.c" };
    for (size_t i = 0; i < 4; i++) {
        snprintf(p, sizeof p, "%s/%s", root, files[i]);
        unlink(p);
    }
    for (size_t i = 4; i-- > 0;) {
        snprintf(p, sizeof p, "%s/%s", root, dirs[i]);
        rmdir(p);
    }
    rmdir(root);
}
