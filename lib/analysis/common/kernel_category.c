/*
 * kernel_category.c — kernel categories by name: one ordered, priority-ranked
 * rule table (built-in rules plus user rule files, same text format).
 *
 * Why tokens: substring tests misfire on real names ("conv" in convert,
 * "norm" in normal, "reduce" in ncclDevKernel_AllReduce).  Names are split
 * into lower-case tokens at every non-alphanumeric character and between
 * letters and digits (s16816gemm → s 16816 gemm, but fbgemm stays fbgemm),
 * so rules can ask for whole words.  Every matching rule is a candidate;
 * the highest priority wins, and on equal priority the later rule, so a
 * user file appended after the built-ins overrides them.
 */
#include "analysis/common/kernel_category.h"
#include "model/model.h"

#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const char kt_builtin_category_rules[];

/* Only this many leading bytes of a name are matched: the kernel's own name
 * comes first, and a fixed bound keeps matching allocation-free.            */
#define MATCH_BYTES 4096
#define NBUCKETS 36 /* first character of a token: a-z, 0-9 */

typedef struct tok {
    uint16_t off, len;
} tok;

typedef enum { M_TOKEN, M_PREFIX, M_SUBSTR, M_REGEX } match_kind;

typedef struct rule {
    match_kind kind;
    int priority;
    uint32_t category;
    char *pattern;  /* as written */
    char *low;      /* lower-cased pattern (token/prefix/substr)            */
    tok *ptok;      /* tokens of low (token/prefix)                         */
    size_t ntok;
    regex_t re;     /* M_REGEX only                                         */
} rule;

struct kt_categorizer {
    rule *rules;    /* definition order */
    size_t n, cap;
    char **cats;
    size_t ncats, cap_cats;
    uint32_t *bucket[NBUCKETS]; /* token/prefix rules by first character */
    size_t nbucket[NBUCKETS];
};

static int char_class(unsigned char c)
{
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) return 1;
    if (c >= '0' && c <= '9') return 2;
    return 0;
}

/* Lower-case s[0..len) into low and split it into tokens (runs of letters
 * or runs of digits).  len <= MATCH_BYTES; toks has room for len entries. */
static size_t tokenize(const char *s, size_t len, char *low, tok *toks)
{
    size_t n = 0;
    int prev = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        int cls = char_class(c);
        low[i] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
        if (cls && cls == prev) toks[n - 1].len++;
        else if (cls) toks[n++] = (tok){ (uint16_t)i, 1 };
        prev = cls;
    }
    low[len] = '\0';
    return n;
}

static int bucket_of(char c) { return c >= 'a' && c <= 'z' ? c - 'a' : c >= '0' && c <= '9' ? 26 + c - '0' : -1; }

/* ---- matching ------------------------------------------------------------ */

static bool token_rule_matches(const rule *r, const char *low, const tok *t, size_t nt, size_t i)
{
    if (r->kind == M_PREFIX)
        return t[i].len >= r->ptok[0].len && !memcmp(low + t[i].off, r->low, r->ptok[0].len);
    if (i + r->ntok > nt) return false;
    for (size_t k = 0; k < r->ntok; k++) {
        const tok *a = &t[i + k], *b = &r->ptok[k];
        if (a->len != b->len || memcmp(low + a->off, r->low + b->off, a->len)) return false;
    }
    return true;
}

/* Highest priority wins; on a tie the later rule (higher index). */
static void consider(const kt_categorizer *c, size_t ri, long *best)
{
    if (*best < 0) { *best = (long)ri; return; }
    const rule *a = &c->rules[ri], *b = &c->rules[*best];
    if (a->priority > b->priority || (a->priority == b->priority && ri > (size_t)*best)) *best = (long)ri;
}

static uint32_t match_rules(const kt_categorizer *c, const char *name)
{
    char low[MATCH_BYTES + 1];
    tok toks[MATCH_BYTES];
    size_t len = strnlen(name, MATCH_BYTES);
    size_t nt = tokenize(name, len, low, toks);
    long best = -1;
    for (size_t i = 0; i < nt; i++) {
        int b = bucket_of(low[toks[i].off]);
        for (size_t k = 0; k < c->nbucket[b]; k++) {
            uint32_t ri = c->bucket[b][k];
            if (token_rule_matches(&c->rules[ri], low, toks, nt, i)) consider(c, ri, &best);
        }
    }
    for (size_t ri = 0; ri < c->n; ri++) {
        const rule *r = &c->rules[ri];
        bool hit = (r->kind == M_SUBSTR && strstr(low, r->low)) ||
                   (r->kind == M_REGEX && regexec(&r->re, low, 0, NULL, 0) == 0);
        if (hit) consider(c, ri, &best);
    }
    return best < 0 ? KT_CAT_OTHER : c->rules[best].category;
}

