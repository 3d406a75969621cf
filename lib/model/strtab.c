/*
 * strtab.c — the string table shared by every rank.
 *
 * Kernel and op names repeat millions of times; interning them once makes
 * every event 4 bytes per name and turns name comparisons across ranks into
 * integer comparisons.  Parser threads intern concurrently, so insertion is
 * under a mutex; the id→string directory is two-level with a fixed top level
 * so that strings, once interned, never move and can be read without a lock.
 */
#include "model.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define DIR_BITS 12                     /* ids per directory page          */
#define DIR_PAGE ((size_t)1 << DIR_BITS)
#define DIR_PAGES ((size_t)1 << 16)     /* up to 2^28 distinct strings (kt_arg keys hold KT_ARG_DYNAMIC + id) */
_Static_assert(KT_ARG_DYNAMIC + DIR_PAGE * DIR_PAGES <= ((size_t)1 << KT_ARG_KEY_BITS),
               "every string id fits a dynamic kt_arg key");
#define ARENA_BLOCK ((size_t)1 << 20)

typedef struct entry {
    uint32_t len;
    char s[]; /* NUL-terminated */
} entry;

struct kt_strtab {
    pthread_mutex_t lock;
    entry **dir[DIR_PAGES];
    size_t count;
    uint32_t *slots;     /* open addressing: id+1, 0 = empty */
    uint64_t *hashes;    /* hash per id, to rehash without re-reading */
    size_t nslots;
    char *arena;
    size_t arena_used, arena_cap;
    size_t bytes;
    char **blocks;
    size_t nblocks, cap_blocks;
};

/* 8 bytes a step (kernel names run to hundreds of bytes: a byte loop
 * was most of the cost of interning a new one), then a final mix.        */
static uint64_t hash_bytes(const char *s, size_t len)
{
    uint64_t h = (uint64_t)len * 0x9E3779B97F4A7C15ull, w;
    for (; len >= 8; s += 8, len -= 8) {
        memcpy(&w, s, 8);
        h = (h ^ w) * 0xbf58476d1ce4e5b9ull;
        h ^= h >> 29;
    }
    for (w = 0; len > 0; len--) w = w << 8 | (unsigned char)s[len - 1];
    h = (h ^ w) * 0xbf58476d1ce4e5b9ull;
    return h ^ (h >> 32);
}

kt_strtab *kt_strtab_new(void)
{
    kt_strtab *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->nslots = 1024;
    t->slots = calloc(t->nslots, sizeof *t->slots);
    if (!t->slots) { free(t); return NULL; }
    pthread_mutex_init(&t->lock, NULL);
    return t;
}

void kt_strtab_free(kt_strtab *t)
{
    if (!t) return;
    for (size_t i = 0; i < t->nblocks; i++) free(t->blocks[i]);
    free(t->blocks);
    for (size_t p = 0; p < DIR_PAGES && t->dir[p]; p++) free(t->dir[p]);
    free(t->slots);
    free(t->hashes);
    pthread_mutex_destroy(&t->lock);
    free(t);
}

static entry *entry_of(const kt_strtab *t, uint32_t id)
{
    return t->dir[id >> DIR_BITS][id & (DIR_PAGE - 1)];
}

static size_t probe(const kt_strtab *t, uint64_t h, const char *s, size_t len, bool *found)
{
    size_t mask = t->nslots - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
        uint32_t v = t->slots[i];
        if (!v) { *found = false; return i; }
        entry *e = entry_of(t, v - 1);
        if (t->hashes[v - 1] == h && e->len == len && memcmp(e->s, s, len) == 0) {
            *found = true;
            return i;
        }
    }
}

static bool grow_slots(kt_strtab *t)
{
    size_t n = t->nslots * 2;
    uint32_t *slots = calloc(n, sizeof *slots);
    if (!slots) return false;
    for (size_t id = 0; id < t->count; id++) {
        size_t i = t->hashes[id] & (n - 1);
        while (slots[i]) i = (i + 1) & (n - 1);
        slots[i] = (uint32_t)id + 1;
    }
    free(t->slots);
    t->slots = slots;
    t->nslots = n;
    return true;
}

