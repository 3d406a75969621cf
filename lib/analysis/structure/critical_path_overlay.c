/*
 * critical_path_overlay.c — see critical_path_overlay.h.
 *
 * The arrows follow HTA's format so tools reading HTA overlays read ours:
 * {"ph":"s"|"f","id","pid","tid","ts","cat":"critical_path",
 * "name":"critical_path","args":{"weight","critical","type"}}, ts at the
 * event's start for a start node, else at its end (1 µs earlier on GPU
 * events, so the arrow lands inside the slice).
 */
#include "analysis/structure/critical_path_overlay.h"
#include "output/trace_edit.h"
#include "model/radix.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* The overlay must not land next to its input. */
static bool is_input_dir(const char *dir, const char *file)
{
    char a[PATH_MAX], b[PATH_MAX], in_dir[PATH_MAX];
    const char *slash = strrchr(file, '/');
    snprintf(in_dir, sizeof in_dir, "%.*s", slash ? (int)(slash - file) : 1, slash ? file : ".");
    if (slash == file) snprintf(in_dir, sizeof in_dir, "/");
    return realpath(dir, a) && realpath(in_dir, b) && !strcmp(a, b);
}

/* Sorted offsets of the args objects of the events on the path. */
static uint64_t *critical_marks(const cp_overlay_request *rq, size_t *n)
{
    const kt_events *e = &rq->r->ev;
    uint64_t *keys = malloc((rq->path->nn ? rq->path->nn : 1) * sizeof *keys);
    uint32_t *ids = malloc((rq->path->nn ? rq->path->nn : 1) * sizeof *ids);
    *n = 0;
    for (size_t k = 0; keys && ids && k < rq->path->nn; k++) {
        uint32_t ev = rq->g->ev[rq->path->nodes[k]];
        if (kt_args_off(e, ev)) keys[*n] = kt_args_off(e, ev), ids[*n] = ev, (*n)++;
    }
    bool ok = keys && ids && kt_radix_sort(keys, ids, *n);
    free(ids);
    if (!ok) {
        free(keys);
        return NULL;
    }
    size_t w = 0;
    for (size_t k = 0; k < *n; k++)
        if (w == 0 || keys[k] != keys[w - 1]) keys[w++] = keys[k];
    *n = w;
    return keys;
}

static void put_id(char *b, size_t cap, const kt_strtab *strs, int64_t v)
{
    if (kt_id_is_str(v)) snprintf(b, cap, "\"%s\"", kt_strtab_get(strs, kt_id_str(v)));
    else snprintf(b, cap, "%" PRId64, v);
}

/* Arrow end point in µs as HTA computes it: int() of the file's float µs
 * (start, or end less up to 1 µs on GPU events so the arrow lands inside
 * the slice); from the model's ns when the file has no number for it.    */
static int64_t arrow_ts(const cp_overlay_request *rq, const kt_edit_doc *d, uint32_t node)
{
    const kt_rank *r = rq->r;
    uint32_t ev = rq->g->ev[node];
    bool start = rq->g->flags[node] & CP_NODE_START, gpu = kt_event_arg_int(r, ev, KT_ARG_DEVICE, -1) >= 0;
    double ts, dur;
    if (kt_args_off(&r->ev, ev) && kt_edit_event_number(d, kt_args_off(&r->ev, ev), "ts", &ts) &&
        kt_edit_event_number(d, kt_args_off(&r->ev, ev), "dur", &dur)) {
        double end = ts + dur;
        if (gpu) end -= dur < 1 ? dur : 1;
        return (int64_t)(start ? ts : end);
    }
    int64_t t = r->ev.ts[ev], n = r->ev.dur[ev];
    if (!start) t += n - (gpu ? (n < 1000 ? n : 1000) : 0);
    return t / 1000;
}

static int arrow_end(char *b, size_t cap, const cp_overlay_request *rq, const kt_edit_doc *d, uint32_t node,
                     size_t id, size_t e, bool start, bool critical)
{
    const kt_rank *r = rq->r;
    uint32_t ev = rq->g->ev[node];
    char pid[256], tid[256];
    put_id(pid, sizeof pid, rq->strs, kt_event_pid(r, ev));
    put_id(tid, sizeof tid, rq->strs, kt_event_tid(r, ev));
    return snprintf(b, cap,
                    ",\n{\"ph\": \"%s\", \"id\": %zu, \"pid\": %s, \"tid\": %s, \"ts\": %" PRId64 ", "
                    "\"cat\": \"critical_path\", \"name\": \"critical_path\", \"args\": {\"weight\": %" PRId64 ", "
                    "\"critical\": %s, \"type\": \"%s\"}%s}",
                    start ? "s" : "f", id, pid, tid, arrow_ts(rq, d, node), cp_edge_weight(rq->g, e) / 1000,
                    critical ? "true" : "false", cp_type_name(rq->g->type[e]), start ? "" : ", \"bp\": \"e\"");
}

static bool shown(uint8_t type)
{
    return type == CP_DEPENDENCY || type == CP_LAUNCH || type == CP_SYNC;
}

/* The edges drawn: the path's dependency, launch and sync edges, or with
 * all_edges every edge of the graph (HTA's show_all_edges).              */
