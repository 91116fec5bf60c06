/*
 * json_skeleton.c — DynamoDB JSON lines read by their skeleton.
 *
 * The lines of an export repeat themselves: one entity's items have the same
 * attribute names, in the same order, with the same types, between the same
 * punctuation; only the strings differ. A line the parser has read whole
 * (json_parse.c) whose values are all S or N teaches its skeleton: every byte
 * that is not inside a value's quotes. A later line made of the same bytes
 * around its strings is then read by comparing those stretches with memcmp
 * and lexing only the strings, with the very lexer the parser uses: what it
 * gives is what the parser would give, since the parser's path through a
 * line depends on nothing but its bytes. A line that differs anywhere (a name,
 * a type, a space, a string the lexer refuses) is left to the parser, which
 * also words any error.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json/json_internal.h"
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* Tests clear this to read every line with the parser alone. */
int ddb_json_skeletons = 1;

/* Skeleton ids, never given twice in a process (ddb_json_parser_names_id). */
static atomic_uint_fast64_t last_id;

#define SKEL_MAX_ATTRS 64
/* After this many lines, skeletons that match fewer than one line in four
 * are given up for the parser's life: a file of ever new shapes then pays
 * nothing for trying them. */
#define SKEL_TRIAL_LINES 4096

typedef struct skel_value {
    uint32_t lit_off, lit_len; /* the bytes before the value's opening quote */
    uint32_t name_off;         /* the name's offset in those bytes */
    uint32_t name_len;
    ddb_type type; /* S or N */
} skel_value;

struct json_skel {
    uint64_t id;
    int kind;
    uint32_t uses; /* lines read by it, halved now and then */
    size_t n;
    size_t fixed;         /* bytes of all literals: a shorter line cannot match */
    size_t item_off;      /* the item object's first byte */
    size_t item_end_back; /* bytes after its last */
    skel_value *v;        /* n, then the tail (v[n], its literal only); the literal bytes follow */
    char *lits;
};

void ddb_json_skel_free_all(ddb_json_parser *p)
{
    for (size_t i = 0; i < JSON_SKELS; i++) {
        free(p->skel[i]);
        p->skel[i] = NULL;
    }
}

/* How many steps (a literal and the value after it) a and b share. */
static unsigned short shared_steps(const json_skel *a, const json_skel *b)
{
    size_t s = 0;
    for (; s < a->n && s < b->n; s++)
        if (a->v[s].lit_len != b->v[s].lit_len ||
            memcmp(a->lits + a->v[s].lit_off, b->lits + b->v[s].lit_off, a->v[s].lit_len) != 0)
            break;
    return (unsigned short)(s < 65535 ? s : 65535);
}

/* Do the n bytes at s (avail of them readable) equal lit? Most literals
 * are a name and its punctuation, under sixteen bytes: one compare. */
static inline int lit_eq(const char *s, size_t avail, const char *lit, size_t n)
{
    if (avail < n)
        return 0;
#ifdef __SSE2__
    /* lit has room for 32 bytes (see learn); s, when avail says so */
    if (n <= 32 && avail >= 32) {
        __m128i a0 = _mm_loadu_si128((const __m128i *)(const void *)s);
        __m128i b0 = _mm_loadu_si128((const __m128i *)(const void *)lit);
        __m128i a1 = _mm_loadu_si128((const __m128i *)(const void *)(s + 16));
        __m128i b1 = _mm_loadu_si128((const __m128i *)(const void *)(lit + 16));
        uint32_t eq = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(a0, b0)) |
                      (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(a1, b1)) << 16;
        return ((~eq) & (uint32_t)((UINT64_C(1) << n) - 1)) == 0;
    }
#endif
    return memcmp(s, lit, n) == 0;
}

/* Does the step-th literal of k (its tail when step == n) come next in c? */
static inline int lit_here(const json_skel *k, size_t step, const json_ctx *c)
{
    return lit_eq(c->s, (size_t)(c->end - c->s), k->lits + k->v[step].lit_off, k->v[step].lit_len);
}

