/*
 * patterns_overlay.c — see patterns_overlay.h.
 *
 * Events are matched to the model by the offset of their args object
 * (kt_events.args_at), which survives --hta-compat's filtering; the
 * events to edit (marked, renamed, the dictionary's span) are sorted by
 * it into a kt_overlay, so the writer handed in walks them in step with
 * the file and copies the bytes between them untouched.
 */
#include "analysis/structure/patterns_overlay.h"
#include "model/radix.h"
#include "table/number_text.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct mark {
    uint64_t off;     /* its args object's offset */
    uint32_t top;     /* index into top[]       */
} mark;

typedef struct text {
    char *p;
    size_t n, cap;
    bool failed;
} text;

static void put(text *t, const char *s, size_t n)
{
    if (t->failed) return;
    if (t->n + n + 1 > t->cap) {
        size_t c = t->cap ? t->cap : 256;
        while (c < t->n + n + 1) c *= 2;
        char *q = realloc(t->p, c);
        if (!q) {
            t->failed = true;
            return;
        }
        t->p = q;
        t->cap = c;
    }
    memcpy(t->p + t->n, s, n);
    t->n += n;
    t->p[t->n] = '\0';
}

static void put_str(text *t, const char *s) { put(t, s, strlen(s)); }

static void put_json_string(text *t, const char *s)
{
    put(t, "\"", 1);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        char esc[8];
        if (c == '"' || c == '\\') {
            esc[0] = '\\';
            esc[1] = (char)c;
            put(t, esc, 2);
        } else if (c < 0x20) {
            snprintf(esc, sizeof esc, "\\u%04x", c);
            put(t, esc, 6);
        } else {
            put(t, s, 1);
        }
    }
    put(t, "\"", 1);
}

/* A set of patterns whose text is in the plan: marks[first, first + n)'s
 * tops, text at [at, at + len).                                          */
typedef struct pattern_set_text {
    size_t first, n, at, len;
} pattern_set_text;
#define MAX_SETS 64

typedef struct overlay {
    const kt_trace *t;
    const kt_pattern_set *s;
    const uint32_t *top;
    const char *const *labels;
    text *label_json;       /* labels[k] as JSON strings, escaped once */
    mark *marks;
    size_t nmarks, next;
    uint32_t *dict;         /* strtab id → its id in the copy, KT_NONE */
    size_t ndict_ids;
    size_t *id_text;        /* id in the copy → its text in the plan, or
                               SIZE_MAX until an event is renamed to it */
    uint64_t *rename_off;   /* args offsets of the GPU events to rename, sorted */
    uint32_t *rename_to;    /* their names' ids in the copy                 */
    size_t nrenames, next_rename;
    uint64_t dict_off;      /* args offset of the profiler span; 0: none       */
    text dict_text, args;
    pattern_set_text sets[MAX_SETS]; /* the texts added, to add each once */
    size_t nsets;
    bool keep_names;
    kt_overlay_result *res;
} overlay;

static int by_off(const void *a, const void *b)
{
    const mark *x = a, *y = b;
    if (x->off != y->off) return x->off < y->off ? -1 : 1;
    return x->top < y->top ? -1 : x->top > y->top;
}

/* "Patterns": {"<pattern>": count, ...} for marks[first, end). */
static void patterns_text(overlay *o, size_t first, size_t end)
{
    o->args.n = 0;
    put_str(&o->args, "\"Patterns\": {");
    for (size_t i = first; i < end; i++) {
        uint32_t k = o->marks[i].top;
        char count[KT_NUMBER_TEXT_MAX];
        size_t n = kt_int_text(count, o->s->p[o->top[k]].count);
        if (i > first) put_str(&o->args, ", ");
        put(&o->args, o->label_json[k].p, o->label_json[k].n);
        put_str(&o->args, ": ");
        put(&o->args, count, n);
    }
    put_str(&o->args, "}");
}

static bool same_patterns(const overlay *o, size_t a, size_t b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (o->marks[a + i].top != o->marks[b + i].top) return false;
    return true;
}

/* The text of the marks at off in the plan, each set of patterns added
 * once (a label can be kilobytes, and most events carry the same one or
 * two of them); false when off has no mark.                             */
static bool patterns_at(overlay *o, uint64_t off, kt_overlay *ov, kt_overlay_edit *e)
{
    while (o->next < o->nmarks && o->marks[o->next].off < off) o->next++;
    if (o->next >= o->nmarks || o->marks[o->next].off != off) return false;
    size_t first = o->next;
    while (o->next < o->nmarks && o->marks[o->next].off == off) o->next++;
    size_t n = o->next - first;
    for (size_t k = 0; k < o->nsets; k++)
        if (o->sets[k].n == n && same_patterns(o, o->sets[k].first, first, n)) {
            e->args = o->sets[k].at, e->args_len = o->sets[k].len;
            return true;
        }
    patterns_text(o, first, o->next);
    e->args = kt_overlay_text(ov, o->args.p, o->args.n), e->args_len = o->args.n;
    if (o->nsets < MAX_SETS) o->sets[o->nsets++] = (pattern_set_text){ first, n, e->args, e->args_len };
    return true;
}

