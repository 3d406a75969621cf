/*
 * main.c — kineta-synth's driver: output paths, each rank written in turn, the
 * collectives resolved first when asked, and truth.json.
 */
#include "synth.h"

/* ------------------------------------------------------------------------------------ */
/* Driver                                                                                */
/* ------------------------------------------------------------------------------------ */

static char *path_join(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *s = malloc(n);
    if (!s) {
        fprintf(stderr, "kineta-synth: out of memory\n");
        exit(1);
    }
    snprintf(s, n, "%s/%s", dir, name);
    return s;
}

/* mkdir -p: every missing directory of dir's path, then dir. */
static void make_output_dir(const char *dir)
{
    char *parent = strdup(dir);
    for (char *s = parent ? parent + 1 : NULL; s && *s; s++)
        if (*s == '/') {
            *s = '\0';
            mkdir(parent, 0777); /* errors show at dir itself below */
            *s = '/';
        }
    free(parent);
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "kineta-synth: cannot create directory %s: %s\n", dir, strerror(errno));
        exit(1);
    }
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "kineta-synth: %s exists and is not a directory\n", dir);
        exit(1);
    }
}

static void write_truth_head(Writer *w, const Options *o, uint64_t steps, int layers)
{
    PUT(w, "{\n  \"generator\": \"kineta-synth\",\n  \"vendor\": ");
    put_json_string(w, o->vendor == VENDOR_ROCM ? "rocm" : "cuda");
    PUT(w, ",\n  \"seed\": ");
    put_u64(w, o->seed);
    PUT(w, ",\n  \"world_size\": ");
    put_u64(w, (uint64_t)o->ranks);
    PUT(w, ",\n  \"steps_per_rank\": ");
    put_u64(w, steps);
    PUT(w, ",\n  \"layers\": ");
    put_u64(w, (uint64_t)layers);
    PUT(w, ",\n  \"compute_streams\": ");
    put_u64(w, (uint64_t)o->streams);
    put_str(w, o->ns ? ",\n  \"ns_timestamps\": true" : ",\n  \"ns_timestamps\": false");
    put_str(w, o->graphs ? ",\n  \"graphs\": true" : ",\n  \"graphs\": false");
    put_str(w, o->gzip ? ",\n  \"gzip\": true" : ",\n  \"gzip\": false");
    PUT(w, ",\n  \"ranks\": [");
}

int main(int argc, char **argv)
{
    Options o = parse_options(argc, argv);
    bool single = single_file_mode(&o);
    uint64_t steps = o.steps ? o.steps : steps_for_size(&o);
    char *truth_path;
    if (single) {
        const char *slash = strrchr(o.out, '/');
        char *dir = slash && slash != o.out ? strndup(o.out, (size_t)(slash - o.out)) : NULL;
        if (dir) make_output_dir(dir);
        free(dir);
        size_t n = strlen(o.out) + sizeof ".truth.json";
        truth_path = malloc(n);
        if (!truth_path) {
            fprintf(stderr, "kineta-synth: out of memory\n");
            return 1;
        }
        snprintf(truth_path, n, "%s.truth.json", o.out);
    } else {
        make_output_dir(o.out);
        truth_path = path_join(o.out, "truth.json");
    }
    Writer tw;
    w_open(&tw, truth_path, false, false);
    RankPlan first;
    plan_rank(&first, &o, 0);
    write_truth_head(&tw, &o, steps, first.model.layers);
    RankPlan *plans = NULL;
    CollPlan *cplan = NULL;
    if (o.collectives) {
        plans = calloc((size_t)o.ranks, sizeof *plans);
        if (!plans) {
            fprintf(stderr, "kineta-synth: out of memory\n");
            return 1;
        }
        for (int r = 0; r < o.ranks; r++) {
            plan_rank(&plans[r], &o, r);
            plans[r].steps = steps;
        }
        cplan = plan_new(o.ranks);
        resolve_collectives(plans, o.ranks, steps, cplan);
    }
    for (int r = 0; r < o.ranks; r++) {
        char name[64];
        snprintf(name, sizeof name, "rank-%d.json%s", r, o.gzip ? ".gz" : "");
        char *path = single ? strdup(o.out) : path_join(o.out, name);
        const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
        RankPlan p;
        Truth t;
        plan_rank(&p, &o, r);
        p.steps = steps;
        p.initial.plan = cplan;
        uint64_t bytes = write_rank(&p, path, path, &t);
        write_truth_rank(&tw, &p, &t, base, bytes, r == 0);
        free(path);
    }
    PUT(&tw, "\n  ]");
    if (cplan)
        write_truth_collectives(&tw, &o, plans, cplan);
    PUT(&tw, "\n}\n");
    plan_free(cplan);
    free(plans);
    w_close(&tw);
    free(truth_path);
    return 0;
}

