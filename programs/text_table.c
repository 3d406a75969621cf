/*
 * text_table.c — result tables as text a person reads in a terminal.
 *
 * Every command's tables go through here in table format, so fitting them
 * is done once: columns sized to their contents, long names cut distinctly
 * (short_names.c), headers broken onto two lines and name columns narrowed
 * when the table is wider than the terminal, and what still does not fit
 * continued in a second block that repeats the leading (identifying)
 * columns.  No line ends in spaces.
 */
#include "cli.h"
#include "column_labels.h"
#include "short_names.h"

#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define NAME_MAX_WIDTH 80 /* names are cut here even on a wide terminal */
#define NAME_MIN_WIDTH 24 /* and narrowed no further to fit one         */
#define PAIR_MIN_WIDTH 40 /* nor "A → B" cells, which hold two names     */
#define GAP 2             /* spaces between columns                     */

size_t terminal_width(FILE *f)
{
    const char *env = getenv("COLUMNS");
    long v = env ? strtol(env, NULL, 10) : 0;
    if (v >= 20 && v <= 100000) return (size_t)v;
    struct winsize ws;
    if (isatty(fileno(f)) && ioctl(fileno(f), TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20) return ws.ws_col;
    return 100;
}

text_style text_style_for(const cli_ctx *ctx, FILE *f)
{
    return (text_style){ .width = ctx->verbose ? 0 : terminal_width(f), .full_names = ctx->verbose };
}

typedef struct layout {
    const kt_table *t;
    size_t nc, nr;
    char **cells;  /* nr * nc texts as shown */
    char **head;   /* nc headers */
    size_t *split; /* where a header's second line starts (0 = one line) */
    size_t *w;     /* column widths */
    size_t *cw;    /* widest cell of each column */
} layout;

static void layout_free(layout *l)
{
    for (size_t i = 0; l->cells && i < l->nr * l->nc; i++) free(l->cells[i]);
    for (size_t c = 0; l->head && c < l->nc; c++) free(l->head[c]);
    free(l->cells);
    free(l->head);
    free(l->split);
    free(l->w);
    free(l->cw);
}

static bool is_text(const layout *l, size_t c) { return kt_table_col_type(l->t, c) == KT_COL_STR; }

/* Control characters (a newline or tab in a name from a damaged trace)
 * would break the table's lines: shown as spaces.                          */
static void flatten(char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f) *s = ' ';
}

/* The '.' of a number whose decimals are all zeros ("21283.000"), or NULL. */
static char *zero_fraction(char *s)
{
    char *dot = strchr(s, '.');
    if (!dot || !dot[1]) return NULL;
    for (const char *p = dot + 1; *p; p++)
        if (*p != '0') return NULL;
    return dot;
}

/* A float column whose every value shown is whole prints without decimals
 * ("21283", not "21283.000": times of a trace in whole µs).              */
static void drop_zero_fractions(layout *l, size_t c)
{
    for (size_t r = 0; r < l->nr; r++) {
        char *s = l->cells[r * l->nc + c];
        if (strchr(s, '.') && !zero_fraction(s)) return;
    }
    for (size_t r = 0; r < l->nr; r++) {
        char *s = l->cells[r * l->nc + c], *dot = zero_fraction(s);
        if (dot) *dot = '\0';
        if (!strcmp(s, "-0")) strcpy(s, "0");
    }
}

static bool layout_fill(layout *l, const text_style *st)
{
    size_t nc = l->nc ? l->nc : 1;
    l->cells = calloc(l->nr * l->nc + 1, sizeof *l->cells);
    l->head = calloc(nc, sizeof *l->head);
    l->split = calloc(nc, sizeof *l->split);
    l->w = calloc(nc, sizeof *l->w);
    l->cw = calloc(nc, sizeof *l->cw);
    if (!l->cells || !l->head || !l->split || !l->w || !l->cw) return false;
    for (size_t c = 0; c < l->nc; c++) {
        char buf[512];
        column_header(l->t, c, buf, sizeof buf);
        if (!(l->head[c] = strdup(buf))) return false;
        flatten(l->head[c]);
        int decimals = unit_decimals(column_unit(l->t, c));
        for (size_t r = 0; r < l->nr; r++) {
            char *s = cell_display(l->t, r, c, decimals);
            if (!(l->cells[r * l->nc + c] = s)) return false;
            flatten(s);
        }
        if (kt_table_col_type(l->t, c) == KT_COL_FLOAT) drop_zero_fractions(l, c);
        for (size_t r = 0; r < l->nr; r++) {
            size_t n = text_width(l->cells[r * l->nc + c]);
            if (n > l->cw[c]) l->cw[c] = n;
        }
        size_t cap = is_text(l, c) && !st->full_names ? NAME_MAX_WIDTH : (size_t)-1;
        l->w[c] = l->cw[c] < cap ? l->cw[c] : cap;
        if (text_width(l->head[c]) > l->w[c]) l->w[c] = text_width(l->head[c]);
    }
    return true;
}