uint32_t kt_category_of(const kt_categorizer *c, const char *name, uint8_t kind)
{
    if (kind == KT_K_MEMCPY) return KT_CAT_MEMCPY;
    if (kind == KT_K_MEMSET) return KT_CAT_MEMSET;
    return name ? match_rules(c, name) : KT_CAT_OTHER;
}

const char *kt_category_name(const kt_categorizer *c, uint32_t idx)
{
    return idx < c->ncats ? c->cats[idx] : "Other";
}

const char *kt_categorize(const kt_categorizer *c, const char *kernel_name)
{
    return kt_category_name(c, kt_category_of(c, kernel_name, KT_K_KERNEL));
}

struct kt_category_cache {
    const kt_categorizer *c;
    const kt_strtab *strs;
    size_t n;
    uint16_t *cat; /* by name id: category + 1; 0 = not yet known */
};

kt_category_cache *kt_category_cache_new(const kt_categorizer *c, const kt_strtab *strs)
{
    kt_category_cache *cc = calloc(1, sizeof *cc);
    if (!cc) return NULL;
    *cc = (kt_category_cache){ c, strs, kt_strtab_count(strs), NULL };
    if (!(cc->cat = calloc(cc->n ? cc->n : 1, sizeof *cc->cat))) {
        free(cc);
        return NULL;
    }
    return cc;
}

void kt_category_cache_free(kt_category_cache *cc)
{
    if (!cc) return;
    free(cc->cat);
    free(cc);
}

uint32_t kt_event_category(kt_category_cache *cc, const kt_rank *r, uint32_t ev)
{
    uint8_t kind = r->ev.kind[ev];
    uint32_t name = r->ev.name[ev];
    if (kind == KT_K_MEMCPY || kind == KT_K_MEMSET || name >= cc->n || cc->c->ncats >= UINT16_MAX)
        return kt_category_of(cc->c, name < cc->n ? kt_strtab_get(cc->strs, name) : "", kind);
    if (!cc->cat[name]) cc->cat[name] = (uint16_t)(1 + kt_category_of(cc->c, kt_strtab_get(cc->strs, name), kind));
    return cc->cat[name] - 1u;
}

/* ---- building the table -------------------------------------------------- */

static void rule_free(rule *r)
{
    if (r->kind == M_REGEX) regfree(&r->re);
    free(r->pattern);
    free(r->low);
    free(r->ptok);
}

static bool rebuild_buckets(kt_categorizer *c)
{
    for (int b = 0; b < NBUCKETS; b++) {
        free(c->bucket[b]);
        c->bucket[b] = NULL;
        c->nbucket[b] = 0;
    }
    for (size_t ri = 0; ri < c->n; ri++) {
        const rule *r = &c->rules[ri];
        if (r->kind != M_TOKEN && r->kind != M_PREFIX) continue;
        int b = bucket_of(r->low[r->ptok[0].off]);
        uint32_t *nb = realloc(c->bucket[b], (c->nbucket[b] + 1) * sizeof *nb);
        if (!nb) return false;
        c->bucket[b] = nb;
        nb[c->nbucket[b]++] = (uint32_t)ri;
    }
    return true;
}

static long category_index(kt_categorizer *c, const char *name)
{
    for (size_t i = 0; i < c->ncats; i++)
        if (!strcmp(c->cats[i], name)) return (long)i;
    if (c->ncats == c->cap_cats) {
        size_t cap = c->cap_cats ? c->cap_cats * 2 : 16;
        char **nc = realloc(c->cats, cap * sizeof *nc);
        if (!nc) return -1;
        c->cats = nc;
        c->cap_cats = cap;
    }
    if (!(c->cats[c->ncats] = strdup(name))) return -1;
    return (long)c->ncats++;
}