int ddb_json_skel_read(ddb_json_parser *p, int kind, ddb_map *item, const char *text, size_t len,
                       size_t *used, ddb_arena *a)
{
    ddb_attr *attrs;
    size_t room, item_off = 0;
    int mixed = 0; /* names of more than one skeleton */
    json_ctx c;
    size_t cur = p->skel_last, step = 0;
    const json_skel *k;

    if (!ddb_json_skeletons || p->skel_off)
        return 0;
    if (p->skel[cur] == NULL || p->skel[cur]->kind != kind || len < p->skel[cur]->fixed) {
        for (cur = 0; cur < JSON_SKELS; cur++)
            if (p->skel[cur] != NULL && p->skel[cur]->kind == kind && len >= p->skel[cur]->fixed)
                break;
        if (cur == JSON_SKELS)
            goto miss;
    }
    ddb_json_lex_init(&c, p, text, len, a, NULL);
    /* in the arena at once: a line that turns out not to fit (rare) leaves
     * its few bytes there until the arena is reset */
    room = p->skel[cur]->n;
    if ((attrs = ddb_arena_alloc(a, room * sizeof(ddb_attr))) == NULL)
        return DDB_ENOMEM;
    /* Step by step along the skeleton that read the last line. Where its
     * next literal is not there, another's may be: before every literal but
     * the first, the parser stands in the same place (just past the string
     * of a top-level S or N value of an item of this kind), so literals of
     * skeletons of one kind can follow each other, each with its type. */
    for (k = p->skel[cur];; step++) {
        if (!lit_here(k, step, &c)) {
            size_t j;
            for (j = 0; j < JSON_SKELS; j++)
                if (j != cur && p->skel[j] != NULL && p->skel[j]->kind == kind &&
                    step <= p->skel[j]->n && lit_here(p->skel[j], step, &c))
                    break;
            if (j == JSON_SKELS)
                goto miss;
            /* the names so far are j's too where its literals are the same */
            mixed |= p->shared[cur][j] < step;
            k = p->skel[cur = j];
            if (k->n > room) {
                ddb_attr *more = ddb_arena_alloc(a, k->n * sizeof(ddb_attr));
                if (more == NULL)
                    return DDB_ENOMEM;
                memcpy(more, attrs, step * sizeof(ddb_attr));
                attrs = more;
                room = k->n;
            }
        }
        if (step == 0) /* where the item begins is in the first literal */
            item_off = k->item_off;
        if (step == k->n) {
            /* the tail closes the item: in a longer text, what follows is
             * someone else's */
            if (used == NULL && (size_t)(c.end - c.s) != k->v[step].lit_len)
                goto miss;
            len = (size_t)(c.s - text) + k->v[step].lit_len;
            break;
        }
        attrs[step].name.ptr = c.s + k->v[step].name_off;
        attrs[step].name.len = k->v[step].name_len;
        c.s += k->v[step].lit_len;
        memset(&attrs[step].value, 0, sizeof(attrs[step].value));
        attrs[step].value.type = k->v[step].type;
        if (ddb_json_lex_string(&c, &attrs[step].value.u.s) != 0)
            goto miss; /* the parser says what is wrong with it */
    }
    item->attrs = attrs;
    item->count = k->n;
    p->item_text.ptr = text + item_off;
    p->item_text.len = len - k->item_end_back - item_off;
    if (used != NULL) /* a line's tail may end in white space after the '}' */
        *used = len - k->item_end_back;
    p->skel_hits++;
    p->skel_last = cur;
    /* the skeleton's names; a line of several skeletons' has no id */
    p->names_id = mixed ? 0 : k->id;
    if (++p->skel[cur]->uses == UINT32_MAX / 2 || (p->skel_hits & 4095) == 0)
        for (size_t i = 0; i < JSON_SKELS; i++)
            if (p->skel[i] != NULL) /* what was common long ago counts less */
                p->skel[i]->uses /= 2;
    return 1;
miss:
    if (++p->skel_misses + p->skel_hits >= SKEL_TRIAL_LINES && p->skel_hits * 3 < p->skel_misses) {
        p->skel_off = 1;
        ddb_json_skel_free_all(p);
    }
    return 0;
}