/* The id of the event whose args open at off when it is renamed, else KT_NONE. */
static uint32_t rename_id(overlay *o, uint64_t off)
{
    while (o->next_rename < o->nrenames && o->rename_off[o->next_rename] < off) o->next_rename++;
    if (o->next_rename >= o->nrenames || o->rename_off[o->next_rename] != off) return KT_NONE;
    return o->rename_to[o->next_rename];
}

/* The edit of the event whose args open at off: its patterns, else its
 * name's id, else the dictionary on the profiler span.                  */
static void edit_event(overlay *o, uint64_t off, kt_overlay *ov)
{
    uint32_t id;
    kt_overlay_edit e = { .args_off = off };
    if (patterns_at(o, off, ov, &e)) {
        o->res->marked++;
    } else if ((id = rename_id(o, off)) != KT_NONE) {
        char num[KT_NUMBER_TEXT_MAX];
        size_t n = kt_int_text(num, id); /* snprintf cost 2% of the command */
        if (o->id_text[id] == SIZE_MAX) o->id_text[id] = kt_overlay_text(ov, num, n);
        e.name = o->id_text[id], e.name_len = n, e.rename = true;
        o->res->renamed++;
    } else if (off == o->dict_off) {
        e.args = kt_overlay_text(ov, o->dict_text.p, o->dict_text.n), e.args_len = o->dict_text.n;
    }
    kt_overlay_edit *x = kt_overlay_add_edit(ov, off);
    if (x) *x = e;
}

/* Events of the top patterns' occurrences, by args offset. */
static bool collect_marks(overlay *o, const kt_rank *r, size_t ntop)
{
    uint32_t *rank_of = malloc((o->s->n ? o->s->n : 1) * sizeof *rank_of);
    o->marks = malloc((o->s->nocc ? o->s->nocc : 1) * sizeof *o->marks);
    if (!rank_of || !o->marks) {
        free(rank_of);
        return false;
    }
    for (size_t i = 0; i < o->s->n; i++) rank_of[i] = KT_NONE;
    for (size_t k = 0; k < ntop; k++) rank_of[o->top[k]] = (uint32_t)k;
    for (size_t i = 0; i < o->s->nocc; i++) {
        const kt_pattern_occ *oc = &o->s->occ[i];
        if (rank_of[oc->pattern] == KT_NONE) continue;
        if (!kt_args_off(&r->ev, oc->ev)) o->res->unmarkable++;
        else o->marks[o->nmarks++] = (mark){ kt_args_off(&r->ev, oc->ev), rank_of[oc->pattern] };
    }
    free(rank_of);
    qsort(o->marks, o->nmarks, sizeof *o->marks, by_off);
    size_t w = 0; /* an event in two occurrences of one pattern: once */
    for (size_t i = 0; i < o->nmarks; i++)
        if (!w || o->marks[w - 1].off != o->marks[i].off || o->marks[w - 1].top != o->marks[i].top)
            o->marks[w++] = o->marks[i];
    o->nmarks = w;
    return true;
}

static bool escape_labels(overlay *o, size_t ntop)
{
    o->label_json = calloc(ntop ? ntop : 1, sizeof *o->label_json);
    if (!o->label_json) return false;
    bool ok = true;
    for (size_t k = 0; k < ntop; k++) {
        put_json_string(&o->label_json[k], o->labels[k]);
        ok &= !o->label_json[k].failed;
    }
    return ok;
}

/* The names of the rank's GPU events: the ids the copy may use, numbered
 * in the order the names first appear in the file (string ids depend on
 * which loader thread met a name first: the copy must not).              */
static bool build_dictionary(overlay *o, const kt_rank *r)
{
    o->ndict_ids = kt_strtab_count(o->t->strs);
    o->dict = kt_none_array(o->ndict_ids);
    if (!o->dict) return false;
    uint32_t next = 0;
    for (size_t i = 0; i < r->ev.n; i++) {
        uint32_t name = r->ev.name[i];
        if (!kt_kind_is_gpu(r->ev.kind[i]) || name >= o->ndict_ids || o->dict[name] != KT_NONE) continue;
        o->dict[name] = next;
        char key[48];
        snprintf(key, sizeof key, "%s\"%" PRIu32 "\": ", next ? ", " : "", next);
        put_str(&o->dict_text, key);
        put_json_string(&o->dict_text, kt_strtab_get(o->t->strs, name));
        next++;
    }
    if (!(o->id_text = malloc((next ? next : 1) * sizeof *o->id_text))) return false;
    for (uint32_t k = 0; k < next; k++) o->id_text[k] = SIZE_MAX;
    return !o->dict_text.failed;
}

