/*
 * kernel_names.c — see kernel_names.h.  The short form follows HTA's
 * shorten_name (drop bracketed groups, keep the last word) and then drops
 * namespaces, which is what makes it readable; distinctness is restored on
 * demand by kt_kernel_display_names.
 */
#include "kernel_names.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARGS_MAX 120 /* characters of template arguments shown to disambiguate */

static bool is_open(char c) { return c == '<' || c == '(' || c == '[' || c == '{'; }
static bool is_close(char c) { return c == '>' || c == ')' || c == ']' || c == '}'; }
static bool is_ident(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static bool keep_as_is(const char *name)
{
    return (!strchr(name, '<') && !strchr(name, '(')) || !strncmp(name, "Memcpy", 6) ||
           !strncmp(name, "Memset", 6);
}

/* The name's top-level text (outside every bracket group, "->" ignored),
 * with at[i] = index in the name of txt[i].                               */
typedef struct flat {
    char *txt;
    size_t *at;
    size_t n;
} flat;

static bool flatten(const char *s, flat *f)
{
    size_t len = strlen(s);
    f->txt = malloc(len + 1);
    f->at = malloc((len + 1) * sizeof *f->at);
    f->n = 0;
    if (!f->txt || !f->at) return false;
    int depth = 0;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (c == '-' && s[i + 1] == '>') { i++; continue; }
        if (is_open(c)) depth++;
        else if (is_close(c)) depth -= depth > 0;
        else if (depth == 0) {
            f->txt[f->n] = c;
            f->at[f->n++] = i;
        }
    }
    f->txt[f->n] = '\0';
    return true;
}

static void flat_free(flat *f)
{
    free(f->txt);
    free(f->at);
}

/* [*ws, *end) = the last top-level word, without a trailing " const". */
static void last_word(const flat *f, size_t *ws, size_t *end)
{
    size_t e = f->n;
    for (;;) {
        while (e > 0 && f->txt[e - 1] == ' ') e--;
        if (e >= 6 && !memcmp(f->txt + e - 6, " const", 6)) e -= 6;
        else break;
    }
    size_t s = e;
    while (s > 0 && f->txt[s - 1] != ' ') s--;
    *ws = s;
    *end = e;
}

/* Start of the component after the last "::" in txt[ws, end). */
static size_t last_component(const char *txt, size_t ws, size_t end)
{
    for (size_t i = end; i >= ws + 2; i--)
        if (txt[i - 1] == ':' && txt[i - 2] == ':') return i;
    return ws;
}

static bool generic_component(const char *s, size_t len)
{
    if (len < 6 || (s[0] != 'k' && s[0] != 'K') || memcmp(s + 1, "ernel", 5)) return false;
    for (size_t i = 6; i < len; i++)
        if (s[i] < '0' || s[i] > '9') return false;
    return true;
}

/* Index just past the bracket group opening at name[open], or strlen. */
static size_t group_end(const char *name, size_t open)
{
    int depth = 0;
    for (size_t i = open; name[i]; i++) {
        if (name[i] == '-' && name[i + 1] == '>') { i++; continue; }
        if (is_open(name[i])) depth++;
        else if (is_close(name[i]) && --depth == 0) return i + 1;
    }
    return strlen(name);
}

/* First template argument at name[open] == '<' if it looks like a kernel's
 * own name (cutlass_80_tensorop_..._align1): a long identifier with an
 * underscore, not a type such as int or float.                            */
static char *identifier_argument(const char *name, size_t open)
{
    size_t b = open + 1;
    while (name[b] == ' ') b++;
    size_t e = b;
    while (is_ident(name[e])) e++;
    size_t t = e;
    while (name[t] == ' ') t++;
    if (e - b < 8 || !memchr(name + b, '_', e - b) || (name[t] != ',' && name[t] != '>')) return NULL;
    return strndup(name + b, e - b);
}