static size_t total_width(const layout *l)
{
    size_t sum = 0;
    for (size_t c = 0; c < l->nc; c++) sum += l->w[c] + (c ? GAP : 0);
    return sum;
}

/* Bytes of a header's first line when its second starts at split. */
static size_t first_line_len(const char *h, size_t split)
{
    return split && h[split - 1] == ' ' ? split - 1 : split;
}

/* Width of header h broken at byte split (0: not broken). */
static size_t header_width(const char *h, size_t split)
{
    if (!split) return text_width(h);
    size_t a = 0, b = text_width(h + split), n = first_line_len(h, split);
    for (size_t i = 0; i < n; i++) a += ((unsigned char)h[i] & 0xc0) != 0x80;
    return a > b ? a : b;
}

/* Headers wider than their column's cells go onto two lines after a space
 * or before a '(' where that makes them narrowest ("total (us)" and
 * "idle_time(us)" over "(us)").                                            */
static void break_headers(layout *l)
{
    for (size_t c = 0; c < l->nc; c++) {
        const char *h = l->head[c];
        size_t best = 0, best_w = text_width(h);
        for (size_t i = 1; h[i]; i++) {
            if (h[i - 1] != ' ' && h[i] != '(') continue;
            size_t hw = header_width(h, i);
            if (hw < best_w) best = i, best_w = hw;
        }
        if (!best) continue;
        l->split[c] = best;
        size_t want = l->cw[c] > best_w ? l->cw[c] : best_w;
        if (want < l->w[c]) l->w[c] = want;
    }
}

/* The narrowest a text column gets: its header, and room for a name. */
static size_t name_floor(const layout *l, size_t c)
{
    size_t floor = header_width(l->head[c], l->split[c]), min = NAME_MIN_WIDTH;
    for (size_t r = 0; r < l->nr && min == NAME_MIN_WIDTH; r++)
        if (strstr(l->cells[r * l->nc + c], " \xe2\x86\x92 ")) min = PAIR_MIN_WIDTH;
    return floor > min ? floor : min;
}

/* Narrow the widest text columns until the table fits (or they reach
 * their name_floor).                                                       */
static void narrow_names(layout *l, size_t width)
{
    size_t *floors = malloc((l->nc ? l->nc : 1) * sizeof *floors);
    if (!floors) return;
    for (size_t c = 0; c < l->nc; c++) floors[c] = is_text(l, c) ? name_floor(l, c) : 0;
    for (size_t total = total_width(l); total > width;) {
        size_t widest = l->nc;
        for (size_t c = 0; c < l->nc; c++) {
            size_t floor = floors[c];
            if (is_text(l, c) && l->w[c] > floor && (widest == l->nc || l->w[c] > l->w[widest])) widest = c;
        }
        if (widest == l->nc) break;
        l->w[widest]--;
        total--;
    }
    free(floors);
}

/* When the table needs several blocks anyway, names get room again (up to
 * 2/5 of the width): they are what each row of every block is about.      */
static void widen_names(layout *l, size_t width)
{
    for (size_t c = 0; c < l->nc; c++) {
        size_t natural = l->cw[c] < NAME_MAX_WIDTH ? l->cw[c] : NAME_MAX_WIDTH, room = width * 2 / 5;
        size_t want = natural < room ? natural : room;
        if (is_text(l, c) && l->w[c] < want) l->w[c] = want;
    }
}

/* Cut the texts of columns narrower than their contents. */
static bool cut_names(layout *l)
{
    char **col = malloc((l->nr ? l->nr : 1) * sizeof *col);
    bool ok = col != NULL;
    for (size_t c = 0; ok && c < l->nc; c++) {
        if (!is_text(l, c) || l->cw[c] <= l->w[c]) continue;
        for (size_t r = 0; r < l->nr; r++) col[r] = l->cells[r * l->nc + c];
        ok = shorten_distinct(col, l->nr, l->w[c]);
        for (size_t r = 0; r < l->nr; r++) l->cells[r * l->nc + c] = col[r];
    }
    free(col);
    return ok;
}

/* Writes text padded to w columns, never leaving spaces at a line's end:
 * padding is only written once something follows it.                      */
typedef struct line_out {
    FILE *f;
    size_t pending;
} line_out;

