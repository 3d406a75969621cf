/*
 * column_labels.c — units, table headers and JSON keys of result columns
 * (see column_labels.h).  Library tables keep the reference tools' column
 * names (CSV is compared with HTA's); people and scripts get these forms.
 */
#include "column_labels.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* The unit a column name spells, or NULL. */
static const char *unit_in_name(const char *name)
{
    static const struct { const char *suffix, *unit; } suffixes[] = {
        { "(us)", "us" }, { "_us", "us" }, { " us", "us" }, { "(\xc2\xb5s)", "us" },
        { "(ms)", "ms" }, { "_ms", "ms" }, { " ms", "ms" },
        { "(ns)", "ns" }, { "_ns", "ns" }, { " ns", "ns" },
    };
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++)
        if (ends_with(name, suffixes[i].suffix)) return suffixes[i].unit;
    if (strstr(name, "gbps") || strstr(name, "GB/s")) return "GB/s";
    if (strchr(name, '%') || strstr(name, "pct") || strstr(name, "percent")) return "%";
    return NULL;
}

const char *column_unit(const kt_table *t, size_t col)
{
    const char *u = kt_table_col_unit(t, col);
    return u ? u : unit_in_name(kt_table_col_name(t, col));
}

int unit_decimals(const char *unit)
{
    if (!unit) return -1;
    if (!strcmp(unit, "ns")) return 0;
    if (!strcmp(unit, "%")) return 2;
    return 3; /* us (ns resolution), ms, GB/s */
}

void column_header(const kt_table *t, size_t col, char *buf, size_t n)
{
    const char *name = kt_table_col_name(t, col), *u = kt_table_col_unit(t, col);
    if (u && unit_in_name(name) != u) snprintf(buf, n, "%s (%s)", name, u);
    else snprintf(buf, n, "%s", name);
}

/* Appends text to the key being built, with '_' between words. */
typedef struct key_buf {
    char *p;
    size_t len, cap;
    bool gap; /* a separator is due before the next word character */
} key_buf;

static void key_append(key_buf *k, const char *s)
{
    for (; *s && k->len + 1 < k->cap; s++) k->p[k->len++] = *s;
    k->p[k->len] = '\0';
}

static void key_put(key_buf *k, const char *s)
{
    if (k->gap && k->len) key_append(k, "_");
    k->gap = false;
    key_append(k, s);
}

static void key_word(key_buf *k, const char *name)
{
    for (const char *s = name; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (isalnum(ch)) {
            size_t digits = strspn(s, "0123456789");
            if (digits && s[digits] == '%') { /* "25%" -> "p25" */
                char tmp[32];
                snprintf(tmp, sizeof tmp, "p%.*s", (int)(digits < 16 ? digits : 16), s);
                key_put(k, tmp);
                s += digits;
                continue;
            }
            char one[2] = { (char)tolower(ch), '\0' };
            key_put(k, one);
        } else if (ch == '%' || ch == '#') {
            k->gap = true;
            key_put(k, ch == '%' ? "pct" : "n");
            k->gap = true;
        } else if (ch == 0xc2 && (unsigned char)s[1] == 0xb5) { /* µ */
            key_put(k, "u");
            s++;
        } else {
            k->gap = true;
        }
    }
}

void column_json_key(const kt_table *t, size_t col, bool hta_names, char *buf, size_t n)
{
    const char *name = kt_table_col_name(t, col), *u = kt_table_col_unit(t, col);
    if (hta_names || n == 0) {
        if (n) snprintf(buf, n, "%s", name);
        return;
    }
    key_buf k = { .p = buf, .cap = n };
    buf[0] = '\0';
    key_word(&k, name);
    if (u && unit_in_name(name) != u) {
        k.gap = true;
        key_word(&k, !strcmp(u, "GB/s") ? "gbps" : !strcmp(u, "%") ? "pct" : u);
    }
}