static char *arena_alloc(kt_strtab *t, size_t n)
{
    if (t->arena_used + n > t->arena_cap) {
        size_t cap = n > ARENA_BLOCK ? n : ARENA_BLOCK;
        if (t->nblocks == t->cap_blocks) {
            size_t nc = t->cap_blocks ? t->cap_blocks * 2 : 64;
            char **b = realloc(t->blocks, nc * sizeof *b);
            if (!b) return NULL;
            t->blocks = b;
            t->cap_blocks = nc;
        }
        char *a = malloc(cap);
        if (!a) return NULL;
        t->blocks[t->nblocks++] = a;
        t->arena = a;
        t->arena_used = 0;
        t->arena_cap = cap;
    }
    char *p = t->arena + t->arena_used;
    t->arena_used += (n + 7) & ~(size_t)7;
    if (t->arena_used > t->arena_cap) t->arena_used = t->arena_cap;
    return p;
}

static uint32_t insert(kt_strtab *t, uint64_t h, const char *s, size_t len, size_t slot)
{
    size_t id = t->count;
    if (id >= DIR_PAGE * DIR_PAGES || len > UINT32_MAX) return KT_NONE;
    entry ***page = &t->dir[id >> DIR_BITS];
    if (!*page && !(*page = calloc(DIR_PAGE, sizeof **page))) return KT_NONE;
    if (id == 0 || (id >= 1024 && (id & (id - 1)) == 0)) { /* double at 2^k */
        size_t cap = id == 0 ? 1024 : id * 2;
        uint64_t *hs = realloc(t->hashes, cap * sizeof *hs);
        if (!hs) return KT_NONE;
        t->hashes = hs;
    }
    entry *e = (entry *)arena_alloc(t, sizeof(entry) + len + 1);
    if (!e) return KT_NONE;
    e->len = (uint32_t)len;
    memcpy(e->s, s, len);
    e->s[len] = '\0';
    (*page)[id & (DIR_PAGE - 1)] = e;
    t->hashes[id] = h;
    t->slots[slot] = (uint32_t)id + 1;
    __atomic_store_n(&t->count, id + 1, __ATOMIC_RELEASE); /* publishes the entry to lock-free readers */
    t->bytes += len + 1;
    return (uint32_t)id;
}

uint32_t kt_strtab_intern(kt_strtab *t, const char *s, size_t len)
{
    uint64_t h = hash_bytes(s, len);
    pthread_mutex_lock(&t->lock);
    if ((t->count + 1) * 2 > t->nslots && !grow_slots(t)) {
        pthread_mutex_unlock(&t->lock);
        return KT_NONE;
    }
    bool found;
    size_t slot = probe(t, h, s, len, &found);
    uint32_t id = found ? t->slots[slot] - 1 : insert(t, h, s, len, slot);
    pthread_mutex_unlock(&t->lock);
    return id;
}

uint32_t kt_strtab_find(const kt_strtab *t, const char *s, size_t len)
{
    kt_strtab *mt = (kt_strtab *)t; /* the lock is not part of the value */
    bool found;
    pthread_mutex_lock(&mt->lock);
    size_t slot = probe(t, hash_bytes(s, len), s, len, &found);
    uint32_t id = found ? t->slots[slot] - 1 : KT_NONE;
    pthread_mutex_unlock(&mt->lock);
    return id;
}

/* Readers take no lock while parser threads intern: the count is read
 * with acquire ordering, so an id below it has its entry in place.       */
static size_t published(const kt_strtab *t) { return __atomic_load_n(&t->count, __ATOMIC_ACQUIRE); }

const char *kt_strtab_get(const kt_strtab *t, uint32_t id)
{
    if (id == KT_NONE || id >= published(t)) return "";
    return entry_of(t, id)->s;
}

size_t kt_strtab_len(const kt_strtab *t, uint32_t id)
{
    if (id == KT_NONE || id >= published(t)) return 0;
    return entry_of(t, id)->len;
}

size_t kt_strtab_count(const kt_strtab *t) { return published(t); }
size_t kt_strtab_bytes(const kt_strtab *t) { return t->bytes; }