/* Complete GPU events (found by their args object) get their name's id. */
static bool collect_renames(overlay *o, const kt_rank *r)
{
    for (int pass = 0; pass < 2; pass++) {
        o->nrenames = 0;
        for (size_t i = 0; i < r->ev.n; i++) {
            uint32_t name = r->ev.name[i];
            if (!kt_kind_is_gpu(r->ev.kind[i]) || r->ev.ph[i] != 'X' || !kt_args_off(&r->ev, i) ||
                name >= o->ndict_ids || o->dict[name] == KT_NONE)
                continue;
            if (pass) o->rename_off[o->nrenames] = kt_args_off(&r->ev, i), o->rename_to[o->nrenames] = o->dict[name];
            o->nrenames++;
        }
        if (pass) break;
        o->rename_off = malloc((o->nrenames ? o->nrenames : 1) * sizeof *o->rename_off);
        o->rename_to = malloc((o->nrenames ? o->nrenames : 1) * sizeof *o->rename_to);
        if (!o->rename_off || !o->rename_to) return false;
    }
    return kt_radix_sort(o->rename_off, o->rename_to, o->nrenames);
}

/* The args object of the profiler span (the first in the file) holds the
 * dictionary; without one there is nowhere to put it and names are kept. */
static void find_dictionary_span(overlay *o, const kt_rank *r)
{
    for (size_t i = 0; i < r->ev.n; i++) {
        if (r->ev.kind[i] != KT_K_TRACE_SPAN) continue; /* a name looked up per event cost 0.04 s on 4 M */
        const char *name = kt_strtab_get(o->t->strs, r->ev.name[i]);
        uint64_t off = kt_args_off(&r->ev, i);
        if (off && (!o->dict_off || off < o->dict_off) && name && strstr(name, "PyTorch Profiler")) o->dict_off = off;
    }
}

/* Every event the writer stops at, ascending, each once. */
static uint64_t *edit_offsets(const overlay *o, size_t *n)
{
    uint64_t *off = malloc((o->nmarks + o->nrenames + 1) * sizeof *off);
    if (!off) return NULL;
    *n = 0;
    for (size_t i = 0; i < o->nmarks; i++) off[(*n)++] = o->marks[i].off;
    for (size_t i = 0; i < o->nrenames; i++) off[(*n)++] = o->rename_off[i];
    if (o->dict_off) off[(*n)++] = o->dict_off;
    if (!kt_radix_sort(off, NULL, *n)) {
        free(off);
        return NULL;
    }
    size_t w = 0;
    for (size_t i = 0; i < *n; i++)
        if (!w || off[w - 1] != off[i]) off[w++] = off[i];
    *n = w;
    return off;
}

static bool prepare_names(overlay *o, const kt_rank *r)
{
    if (o->keep_names) return true;
    find_dictionary_span(o, r);
    return !o->dict_off || (build_dictionary(o, r) && collect_renames(o, r));
}

kt_status kt_write_patterns_overlay(const kt_trace *t, const kt_rank *r, const kt_pattern_set *s,
                                    const uint32_t *top, const char *const *labels, size_t ntop,
                                    const char *out_path, bool keep_names, kt_overlay_write_fn write,
                                    kt_overlay_result *res, char *err, size_t errlen)
{
    memset(res, 0, sizeof *res);
    overlay o = { .t = t, .s = s, .top = top, .labels = labels, .keep_names = keep_names, .res = res };
    kt_status st = KT_ENOMEM;
    size_t nedits = 0;
    uint64_t *edits = NULL;
    kt_overlay ov = { 0 };
    if (collect_marks(&o, r, ntop) && escape_labels(&o, ntop) && prepare_names(&o, r) &&
        (edits = edit_offsets(&o, &nedits)) != NULL) {
        kt_overlay_reserve_edits(&ov, nedits);
        for (size_t k = 0; k < nedits; k++) edit_event(&o, edits[k], &ov);
        kt_overlay_written done = { 0 };
        if (!ov.failed && !o.args.failed) st = write(t, r, &ov, out_path, &done, err, errlen);
        res->bytes = done.json_bytes;
    }
    kt_overlay_free(&ov);
    for (size_t k = 0; o.label_json && k < ntop; k++) free(o.label_json[k].p);
    free(edits);
    free(o.label_json);
    free(o.marks);
    free(o.dict);
    free(o.id_text);
    free(o.rename_off);
    free(o.rename_to);
    free(o.dict_text.p);
    free(o.args.p);
    return st;
}