static void put_cell(line_out *o, const char *s, size_t w, bool left, bool first)
{
    size_t n = text_width(s), pad = w > n ? w - n : 0;
    o->pending += first ? 0 : GAP;
    if (!left) o->pending += pad;
    if (*s) {
        fprintf(o->f, "%*s%s", (int)o->pending, "", s);
        o->pending = 0;
    }
    if (left) o->pending += pad;
}

static void end_line(line_out *o)
{
    fputc('\n', o->f);
    o->pending = 0;
}

/* Columns of one block: the key columns, then [from, to). */
typedef struct block {
    size_t keys, from, to;
} block;

static void print_headers(const layout *l, const block *b, FILE *f)
{
    bool two = false;
    for (size_t c = 0; c < b->to; c++) two = two || ((c < b->keys || c >= b->from) && l->split[c]);
    for (int line = two ? 0 : 1; line < 2; line++) {
        line_out o = { .f = f };
        bool first = true;
        for (size_t c = 0; c < b->to; c++) {
            if (c >= b->keys && c < b->from) continue;
            const char *h = l->head[c];
            char part[512];
            if (!l->split[c]) snprintf(part, sizeof part, "%s", line ? h : "");
            else if (line == 0) snprintf(part, sizeof part, "%.*s", (int)first_line_len(h, l->split[c]), h);
            else snprintf(part, sizeof part, "%s", h + l->split[c]);
            put_cell(&o, part, l->w[c], is_text(l, c), first);
            first = false;
        }
        end_line(&o);
    }
}

static void print_block(const layout *l, const block *b, FILE *f)
{
    print_headers(l, b, f);
    for (size_t r = 0; r < l->nr; r++) {
        line_out o = { .f = f };
        bool first = true;
        for (size_t c = 0; c < b->to; c++) {
            if (c >= b->keys && c < b->from) continue;
            put_cell(&o, l->cells[r * l->nc + c], l->w[c], is_text(l, c), first);
            first = false;
        }
        end_line(&o);
    }
}

/* Leading columns repeated in every block: the text and integer columns
 * before the first float (rank, stream, name, ... say what a row is
 * about), at most 4 and half the width; at least the first, and never all. */
static size_t key_columns(const layout *l, size_t width)
{
    size_t keys = 0, sum = 0;
    while (keys < l->nc && keys < 4 && kt_table_col_type(l->t, keys) != KT_COL_FLOAT &&
           sum + l->w[keys] + GAP <= width / 2)
        sum += l->w[keys++] + GAP;
    if (keys == 0) keys = 1;
    return keys < l->nc ? keys : l->nc - 1;
}

/* End of the block starting at column from: columns are added while the
 * block is narrower than target and the next one fits in width.          */
static size_t block_end(const layout *l, size_t from, size_t key_w, size_t target, size_t width)
{
    size_t to = from + 1, used = key_w + l->w[from];
    while (to < l->nc && used < target && used + GAP + l->w[to] <= width) used += GAP + l->w[to++];
    return to;
}

static void print_blocks(const layout *l, size_t width, FILE *f)
{
    if (!width || total_width(l) <= width || l->nc < 2) {
        print_block(l, &(block){ .keys = 0, .from = 0, .to = l->nc }, f);
        return;
    }
    size_t keys = key_columns(l, width), key_w = 0, blocks = 0, rest = 0;
    for (size_t c = 0; c < keys; c++) key_w += l->w[c] + GAP;
    for (size_t from = keys; from < l->nc; blocks++) from = block_end(l, from, key_w, width, width);
    for (size_t c = keys; c < l->nc; c++) rest += l->w[c] + GAP;
    size_t even = key_w + (rest + blocks - 1) / blocks; /* no block left with one column */
    for (size_t from = keys; from < l->nc;) {
        size_t to = block_end(l, from, key_w, even, width);
        if (from > keys) fputc('\n', f);
        print_block(l, &(block){ .keys = keys, .from = from, .to = to }, f);
        from = to;
    }
}

void print_table_text_styled(const kt_table *t, const text_style *st, FILE *f)
{
    size_t nr = kt_table_nrows(t);
    layout l = { .t = t, .nc = kt_table_ncols(t), .nr = st->max_rows && st->max_rows < nr ? st->max_rows : nr };
    fprintf(f, "== %s (%zu rows)\n", kt_table_name(t), nr);
    bool ok = layout_fill(&l, st);
    if (ok && st->width && total_width(&l) > st->width) {
        break_headers(&l);
        narrow_names(&l, st->width);
        if (total_width(&l) > st->width) widen_names(&l, st->width);
    }
    if (ok) ok = cut_names(&l);
    if (ok) print_blocks(&l, st->width, f);
    else fprintf(f, "(out of memory)\n");
    layout_free(&l);
}