static bool kind_of_word(const char *w, match_kind *k)
{
    static const char *const words[] = { "token", "prefix", "substr", "regex" };
    for (int i = 0; i < 4; i++)
        if (!strcmp(w, words[i])) { *k = (match_kind)i; return true; }
    return false;
}

/* Fill r from kind/pattern; on error write why into err. */
static bool compile_rule(rule *r, match_kind kind, const char *pattern, char *err, size_t errlen)
{
    size_t len = strlen(pattern);
    *r = (rule){ .kind = kind };
    if (len > MATCH_BYTES) { snprintf(err, errlen, "pattern longer than %d bytes", MATCH_BYTES); return false; }
    r->pattern = strdup(pattern);
    r->low = malloc(len + 1);
    r->ptok = malloc((len + 1) * sizeof *r->ptok);
    if (!r->pattern || !r->low || !r->ptok) { snprintf(err, errlen, "out of memory"); return false; }
    r->ntok = tokenize(pattern, len, r->low, r->ptok);
    if ((kind == M_TOKEN || kind == M_PREFIX) && r->ntok == 0) {
        snprintf(err, errlen, "%s pattern '%s' has no letters or digits", kind == M_TOKEN ? "token" : "prefix", pattern);
        return false;
    }
    if (kind == M_PREFIX && (r->ntok != 1 || r->ptok[0].len != len)) {
        snprintf(err, errlen, "prefix pattern '%s' must be one token (letters only or digits only)", pattern);
        return false;
    }
    if (kind == M_REGEX) {
        int rc = regcomp(&r->re, pattern, REG_EXTENDED | REG_ICASE | REG_NOSUB);
        if (rc) {
            char why[128];
            regerror(rc, &r->re, why, sizeof why);
            r->kind = M_TOKEN; /* nothing to regfree */
            snprintf(err, errlen, "bad regex '%s': %s", pattern, why);
            return false;
        }
    }
    return true;
}

/* Append a rule; an earlier rule with the same kind and pattern is removed. */
static bool add_rule(kt_categorizer *c, int priority, match_kind kind, const char *pattern,
                     const char *category, char *err, size_t errlen)
{
    rule r = { .kind = M_TOKEN };
    long cat = category_index(c, category);
    if (cat < 0 || !compile_rule(&r, kind, pattern, err, errlen)) {
        if (cat < 0) snprintf(err, errlen, "out of memory");
        rule_free(&r);
        return false;
    }
    r.priority = priority;
    r.category = (uint32_t)cat;
    for (size_t i = 0; i < c->n; i++) {
        if (c->rules[i].kind != kind || strcmp(c->rules[i].pattern, pattern)) continue;
        rule_free(&c->rules[i]);
        memmove(&c->rules[i], &c->rules[i + 1], (c->n - i - 1) * sizeof r);
        c->n--;
        break;
    }
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 256;
        rule *nr = realloc(c->rules, cap * sizeof *nr);
        if (!nr) { rule_free(&r); snprintf(err, errlen, "out of memory"); return false; }
        c->rules = nr;
        c->cap = cap;
    }
    c->rules[c->n++] = r;
    return true;
}

static void clear_rules(kt_categorizer *c)
{
    for (size_t i = 0; i < c->n; i++) rule_free(&c->rules[i]);
    c->n = 0;
}

static char *next_word(char **p)
{
    char *s = *p;
    while (*s == ' ' || *s == '\t') s++;
    if (!*s) { *p = s; return NULL; }
    char *w = s;
    while (*s && *s != ' ' && *s != '\t') s++;
    if (*s) *s++ = '\0';
    *p = s;
    return w;
}

/* One line: "PRIORITY KIND PATTERN CATEGORY...", "reset", blank or # comment. */
static bool parse_line(kt_categorizer *c, char *line, char *err, size_t errlen)
{
    char *p = line, *first = next_word(&p);
    if (!first || first[0] == '#') return true;
    if (!strcmp(first, "reset") && !next_word(&p)) { clear_rules(c); return true; }
    char *end, *kind_w = next_word(&p), *pattern = next_word(&p);
    errno = 0;
    long prio = strtol(first, &end, 10);
    if (*end || errno || prio < -1000000 || prio > 1000000) {
        snprintf(err, errlen, "expected 'PRIORITY KIND PATTERN CATEGORY', priority '%s' is not an integer", first);
        return false;
    }
    match_kind kind;
    if (!kind_w || !kind_of_word(kind_w, &kind)) {
        snprintf(err, errlen, "kind must be token, prefix, substr or regex, got '%s'", kind_w ? kind_w : "");
        return false;
    }
    while (*p == ' ' || *p == '\t') p++;
    char *cat_end = p + strlen(p);
    while (cat_end > p && (cat_end[-1] == ' ' || cat_end[-1] == '\t' || cat_end[-1] == '\r')) *--cat_end = '\0';
    if (!pattern || !*p) {
        snprintf(err, errlen, "expected 'PRIORITY KIND PATTERN CATEGORY', missing %s", pattern ? "category" : "pattern");
        return false;
    }
    return add_rule(c, (int)prio, kind, pattern, p, err, errlen);
}

