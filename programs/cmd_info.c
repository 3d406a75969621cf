/*
 * cmd_info.c — `kineta info`: what is in these traces.
 *
 * The library returns flat tables (one row per rank, stream, step, ...);
 * people and scripts want one block per rank, so text and JSON are printed
 * here as a per-rank summary / nested object.  CSV prints one flat table.
 */
#include "cli.h"
#include "analysis/common/sat_math.h"

#include <string.h>

extern const cli_command cmd_info;

static const char *const info_table_names[] = { "ranks", "events", "streams", "steps", "launch_apis", NULL };

static kt_status info_run(const cli_ctx *ctx, const kt_trace *t, void *state, kt_tables **out)
{
    (void)state;
    return kt_info(t, &ctx->sel, out);
}

/* ns as an exact µs decimal: 1500 → 1.5, 2000 → 2. */
static void print_us(int64_t ns, FILE *f)
{
    uint64_t a = ns < 0 ? -(uint64_t)ns : (uint64_t)ns;
    char frac[8] = "";
    if (a % 1000) {
        snprintf(frac, sizeof frac, ".%03u", (unsigned)(a % 1000));
        for (size_t n = strlen(frac); n > 1 && frac[n - 1] == '0'; n--) frac[n - 1] = '\0';
    }
    fprintf(f, "%s%llu%s", ns < 0 ? "-" : "", (unsigned long long)(a / 1000), frac);
}

/* A table's rows of one rank: tables are sorted by rank (column 0). */
typedef struct rank_rows {
    const kt_table *t;
    size_t begin, end;
} rank_rows;

static void next_rank(rank_rows *rr, int64_t rank)
{
    rr->begin = rr->end;
    size_t n = kt_table_nrows(rr->t);
    while (rr->begin < n && kt_table_int(rr->t, rr->begin, 0) < rank) rr->begin++;
    rr->end = rr->begin;
    while (rr->end < n && kt_table_int(rr->t, rr->end, 0) == rank) rr->end++;
}

static int64_t cell_int(const kt_table *t, size_t row, const char *col)
{
    return kt_table_int(t, row, (size_t)kt_table_col_index(t, col));
}

static const char *cell_str(const kt_table *t, size_t row, const char *col)
{
    return kt_table_str(t, row, (size_t)kt_table_col_index(t, col));
}

static bool cell_null(const kt_table *t, size_t row, const char *col)
{
    return kt_table_is_null(t, row, (size_t)kt_table_col_index(t, col));
}

typedef struct info_tables {
    const kt_table *ranks;
    rank_rows events, streams, steps, launches;
} info_tables;

static info_tables find_tables(const kt_tables *ts)
{
    info_tables it = { .ranks = kt_tables_find(ts, "ranks") };
    it.events.t = kt_tables_find(ts, "events");
    it.streams.t = kt_tables_find(ts, "streams");
    it.steps.t = kt_tables_find(ts, "steps");
    it.launches.t = kt_tables_find(ts, "launch_apis");
    return it;
}

/* ---- JSON: {"ranks":[{...}, ...]} ------------------------------------------ */
static void json_key(const char *k, FILE *f)
{
    print_json_string(k, f);
    fputc(':', f);
}

static void json_int_or_null(const kt_table *t, size_t row, const char *col, FILE *f)
{
    if (cell_null(t, row, col)) fputs("null", f);
    else fprintf(f, "%lld", (long long)cell_int(t, row, col));
}

static void json_devices(const char *names, FILE *f)
{
    fputc('[', f);
    for (const char *p = names; *p;) {
        size_t n = strcspn(p, ";");
        char buf[512];
        snprintf(buf, sizeof buf, "%.*s", (int)(n < sizeof buf ? n : sizeof buf - 1), p);
        if (p != names) fputc(',', f);
        print_json_string(buf, f);
        p += n + (p[n] == ';');
    }
    fputc(']', f);
}

/* {"key":count,...} of the rank's event rows in one group */
static void json_counts(const rank_rows *ev, const char *group, FILE *f)
{
    bool first = true;
    fputc('{', f);
    for (size_t i = ev->begin; i < ev->end; i++) {
        if (strcmp(cell_str(ev->t, i, "group"), group)) continue;
        if (!first) fputc(',', f);
        first = false;
        json_key(cell_str(ev->t, i, "key"), f);
        fprintf(f, "%lld", (long long)cell_int(ev->t, i, "count"));
    }
    fputc('}', f);
}