/* Where s lies in text[0, len), or -1 when it is not there (a string the
 * lexer decoded into the arena, with escapes). */
static ptrdiff_t offset_in(const char *s, const char *text, size_t len)
{
    uintptr_t b = (uintptr_t)text, x = (uintptr_t)s;
    return x >= b && x <= b + len ? (ptrdiff_t)(x - b) : -1;
}

void ddb_json_skel_learn(ddb_json_parser *p, int kind, const ddb_map *item, const char *text,
                         size_t len)
{
    size_t n = item->count, prev = 0, lit_bytes = 0, strings = 0;
    ptrdiff_t item_at = offset_in(p->item_text.ptr, text, len);
    json_skel *k;
    char *lits;
    size_t slot;

    if (!ddb_json_skeletons || p->skel_off || n == 0 || n > SKEL_MAX_ATTRS || item_at < 0 ||
        len > UINT32_MAX)
        return;
    for (size_t i = 0; i < n; i++) {
        const ddb_attr *at = &item->attrs[i];
        ptrdiff_t name = offset_in(at->name.ptr, text, len);
        ptrdiff_t val = offset_in(at->value.u.s.ptr, text, len);
        if ((at->value.type != DDB_TYPE_S && at->value.type != DDB_TYPE_N) || name < 0 || val < 1 ||
            (size_t)name < prev || (size_t)name + at->name.len >= (size_t)val ||
            text[val - 1] != '"' || (size_t)val + at->value.u.s.len >= len ||
            text[val + (ptrdiff_t)at->value.u.s.len] != '"')
            return;
        prev = (size_t)val + at->value.u.s.len + 1;
        strings += at->value.u.s.len + 2;
    }
    /* the literals only (a long string costs nothing), and 32 bytes that
     * lit_eq may read past the last */
    if ((k = calloc(1, sizeof(*k) + (n + 1) * sizeof(skel_value) + (len - strings) + 32)) == NULL)
        return; /* the parser goes on without it */
    k->v = (skel_value *)(k + 1);
    k->lits = lits = (char *)(k->v + n + 1);
    k->id = atomic_fetch_add(&last_id, 1) + 1;
    k->kind = kind;
    k->n = n;
    prev = 0;
    for (size_t i = 0; i < n; i++) {
        const ddb_attr *at = &item->attrs[i];
        size_t val = (size_t)offset_in(at->value.u.s.ptr, text, len), lit_len = val - prev;
        k->v[i].lit_off = (uint32_t)lit_bytes;
        k->v[i].lit_len = (uint32_t)(lit_len - 1); /* up to the opening quote */
        k->v[i].name_off = (uint32_t)((size_t)offset_in(at->name.ptr, text, len) - prev);
        k->v[i].name_len = (uint32_t)at->name.len;
        k->v[i].type = at->value.type;
        memcpy(lits + lit_bytes, text + prev, lit_len - 1);
        lit_bytes += lit_len - 1;
        prev = val + at->value.u.s.len + 1; /* past the closing quote */
    }
    k->v[n].lit_off = (uint32_t)lit_bytes;
    k->v[n].lit_len = (uint32_t)(len - prev);
    memcpy(lits + lit_bytes, text + prev, len - prev);
    k->fixed = lit_bytes + (len - prev) + 2 * n;
    k->item_off = (size_t)item_at;
    k->item_end_back = len - ((size_t)item_at + p->item_text.len);
    /* an empty slot, else the one that read the fewest lines lately: rare
     * shapes take each other's place, the common ones stay */
    slot = 0;
    for (size_t i = 0; i < JSON_SKELS; i++) {
        if (p->skel[i] == NULL) {
            slot = i;
            break;
        }
        if (p->skel[i]->uses < p->skel[slot]->uses)
            slot = i;
    }
    k->uses = 1;
    free(p->skel[slot]);
    p->skel[slot] = k;
    for (size_t j = 0; j < JSON_SKELS; j++)
        p->shared[slot][j] = p->shared[j][slot] = p->skel[j] ? shared_steps(k, p->skel[j]) : 0;
    p->skel_last = slot;
}
