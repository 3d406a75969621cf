/*
 * critical_path_overlay.c — see critical_path_overlay.h.  The marks and
 * arrows become a kt_overlay; the writer handed in writes the copy.
 *
 * The arrows follow HTA's format so tools reading HTA overlays read ours:
 * {"ph":"s"|"f","id","pid","tid","ts","cat":"critical_path",
 * "name":"critical_path","args":{"weight","critical","type"}}, ts at the
 * event's start for a start node, else at its end (1 µs earlier on GPU
 * events, so the arrow lands inside the slice).
 */
#include "analysis/common/copy_names.h"
#include "analysis/structure/critical_path_overlay.h"
#include "model/radix.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

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

/* An arrow end at node: its event's start for a start node, else its end
 * (less up to 1 µs on GPU events, so the arrow lands inside the slice);
 * the time from the model's ns for an event the file gives no numbers. */
static kt_overlay_point point_of(const cp_overlay_request *rq, uint32_t node)
{
    const kt_rank *r = rq->r;
    uint32_t ev = rq->g->ev[node];
    bool start = rq->g->flags[node] & CP_NODE_START, gpu = kt_event_arg_int(r, ev, KT_ARG_DEVICE, -1) >= 0;
    int64_t t = r->ev.ts[ev], n = r->ev.dur[ev];
    if (!start) t += n - (gpu ? (n < 1000 ? n : 1000) : 0);
    return (kt_overlay_point){ .args_off = kt_args_off(&r->ev, ev), .ts_us = t / 1000, .at_end = !start,
                               .inset_us = gpu, .pid = kt_event_pid(r, ev), .tid = kt_event_tid(r, ev) };
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

/* Events on the path get args.critical = 1; the drawn edges, arrows. */
static bool fill_overlay(const cp_overlay_request *rq, const uint64_t *marks, size_t nmarks, kt_overlay *ov)
{
    static const char critical[] = "\"critical\": 1";
    static const char *const keep[] = { "user_annotation", "python_function", NULL };
    size_t text = kt_overlay_text(ov, critical, sizeof critical - 1);
    for (size_t k = 0; k < nmarks; k++) {
        kt_overlay_edit *e = kt_overlay_add_edit(ov, marks[k]);
        if (e) e->args = text, e->args_len = sizeof critical - 1;
    }
    ov->only_marked = rq->only_critical;
    ov->keep_cats = keep;
    ov->arrow_cat = "critical_path";
    size_t count = 0;
    uint8_t *on_path;
    uint32_t *ids = drawn_edges(rq, &count, &on_path);
    if (!ids) return false;
    for (size_t k = 0; k < count; k++) {
        uint32_t e = ids[k];
        kt_overlay_arrow *a = kt_overlay_add_arrow(ov);
        if (a)
            *a = (kt_overlay_arrow){ .from = point_of(rq, rq->g->src[e]), .to = point_of(rq, rq->g->dst[e]),
                                     .weight_us = cp_edge_weight(rq->g, e) / 1000, .critical = on_path[e],
                                     .type = cp_type_name(rq->g->type[e]) };
    }
    free(on_path);
    free(ids);
    return !ov->failed;
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

kt_status cp_write_overlay(const cp_overlay_request *rq, kt_overlay_write_fn write, cp_overlay_result *res,
                           char *err, size_t errlen)
{
    *res = (cp_overlay_result){ 0 };
    kt_status s = prepare_dir(rq, err, errlen);
    if (s != KT_OK) return s;
    size_t len = strlen(rq->out_dir) + strlen(kt_base_name(rq->r->file)) + 32;
    res->output = malloc(len);
    size_t nmarks = 0;
    uint64_t *marks = critical_marks(rq, &nmarks);
    res->arrows = count_arrows(rq);
    kt_overlay ov = { 0 };
    if (!res->output || !marks || !fill_overlay(rq, marks, nmarks, &ov)) s = KT_ENOMEM;
    if (s == KT_OK) {
        char tag[32] = "";
        if (rq->tag_rank) snprintf(tag, sizeof tag, "rank%d_", rq->r->rank);
        snprintf(res->output, len, "%s/overlaid_critical_path_%s%s", rq->out_dir, tag, kt_base_name(rq->r->file));
        kt_overlay_written done;
        s = write(rq->t, rq->r, &ov, res->output, &done, err, errlen);
        res->marked = done.edited;
    }
    kt_overlay_free(&ov);
    free(marks);
    return s;
}