/* [row, row, ...] of one rank's rows of a table */
static void json_array(const rank_rows *rr, void (*row)(const kt_table *, size_t, FILE *), FILE *f)
{
    fputc('[', f);
    for (size_t i = rr->begin; i < rr->end; i++) {
        if (i > rr->begin) fputc(',', f);
        row(rr->t, i, f);
    }
    fputc(']', f);
}

static void json_stream(const kt_table *t, size_t i, FILE *f)
{
    static const char *const counts[] = { "events", "kernels", "memcpy", "memset", "sync" };
    fputs("{\"device\":", f);
    json_int_or_null(t, i, "device", f);
    fprintf(f, ",\"stream\":%lld", (long long)cell_int(t, i, "stream"));
    for (size_t c = 0; c < 5; c++) fprintf(f, ",\"%s\":%lld", counts[c], (long long)cell_int(t, i, counts[c]));
    fputs(",\"span_us\":[", f);
    print_us(cell_int(t, i, "first_ts_ns"), f);
    fputc(',', f);
    print_us(cell_int(t, i, "last_end_ns"), f);
    fputs("]}", f);
}

static void json_step(const kt_table *t, size_t i, FILE *f)
{
    fputs("{\"side\":", f);
    print_json_string(cell_str(t, i, "side"), f);
    fprintf(f, ",\"step\":%lld,\"device\":", (long long)cell_int(t, i, "step"));
    json_int_or_null(t, i, "device", f);
    fputs(",\"ts_us\":", f);
    print_us(cell_int(t, i, "ts_ns"), f);
    fputs(",\"dur_us\":", f);
    print_us(cell_int(t, i, "dur_ns"), f);
    fputc('}', f);
}

static void json_launch(const kt_table *t, size_t i, FILE *f)
{
    fputs("{\"name\":", f);
    print_json_string(cell_str(t, i, "name"), f);
    fprintf(f, ",\"calls\":%lld,\"gpu_events\":%lld}", (long long)cell_int(t, i, "calls"),
            (long long)cell_int(t, i, "gpu_events"));
}

static void json_rank(info_tables *it, size_t row, FILE *f)
{
    const kt_table *r = it->ranks;
    fprintf(f, "{\"rank\":%lld,\"world_size\":", (long long)cell_int(r, row, "rank"));
    json_int_or_null(r, row, "world_size", f);
    fputs(",\"file\":", f);
    print_json_string(cell_str(r, row, "file"), f);
    fputs(",\"device_type\":", f);
    print_json_string(cell_str(r, row, "device_type"), f);
    fputs(",\"devices\":", f);
    json_devices(cell_str(r, row, "devices"), f);
    fputs(",\"format\":", f);
    print_json_string(cell_str(r, row, "format"), f);
    fputs(",\"profiler\":", f);
    print_json_string(cell_str(r, row, "profiler"), f);
    fprintf(f, ",\"events\":{\"total\":%lld,\"loaded\":%lld,\"by_ph\":",
            (long long)cell_int(r, row, "events"), (long long)cell_int(r, row, "events_loaded"));
    json_counts(&it->events, "ph", f);
    fputs(",\"complete_by_cat\":", f);
    json_counts(&it->events, "complete_cat", f);
    fputs("},\"gpu_streams\":", f);
    json_array(&it->streams, json_stream, f);
    fputs(",\"steps\":", f);
    json_array(&it->steps, json_step, f);
    fputs(",\"launch_apis\":", f);
    json_array(&it->launches, json_launch, f);
    fputs(",\"span_us\":", f);
    if (cell_null(r, row, "first_ts_ns")) fputs("null", f);
    else {
        fputc('[', f);
        print_us(cell_int(r, row, "first_ts_ns"), f);
        fputc(',', f);
        print_us(cell_int(r, row, "last_end_ns"), f);
        fputc(']', f);
    }
    if (cell_int(r, row, "profiler_ranges") > 0)
        fprintf(f, ",\"profiler_ranges\":%lld", (long long)cell_int(r, row, "profiler_ranges"));
    fprintf(f, ",\"warnings\":%lld}", (long long)cell_int(r, row, "warnings"));
}

/* ---- text: one block per rank ---------------------------------------------- */
/* "key count, key count, ..." from column at, wrapped before width with
 * lines indented like the first (0 width: one line).                      */