char *kt_kernel_short_name(const char *name)
{
    if (keep_as_is(name)) return strdup(name);
    flat f;
    char *out = NULL;
    if (!flatten(name, &f)) goto done;
    size_t ws, end;
    last_word(&f, &ws, &end);
    size_t cs = last_component(f.txt, ws, end);
    if (cs >= end) { out = strdup(name); goto done; }
    if (generic_component(f.txt + cs, end - cs)) {
        size_t after = f.at[end - 1] + 1;
        if (name[after] == '<' && (out = identifier_argument(name, after))) goto done;
        if (cs > ws + 2) cs = last_component(f.txt, ws, cs - 2);
    }
    out = strndup(f.txt + cs, end - cs);
done:
    flat_free(&f);
    return out;
}

/* Template arguments (or, lacking them, parameters) of the name's last
 * word, without namespaces and parameter lists, at most ARGS_MAX chars:
 * "<float, unsigned int, 1, 128, 1>".  NULL if the word has neither.       */
static char *simplified_arguments(const char *name)
{
    flat f;
    char *out = NULL;
    if (!flatten(name, &f) || f.n == 0) goto done;
    size_t ws, end;
    last_word(&f, &ws, &end);
    if (end == 0) goto done;
    size_t open = f.at[end - 1] + 1;
    if (name[open] != '<' && name[open] != '(') goto done;
    size_t close = group_end(name, open);
    out = malloc(ARGS_MAX + 8);
    if (!out) goto done;
    size_t n = 0;
    for (size_t i = open; i < close && n < ARGS_MAX; i++) {
        if (!strncmp(name + i, "(anonymous namespace)::", 23)) { i += 22; continue; }
        if (is_ident(name[i]) && (i == open || !is_ident(name[i - 1]))) {
            size_t e = i;
            while (is_ident(name[e])) e++;
            if (name[e] == ':' && name[e + 1] == ':') { i = e + 1; continue; }
        }
        if (name[i] == '(' && i > open) {
            i = group_end(name, i) - 1;
            out[n++] = '(';
            out[n++] = ')';
            continue;
        }
        if (name[i] == ' ' && n > 0 && out[n - 1] == ' ') continue;
        out[n++] = name[i];
    }
    if (n >= ARGS_MAX) n += (size_t)snprintf(out + n, 8, "...%c", name[open] == '<' ? '>' : ')');
    out[n] = '\0';
done:
    flat_free(&f);
    return out;
}

static int by_name(const void *a, const void *b, void *names)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    char **s = names;
    int c = strcmp(s[x], s[y]);
    return c ? c : (x > y) - (x < y);
}

/* Sorted index of out[]; callers walk runs of equal names. */
static size_t *sorted_index(char **out, size_t n)
{
    size_t *idx = malloc((n ? n : 1) * sizeof *idx);
    if (!idx) return NULL;
    for (size_t i = 0; i < n; i++) idx[i] = i;
    qsort_r(idx, n, sizeof *idx, by_name, out);
    return idx;
}

/* Apply fix(i) to every member of every run of equal out[] names. */
static bool fix_collisions(const char *const *full, char **out, size_t n, bool number)
{
    size_t *idx = sorted_index(out, n);
    if (!idx) return false;
    bool ok = true;
    for (size_t a = 0; a < n && ok;) {
        size_t b = a + 1;
        while (b < n && !strcmp(out[idx[a]], out[idx[b]])) b++;
        for (size_t k = a; b - a > 1 && k < b && ok; k++) {
            size_t i = idx[k];
            char *args = number ? NULL : simplified_arguments(full[i]);
            size_t len = strlen(out[i]) + (args ? strlen(args) : 24) + 1;
            char *s = (number || args) ? malloc(len) : NULL;
            if (s && args) snprintf(s, len, "%s%s", out[i], args);
            else if (s) snprintf(s, len, "%s #%zu", out[i], k - a + 1);
            free(args);
            if (!s && (number || args)) ok = false;
            else if (s) { free(out[i]); out[i] = s; }
        }
        a = b;
    }
    free(idx);
    return ok;
}

bool kt_kernel_display_names(const char *const *full, size_t n, char **out)
{
    bool ok = true;
    for (size_t i = 0; i < n; i++) ok = (out[i] = kt_kernel_short_name(full[i])) && ok;
    /* numbering follows row order: sorted_index breaks ties by index */
    ok = ok && fix_collisions(full, out, n, false) && fix_collisions(full, out, n, true);
    if (!ok)
        for (size_t i = 0; i < n; i++) { free(out[i]); out[i] = NULL; }
    return ok;
}
