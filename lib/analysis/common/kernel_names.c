/*
 * kernel_names.c — see kernel_names.h.  The short form follows HTA's
 * shorten_name (drop bracketed groups, keep the last word) and then drops
 * namespaces, which is what makes it readable; distinctness is restored on
 * demand by kt_kernel_display_names.
 */
#include "analysis/common/kernel_names.h"
#include "analysis/common/kernel_type.h"

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

/* Start of the component after the last "::" in s[0, end). */
static size_t last_component(const char *s, size_t end)
{
    for (size_t i = end; i >= 2; i--)
        if (s[i - 1] == ':' && s[i - 2] == ':') return i;
    return 0;
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

/* Where the kernel's own bracket groups start: just after the first
 * occurrence of comp[0, len) that is followed by '<' or '(' — the function
 * name precedes its template arguments and parameters.  0 if none.        */
static size_t groups_after(const char *name, const char *comp, size_t len)
{
    for (const char *p = name; len && (p = strstr(p, comp)); p++) {
        const char *q = p;
        for (size_t k = 0; k < len && q; k++) q = q[0] == comp[k] ? q + 1 : NULL;
        if (q && (*q == '<' || *q == '(') && (p == name || !is_ident(p[-1]))) return (size_t)(q - name);
    }
    return 0;
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

/* HTA's short word ("at::native::::CatArrayBatchedCopy") in a malloc'd
 * buffer (*buf), with *word pointing into it.                              */
static bool hta_word(const char *name, char **buf, const char **word)
{
    size_t len = strlen(name) + 1;
    if (!(*buf = malloc(len))) return false;
    *word = kt_shorten_name(name, *buf, len);
    return true;
}

char *kt_hta_short_name(const char *name)
{
    char *buf;
    const char *word;
    if (!hta_word(name, &buf, &word)) return NULL;
    memmove(buf, word, strlen(word) + 1);
    return buf;
}

char *kt_kernel_short_name(const char *name)
{
    char *buf, *out = NULL;
    const char *word;
    if (!hta_word(name, &buf, &word)) return NULL;
    if (!strpbrk(name, "<(") || !strcmp(word, name)) {
        out = strdup(word); /* kept whole (memcpy, plain names) */
        goto done;
    }
    size_t end = strlen(word), cs = last_component(word, end);
    if (cs < end && generic_component(word + cs, end - cs)) {
        size_t after = groups_after(name, word + cs, end - cs);
        if (after && name[after] == '<' && (out = identifier_argument(name, after))) goto done;
        if (cs > 2) cs = last_component(word, cs - 2);
    }
    out = cs < end ? strndup(word + cs, end - cs) : strdup(name);
done:
    free(buf);
    return out;
}

/* Template arguments (or, lacking them, parameters) of the kernel's own
 * name, without namespaces and parameter lists, at most ARGS_MAX chars:
 * "<float, unsigned int, 1, 128, 1>".  NULL if it has neither.            */
static char *simplified_arguments(const char *name)
{
    char *buf, *out = NULL;
    const char *word;
    if (!hta_word(name, &buf, &word)) return NULL;
    size_t end = strlen(word), cs = last_component(word, end);
    size_t open = groups_after(name, word + cs, end - cs);
    if (!open) goto done;
    size_t close = group_end(name, open);
    out = malloc(ARGS_MAX + 8);
    if (!out) goto done;
    size_t n = 0;
    for (size_t i = open; i < close && n < ARGS_MAX; i++) {
        if (!strncmp(name + i, "(anonymous namespace)::", 23)) { i += 22; continue; }
        if (!strncmp(name + i, "::operator()()", 14)) { i += 13; continue; } /* lambda bodies */
        if (!strncmp(name + i, " const", 6) && !is_ident(name[i + 6])) { i += 5; continue; }
        if (is_ident(name[i]) && (i == open || !is_ident(name[i - 1]))) {
            size_t e = i;
            while (is_ident(name[e])) e++;
            if (name[e] == ':' && name[e + 1] == ':') { i = e + 1; continue; }
        }
        if (name[i] == '(' && i > open) { /* parameter lists as "()", casts "(T)3" as "3" */
            size_t e = group_end(name, i);
            bool cast = (name[e] >= '0' && name[e] <= '9') || name[e] == '-';
            i = e - 1;
            if (!cast) out[n++] = '(', out[n++] = ')';
            continue;
        }
        if (name[i] == ' ' && n > 0 && out[n - 1] == ' ') continue;
        out[n++] = name[i];
    }
    if (n >= ARGS_MAX) n += (size_t)snprintf(out + n, 8, "...%c", name[open] == '<' ? '>' : ')');
    out[n] = '\0';
done:
    free(buf);
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