static void text_counts(const rank_rows *ev, const char *group, const char *sep, size_t at, size_t width,
                        FILE *f)
{
    bool first = true;
    size_t col = at;
    for (size_t i = ev->begin; i < ev->end; i++) {
        if (strcmp(cell_str(ev->t, i, "group"), group)) continue;
        char item[256];
        int n = snprintf(item, sizeof item, "%s %lld", cell_str(ev->t, i, "key"), (long long)cell_int(ev->t, i, "count"));
        size_t len = n < 0 ? 0 : (size_t)n;
        if (!first && width && col + strlen(sep) + len > width) {
            fprintf(f, "%s\n%*s", sep[0] == ',' ? "," : "", (int)at, "");
            col = at;
        } else if (!first) {
            fputs(sep, f);
            col += strlen(sep);
        }
        fputs(item, f);
        col += len;
        first = false;
    }
}

/* "A;A;A;B" → "3 x A, B": nodes usually have 8 identical GPUs.  An
 * entry without a name (ROCm traces) says so rather than print nothing. */
static void text_devices(const char *names, FILE *f)
{
    const char *p = names;
    bool first = true, more = *names != '\0'; /* "" is no device; ";" two unnamed ones */
    while (more) {
        size_t len = strcspn(p, ";"), n = 1;
        const char *next = p + len;
        more = *next == ';';
        next += more;
        while (more && strncmp(next, p, len) == 0 && (next[len] == ';' || next[len] == '\0')) {
            n++;
            more = next[len] == ';';
            next += len + more;
        }
        fprintf(f, "%s", first ? ": " : ", ");
        if (n > 1) fprintf(f, "%zu x ", n);
        if (len) fprintf(f, "%.*s", (int)len, p);
        else fputs("(no name in deviceProperties)", f);
        first = false;
        p = next;
    }
}

/* ns as a short human duration: "850 ns", "12.5 us", "607.312 ms", "3.367 s". */
static void print_duration(int64_t ns, FILE *f)
{
    double a = ns < 0 ? -(double)ns : (double)ns; /* -INT64_MIN would overflow */
    if (a < 1e3) fprintf(f, "%lld ns", (long long)ns);
    else if (a < 1e6) fprintf(f, "%.3g us", (double)ns / 1e3);
    else if (a < 1e9) fprintf(f, "%.3f ms", (double)ns / 1e6);
    else fprintf(f, "%.3f s", (double)ns / 1e9);
}

/* One line per side: how many steps, which, when (from the rank's first
 * event) and how long; --verbose adds one line per step.                   */
static void text_steps(const rank_rows *p, const char *side, int64_t origin, bool verbose, bool *first, FILE *f)
{
    size_t n = 0;
    int64_t lo = 0, hi = 0, start = 0, end = 0, dmin = 0, dmax = 0, dsum = 0;
    for (size_t i = p->begin; i < p->end; i++) {
        if (strcmp(cell_str(p->t, i, "side"), side)) continue;
        int64_t step = cell_int(p->t, i, "step"), ts = cell_int(p->t, i, "ts_ns"), dur = cell_int(p->t, i, "dur_ns");
        if (!n || step < lo) lo = step;
        if (!n || step > hi) hi = step;
        if (!n || ts < start) start = ts;
        if (!n || kt_sat_add(ts, dur) > end) end = kt_sat_add(ts, dur);
        if (!n || dur < dmin) dmin = dur;
        if (!n || dur > dmax) dmax = dur;
        dsum = kt_sat_add(dsum, dur); /* damaged steps: durations near 2^63 ns */
        n++;
    }
    if (!n) return;
    fprintf(f, "\n  %s %s: %zu (#%lld", *first ? "steps  " : "       ", side, n, (long long)lo);
    if (hi != lo) fprintf(f, "-#%lld", (long long)hi);
    fputs(") from +", f);
    print_duration(kt_sat_sub(start, origin), f);
    fputs(" to +", f);
    print_duration(kt_sat_sub(end, origin), f);
    fputs(", mean ", f);
    print_duration(dsum / (int64_t)n, f);
    fputs(" (min ", f);
    print_duration(dmin, f);
    fputs(", max ", f);
    print_duration(dmax, f);
    fputc(')', f);
    *first = false;
    for (size_t i = p->begin; verbose && i < p->end; i++) {
        if (strcmp(cell_str(p->t, i, "side"), side)) continue;
        fprintf(f, "\n            #%lld at +", (long long)cell_int(p->t, i, "step"));
        print_duration(kt_sat_sub(cell_int(p->t, i, "ts_ns"), origin), f);
        fputs(" for ", f);
        print_duration(cell_int(p->t, i, "dur_ns"), f);
    }
}