static bool all_edges(const cp_overlay_request *rq)
{
    return rq->all_edges && !rq->only_critical;
}

/* Edge ids to draw, in order, and which are on the path (malloc'ed). */
static uint32_t *drawn_edges(const cp_overlay_request *rq, size_t *n, uint8_t **on_path)
{
    const cp_graph *g = rq->g;
    uint32_t *ids = malloc((g->m ? g->m : 1) * sizeof *ids);
    *on_path = calloc(g->m ? g->m : 1, 1);
    *n = 0;
    if (!ids || !*on_path) {
        free(ids);
        free(*on_path);
        return NULL;
    }
    for (size_t k = 0; k < rq->path->ne; k++) (*on_path)[rq->path->edges[k]] = 1;
    if (all_edges(rq)) {
        for (uint32_t e = 0; e < g->m; e++) ids[(*n)++] = e;
    } else {
        for (size_t k = 0; k < rq->path->ne; k++)
            if (shown(g->type[rq->path->edges[k]])) ids[(*n)++] = rq->path->edges[k];
    }
    return ids;
}

/* Every marked event gets args.critical = 1 (the writer's kt_event_edit_fn). */
static void mark_critical(void *user, uint64_t args_off, kt_event_edit *e)
{
    (void)user, (void)args_off;
    e->add_args = "\"critical\": 1";
    e->add_args_len = 13;
}

/* The arrows (the writer's kt_edit_extra_fn; user is the request). */
static char *arrows_text(void *user, const kt_edit_doc *d, size_t *len)
{
    const cp_overlay_request *rq = user;
    size_t cap = 4096, n = 0, count = 0;
    uint8_t *on_path;
    uint32_t *ids = drawn_edges(rq, &count, &on_path);
    char *buf = ids ? malloc(cap) : NULL;
    for (size_t k = 0; buf && k < count; k++) {
        uint32_t e = ids[k];
        if (cap - n < 2048) {
            char *grown = realloc(buf, 2 * cap);
            if (!grown) free(buf);
            buf = grown, cap *= 2;
            if (!buf) break;
        }
        n += (size_t)arrow_end(buf + n, cap - n, rq, d, rq->g->src[e], k, e, true, on_path[e]);
        n += (size_t)arrow_end(buf + n, cap - n, rq, d, rq->g->dst[e], k, e, false, on_path[e]);
    }
    if (ids) free(on_path);
    free(ids);
    *len = n;
    return buf;
}

static size_t count_arrows(const cp_overlay_request *rq)
{
    if (all_edges(rq)) return rq->g->m;
    size_t n = 0;
    for (size_t k = 0; k < rq->path->ne; k++) n += shown(rq->g->type[rq->path->edges[k]]);
    return n;
}

static kt_status prepare_dir(const cp_overlay_request *rq, char *err, size_t errlen)
{
    if (mkdir(rq->out_dir, 0755) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "cannot create %s: %s", rq->out_dir, strerror(errno));
        return KT_EANALYSIS;
    }
    if (is_input_dir(rq->out_dir, rq->r->file)) {
        snprintf(err, errlen, "%s holds the input %s: choose another directory for the overlay", rq->out_dir,
                 rq->r->file);
        return KT_EUSAGE;
    }
    if (!rq->r->events_end) {
        snprintf(err, errlen, "%s: the end of traceEvents was not found (file cut off?)", rq->r->file);
        return KT_EINPUT;
    }
    return KT_OK;
}

kt_status cp_write_overlay(const cp_overlay_request *rq, cp_overlay_result *res, char *err, size_t errlen)
{
    *res = (cp_overlay_result){ 0 };
    kt_status s = prepare_dir(rq, err, errlen);
    if (s != KT_OK) return s;
    size_t len = strlen(rq->out_dir) + strlen(base_name(rq->r->file)) + 32;
    res->output = malloc(len);
    size_t nmarks = 0;
    uint64_t *marks = critical_marks(rq, &nmarks);
    res->arrows = count_arrows(rq);
    if (!res->output || !marks) s = KT_ENOMEM;
    if (s == KT_OK) {
        char tag[32] = "";
        if (rq->tag_rank) snprintf(tag, sizeof tag, "rank%d_", rq->r->rank);
        snprintf(res->output, len, "%s/overlaid_critical_path_%s%s", rq->out_dir, tag, base_name(rq->r->file));
        static const char *const keep[] = { "user_annotation", "python_function", NULL };
        kt_trace_edit c = { .in_path = rq->r->file, .events_open = rq->r->events_open,
                            .events_end = rq->r->events_end, .nevents = rq->r->total_events,
                            .args_at = rq->r->ev.args_at, .nargs = rq->r->ev.n,
                            .out_path = res->output,
                            .marks = marks, .nmarks = nmarks, .edit = mark_critical,
                            .only_marked = rq->only_critical, .keep_cats = keep, .extra = arrows_text,
                            .user = (void *)rq };
        kt_edit_result done;
        s = kt_write_trace_edit(&c, &done, err, errlen);
        res->marked = done.edited;
    }
    free(marks);
    return s;
}