static kt_status add_rules(kt_categorizer *c, const char *text, char *err, size_t errlen)
{
    size_t lineno = 0;
    for (const char *s = text; *s;) {
        const char *nl = strchr(s, '\n');
        size_t len = nl ? (size_t)(nl - s) : strlen(s);
        char *line = strndup(s, len);
        if (!line) return KT_ENOMEM;
        char why[256] = "";
        bool ok = parse_line(c, line, why, sizeof why);
        free(line);
        lineno++;
        if (!ok) {
            snprintf(err, errlen, "line %zu: %s", lineno, why);
            rebuild_buckets(c);
            return strcmp(why, "out of memory") ? KT_EUSAGE : KT_ENOMEM;
        }
        s += len + (nl != NULL);
    }
    return rebuild_buckets(c) ? KT_OK : KT_ENOMEM;
}

kt_status kt_categorizer_add_rules(kt_categorizer *c, const char *text, kt_diags **diags)
{
    char err[300] = "";
    kt_diags_begin(diags);
    kt_status s = add_rules(c, text, err, sizeof err);
    if (s != KT_OK) kt_diags_fail(diags, NULL, "%s", err);
    return s;
}

kt_status kt_categorizer_load_rules(kt_categorizer *c, const char *path, kt_diags **diags)
{
    kt_diags_begin(diags);
    FILE *f = fopen(path, "rb");
    if (!f) {
        kt_diags_fail(diags, path, "cannot read %s: %s", path, strerror(errno));
        return KT_EINPUT;
    }
    char *text = NULL;
    size_t len = 0, cap = 0, got;
    do {
        if (len + 4096 + 1 > cap) {
            cap = cap ? cap * 2 : 8192;
            char *nt = realloc(text, cap);
            if (!nt) { free(text); fclose(f); return KT_ENOMEM; }
            text = nt;
        }
        got = fread(text + len, 1, 4096, f);
        len += got;
    } while (got > 0);
    bool bad = ferror(f);
    fclose(f);
    if (bad) {
        free(text);
        kt_diags_fail(diags, path, "cannot read %s", path);
        return KT_EINPUT;
    }
    text[len] = '\0';
    char why[300] = "";
    kt_status s = add_rules(c, text, why, sizeof why);
    if (s != KT_OK) kt_diags_fail(diags, path, "%s: %s", path, why);
    free(text);
    return s;
}

const char *kt_categorizer_builtin_rules(void) { return kt_builtin_category_rules; }

void kt_categorizer_free(kt_categorizer *c)
{
    if (!c) return;
    clear_rules(c);
    free(c->rules);
    for (size_t i = 0; i < c->ncats; i++) free(c->cats[i]);
    free(c->cats);
    for (int b = 0; b < NBUCKETS; b++) free(c->bucket[b]);
    free(c);
}

kt_status kt_categorizer_new(kt_categorizer **out)
{
    kt_categorizer *c = calloc(1, sizeof *c);
    *out = NULL;
    if (!c) return KT_ENOMEM;
    /* fixed indexes KT_CAT_OTHER, KT_CAT_MEMCPY, KT_CAT_MEMSET */
    if (category_index(c, "Other") < 0 || category_index(c, "Memcpy") < 0 ||
        category_index(c, "Memset") < 0) {
        kt_categorizer_free(c);
        return KT_ENOMEM;
    }
    kt_status s = kt_categorizer_add_rules(c, kt_builtin_category_rules, NULL);
    if (s != KT_OK) {
        kt_categorizer_free(c);
        return s == KT_EUSAGE ? KT_EANALYSIS : s;
    }
    *out = c;
    return KT_OK;
}