static void text_rank(info_tables *it, size_t row, bool verbose, size_t width, FILE *f)
{
    const kt_table *r = it->ranks;
    fprintf(f, "rank %lld", (long long)cell_int(r, row, "rank"));
    if (!cell_null(r, row, "world_size")) fprintf(f, " of %lld", (long long)cell_int(r, row, "world_size"));
    fprintf(f, "  %s\n  device    %s", cell_str(r, row, "file"), cell_str(r, row, "device_type"));
    text_devices(cell_str(r, row, "devices"), f);
    fputc('\n', f);
    if (strcmp(cell_str(r, row, "format"), "Kineto JSON") != 0)
        fprintf(f, "  format    %s, written by %s\n", cell_str(r, row, "format"), cell_str(r, row, "profiler"));
    fprintf(f, "  events    %lld in file (", (long long)cell_int(r, row, "events"));
    text_counts(&it->events, "ph", ", ", 0, 0, f);
    fprintf(f, "), %lld loaded\n  complete  ", (long long)cell_int(r, row, "events_loaded"));
    text_counts(&it->events, "complete_cat", ", ", 12, width, f);
    if (!cell_null(r, row, "first_ts_ns")) {
        int64_t a = cell_int(r, row, "first_ts_ns"), b = cell_int(r, row, "last_end_ns");
        int64_t span = kt_sat_sub(b, a); /* damaged times near ±2^63 ns */
        fputs("\n  span      ", f);
        print_duration(span, f);
        fputs(" (", f);
        print_us(a, f);
        fputs(" .. ", f);
        print_us(b, f);
        fputs(" us)", f);
    }
    const rank_rows *s = &it->streams;
    for (size_t i = s->begin; i < s->end; i++)
        fprintf(f, "\n  %s device %lld stream %lld: %lld kernels, %lld memcpy, %lld memset, %lld sync",
                i == s->begin ? "streams" : "       ", (long long)cell_int(s->t, i, "device"),
                (long long)cell_int(s->t, i, "stream"), (long long)cell_int(s->t, i, "kernels"),
                (long long)cell_int(s->t, i, "memcpy"), (long long)cell_int(s->t, i, "memset"),
                (long long)cell_int(s->t, i, "sync"));
    int64_t origin = cell_null(r, row, "first_ts_ns") ? 0 : cell_int(r, row, "first_ts_ns");
    bool first = true;
    for (int side = 0; side < 2; side++)
        text_steps(&it->steps, side ? "gpu" : "cpu", origin, verbose, &first, f);
    const rank_rows *l = &it->launches;
    for (size_t i = l->begin; i < l->end; i++)
        fprintf(f, "\n  %s %s: %lld calls, %lld GPU events", i == l->begin ? "launches" : "        ",
                cell_str(l->t, i, "name"), (long long)cell_int(l->t, i, "calls"),
                (long long)cell_int(l->t, i, "gpu_events"));
    int64_t ranges = cell_int(r, row, "profiler_ranges");
    if (ranges > 0)
        fprintf(f, "\n  profiler  %lld CUPTI profiler ranges (range-profiler mode: counters per kernel "
                   "instead of kernel events; see kineta cupti)", (long long)ranges);
    fprintf(f, "\n  warnings  %lld\n", (long long)cell_int(r, row, "warnings"));
}

static int info_print(const cli_ctx *ctx, const kt_tables *ts, FILE *f)
{
    if (ctx->format == FMT_CSV || ctx->table) return print_tables(ctx, &cmd_info, ts, f);
    info_tables it = find_tables(ts);
    bool json = ctx->format == FMT_JSON;
    if (json) fputs("{\"ranks\":[", f);
    for (size_t row = 0; row < kt_table_nrows(it.ranks); row++) {
        int64_t rank = cell_int(it.ranks, row, "rank");
        next_rank(&it.events, rank);
        next_rank(&it.streams, rank);
        next_rank(&it.steps, rank);
        next_rank(&it.launches, rank);
        if (row) fputs(json ? ",\n" : "\n", f);
        if (json) json_rank(&it, row, f);
        else text_rank(&it, row, ctx->verbose, text_style_for(ctx, f).width, f);
    }
    if (json) fputs("]}\n", f);
    return 0;
}

const cli_command cmd_info = {
    .name = "info",
    .summary = "per rank: file, rank, devices, event counts, GPU streams, steps, time span",
    .description = "Counts are as written in the file (before --hta-compat).  Steps are summarized\n"
                   "per side (count, numbers, start and end from the rank's first event, mean\n"
                   "duration); --verbose lists every step.  --table NAME prints one flat table.",
    .tables = info_table_names,
    .run = info_run,
    .print = info_print,
};
