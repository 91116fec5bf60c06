/*
 * Strings from a regular expression: a small parser for the part of POSIX
 * ERE that test data needs, counting (how many strings), enumeration (the
 * k-th string, for keys that must not repeat) and random choice. Sizes
 * saturate at 2^64 - 1 rather than overflow.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/array.h"
#include "ddbpipe/error.h"
#include "gen/gen_internal.h"
#include "transform/pattern_limits.h"

/* Unbounded repetitions (* + {n,}) stop this many past their minimum. */
#define OPEN_REPEAT 8
/* The longest string a pattern may make: nested repetitions multiply ((a*)* up to 8 * 8), and
 * past DynamoDB's 400 KB item a value is of no use. */
#define LONGEST 100000

enum { P_CLASS, P_SEQ, P_ALT, P_REP };

typedef struct pnode {
    int kind;
    uint64_t size;
    uint64_t longest;         /* bytes of its longest string, saturating */
    unsigned char chars[256]; /* P_CLASS: the bytes, ascending */
    int nchars;
    struct pnode **kids; /* P_SEQ, P_ALT; P_REP has one */
    size_t nkids, kids_cap;
    unsigned min, max; /* P_REP */
} pnode;

struct gen_pattern {
    pnode *root;
};

typedef struct parser {
    const char *s;
    size_t i, n;
    char *why;
    size_t why_cap;
    int failed, oom;
} parser;

static uint64_t add_sat(uint64_t a, uint64_t b)
{
    return a > GEN_UNBOUNDED - b ? GEN_UNBOUNDED : a + b;
}

static uint64_t mul_sat(uint64_t a, uint64_t b)
{
    if (a == 0 || b == 0)
        return 0;
    return a > GEN_UNBOUNDED / b ? GEN_UNBOUNDED : a * b;
}

static void node_free(pnode *n)
{
    if (n == NULL)
        return;
    for (size_t i = 0; i < n->nkids; i++)
        node_free(n->kids[i]);
    free(n->kids);
    free(n);
}

__attribute__((format(printf, 2, 3))) static pnode *fail(parser *p, const char *fmt, ...)
{
    va_list ap;
    if (!p->failed) {
        va_start(ap, fmt);
        vsnprintf(p->why, p->why_cap, fmt, ap);
        va_end(ap);
    }
    p->failed = 1;
    return NULL;
}

static pnode *new_node(parser *p, int kind)
{
    pnode *n = calloc(1, sizeof(*n));
    if (n == NULL) {
        p->oom = 1;
        return fail(p, "out of memory");
    }
    n->kind = kind;
    return n;
}

static int add_kid(parser *p, pnode *n, pnode *kid)
{
    pnode **k = ddb_array_reserve(n->kids, n->nkids, &n->kids_cap, sizeof(*k), 4);
    if (k == NULL) {
        p->oom = 1;
        fail(p, "out of memory");
        node_free(kid);
        return -1;
    }
    n->kids = k;
    n->kids[n->nkids++] = kid;
    return 0;
}

/* A class from a 256-entry membership table. */
static pnode *class_node(parser *p, const unsigned char set[256])
{
    pnode *n = new_node(p, P_CLASS);
    if (n == NULL)
        return NULL;
    for (int c = 0; c < 256; c++)
        if (set[c])
            n->chars[n->nchars++] = (unsigned char)c;
    n->size = (uint64_t)n->nchars;
    if (n->nchars == 0) {
        node_free(n);
        return fail(p, "a bracket expression that matches no character");
    }
    return n;
}

static void set_range(unsigned char set[256], int lo, int hi)
{
    for (int c = lo; c <= hi; c++)
        set[c] = 1;
}

/* What "." and negated brackets draw from: letters, digits and a few
 * punctuation marks, so no template separator (#, |, :...) appears by chance. */
static void safe_chars(unsigned char set[256])
{
    set_range(set, 'a', 'z');
    set_range(set, 'A', 'Z');
    set_range(set, '0', '9');
    set['-'] = set['_'] = set['.'] = 1;
}

static int posix_class(parser *p, unsigned char set[256])
{
    static const struct {
        const char *name;
        const char *ranges; /* pairs of lo,hi */
    } classes[] = {
        {"digit", "09"},       {"alpha", "azAZ"},    {"alnum", "azAZ09"}, {"upper", "AZ"},
        {"lower", "az"},       {"xdigit", "09afAF"}, {"space", "  "},     {"blank", "  "},
        {"punct", "!/:@[`{~"}, {"word", "azAZ09__"},
    };
    const char *end = strstr(p->s + p->i, ":]");
    size_t len;
    if (end == NULL)
        return fail(p, "unclosed [: in a bracket expression"), -1;
    len = (size_t)(end - (p->s + p->i));
    for (size_t k = 0; k < sizeof(classes) / sizeof(classes[0]); k++) {
        if (strlen(classes[k].name) == len && memcmp(classes[k].name, p->s + p->i, len) == 0) {
            for (const char *r = classes[k].ranges; r[0] && r[1]; r += 2)
                set_range(set, (unsigned char)r[0], (unsigned char)r[1]);
            p->i += len + 2;
            return 0;
        }
    }
    return fail(p, "[:%.*s:] is not a class values can be made for", (int)len, p->s + p->i), -1;
}

static pnode *parse_bracket(parser *p)
{
    unsigned char set[256] = {0}, safe[256] = {0};
    int negate = 0, first = 1;
    if (p->i < p->n && p->s[p->i] == '^') {
        negate = 1;
        p->i++;
    }
    for (;;) {
        unsigned char c;
        if (p->i >= p->n)
            return fail(p, "unclosed bracket expression");
        c = (unsigned char)p->s[p->i];
        if (c == ']' && !first) {
            p->i++;
            break;
        }
        first = 0;
        if (c == '[' && p->i + 1 < p->n && p->s[p->i + 1] == ':') {
            p->i += 2;
            if (posix_class(p, set) != 0)
                return NULL;
            continue;
        }
        if (c == '[' && p->i + 1 < p->n && (p->s[p->i + 1] == '.' || p->s[p->i + 1] == '='))
            return fail(p, "collating elements and equivalence classes are not supported");
        if (c >= 0x80)
            return fail(p, "a multi-byte character in a bracket expression is not supported");
        p->i++;
        if (p->i + 1 < p->n && p->s[p->i] == '-' && p->s[p->i + 1] != ']') {
            unsigned char hi = (unsigned char)p->s[p->i + 1];
            if (hi >= 0x80 || hi < c)
                return fail(p, "bad range %c-%c in a bracket expression", c, hi);
            set_range(set, c, hi);
            p->i += 2;
        } else {
            set[c] = 1;
        }
    }
    if (negate) {
        safe_chars(safe);
        for (int c = 0; c < 256; c++)
            set[c] = safe[c] && !set[c];
    }
    return class_node(p, set);
}

static pnode *literal(parser *p, unsigned char c)
{
    unsigned char set[256] = {0};
    set[c] = 1;
    return class_node(p, set);
}

static pnode *parse_alt(parser *p);

static pnode *parse_atom(parser *p)
{
    unsigned char c = (unsigned char)p->s[p->i++];
    unsigned char set[256] = {0};
    pnode *n;
    switch (c) {
    case '(':
        if ((n = parse_alt(p)) == NULL)
            return NULL;
        if (p->i >= p->n || p->s[p->i] != ')') {
            node_free(n);
            return fail(p, "unclosed group");
        }
        p->i++;
        return n;
    case '[':
        return parse_bracket(p);
    case '.':
        safe_chars(set);
        set['-'] = set['_'] = set['.'] = 0;
        return class_node(p, set);
    case '\\':
        if (p->i >= p->n)
            return fail(p, "a trailing backslash");
        c = (unsigned char)p->s[p->i++];
        if (c == 'w') {
            safe_chars(set);
            set['-'] = set['.'] = 0;
            return class_node(p, set);
        }
        if (c == 's')
            return literal(p, ' ');
        if ((c >= '1' && c <= '9') || strchr("bBWS<>`'", c))
            return fail(p, "\\%c is not supported", c);
        return literal(p, c);
    case '*':
    case '+':
    case '?':
        return fail(p, "'%c' with nothing to repeat", c);
    case '^':
    case '$':
        return fail(p, "'%c' is only supported at the very start or end", c);
    case '{':
        if (p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9')
            return fail(p, "'{' with nothing to repeat");
        return literal(p, c);
    default:
        return literal(p, c);
    }
}

static int parse_count(parser *p, unsigned *out)
{
    unsigned long v = 0;
    size_t start = p->i;
    while (p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9' && v < 100000)
        v = v * 10 + (unsigned long)(p->s[p->i++] - '0');
    *out = (unsigned)v;
    return p->i > start;
}

/* Applies quantifiers that follow an atom. */
static pnode *quantify(parser *p, pnode *atom)
{
    while (p->i < p->n && atom != NULL) {
        char c = p->s[p->i];
        unsigned min, max;
        pnode *rep;
        if (c == '*' || c == '+' || c == '?') {
            p->i++;
            min = c == '+' ? 1 : 0;
            max = c == '?' ? 1 : min + OPEN_REPEAT;
        } else if (c == '{' && p->i + 1 < p->n && p->s[p->i + 1] >= '0' && p->s[p->i + 1] <= '9') {
            p->i++;
            parse_count(p, &min);
            max = min;
            if (p->i < p->n && p->s[p->i] == ',') {
                p->i++;
                if (!parse_count(p, &max))
                    max = min + OPEN_REPEAT;
            }
            if (p->i >= p->n || p->s[p->i] != '}' || max < min || max > 1000) {
                node_free(atom);
                return fail(p, "bad repetition {...}");
            }
            p->i++;
        } else {
            break;
        }
        if ((rep = new_node(p, P_REP)) == NULL || add_kid(p, rep, atom) != 0) {
            node_free(rep);
            return NULL;
        }
        rep->min = min;
        rep->max = max;
        atom = rep;
    }
    return atom;
}

static pnode *parse_seq(parser *p)
{
    pnode *seq = new_node(p, P_SEQ);
    if (seq == NULL)
        return NULL;
    while (p->i < p->n && p->s[p->i] != '|' && p->s[p->i] != ')') {
        pnode *a;
        if (p->s[p->i] == '$' && p->i + 1 == p->n) {
            p->i++;
            break;
        }
        if ((a = quantify(p, parse_atom(p))) == NULL || add_kid(p, seq, a) != 0) {
            node_free(seq);
            return NULL;
        }
    }
    return seq;
}

static pnode *parse_alt(parser *p)
{
    pnode *alt = new_node(p, P_ALT), *s;
    if (alt == NULL)
        return NULL;
    for (;;) {
        if ((s = parse_seq(p)) == NULL || add_kid(p, alt, s) != 0) {
            node_free(alt);
            return NULL;
        }
        if (p->i >= p->n || p->s[p->i] != '|')
            return alt;
        p->i++;
    }
}

/* Sets size and longest of n and the nodes under it; returns size. */
static uint64_t count(pnode *n)
{
    switch (n->kind) {
    case P_CLASS:
        n->longest = 1;
        return n->size;
    case P_SEQ:
        n->size = 1;
        n->longest = 0;
        for (size_t i = 0; i < n->nkids; i++) {
            n->size = mul_sat(n->size, count(n->kids[i]));
            n->longest = add_sat(n->longest, n->kids[i]->longest);
        }
        return n->size;
    case P_ALT:
        n->size = 0;
        n->longest = 0;
        for (size_t i = 0; i < n->nkids; i++) {
            n->size = add_sat(n->size, count(n->kids[i]));
            if (n->kids[i]->longest > n->longest)
                n->longest = n->kids[i]->longest;
        }
        return n->size;
    default: {
        uint64_t one = count(n->kids[0]), pw = 1;
        n->longest = mul_sat(n->kids[0]->longest, n->max);
        n->size = 0;
        for (unsigned l = 0; l <= n->max; l++) {
            if (l >= n->min)
                n->size = add_sat(n->size, pw);
            pw = mul_sat(pw, one);
        }
        return n->size;
    }
    }
}

int gen_pattern_compile(gen_pattern **out, const char *re, char *why, size_t why_cap)
{
    parser p = {re, 0, strlen(re), why, why_cap, 0, 0};
    gen_pattern *g;
    pnode *root;
    *out = NULL;
    /* the parser recurses once per group: its depth is bounded here */
    if (ddb_pattern_check(re, why, why_cap) != 0)
        return DDB_EUSAGE;
    if (p.n > 0 && re[0] == '^')
        p.i++;
    root = parse_alt(&p);
    if (root != NULL && p.i < p.n) {
        node_free(root);
        root = fail(&p, "unbalanced ')'");
    }
    if (root == NULL)
        return p.oom ? DDB_ENOMEM : DDB_EUSAGE;
    if (count(root) == 0) {
        node_free(root);
        snprintf(why, why_cap, "the expression matches nothing");
        return DDB_EUSAGE;
    }
    if (root->longest > LONGEST) {
        node_free(root);
        snprintf(why, why_cap,
                 "its strings can be longer than %d bytes (nested repetitions "
                 "multiply; '*' and '+' make up to %d more)",
                 LONGEST, OPEN_REPEAT);
        return DDB_EUSAGE;
    }
    if ((g = malloc(sizeof(*g))) == NULL) {
        node_free(root);
        return DDB_ENOMEM;
    }
    g->root = root;
    *out = g;
    return 0;
}

void gen_pattern_free(gen_pattern *p)
{
    if (p == NULL)
        return;
    node_free(p->root);
    free(p);
}

uint64_t gen_pattern_size(const gen_pattern *p)
{
    return p->root->size;
}

/* (size - 0) of a saturated node is treated as the whole 64-bit range:
 * k is always below it. */
static void nth(const pnode *n, uint64_t k, ddb_buf *out)
{
    switch (n->kind) {
    case P_CLASS:
        ddb_buf_putc(out, (char)n->chars[k % (uint64_t)n->nchars]);
        return;
    case P_SEQ:
        for (size_t i = 0; i < n->nkids; i++) {
            uint64_t s = n->kids[i]->size;
            nth(n->kids[i], s == GEN_UNBOUNDED ? k : k % s, out);
            k = s == GEN_UNBOUNDED ? 0 : k / s;
        }
        return;
    case P_ALT:
        for (size_t i = 0; i < n->nkids; i++) {
            uint64_t s = n->kids[i]->size;
            if (k < s || i + 1 == n->nkids) {
                nth(n->kids[i], k, out);
                return;
            }
            k -= s;
        }
        return;
    default: {
        uint64_t one = n->kids[0]->size, pw = 1;
        for (unsigned l = 0; l <= n->max; l++) {
            if (l >= n->min) {
                if (k < pw || l == n->max) {
                    for (unsigned j = 0; j < l; j++) {
                        nth(n->kids[0], one == GEN_UNBOUNDED ? k : k % one, out);
                        k = one == GEN_UNBOUNDED ? 0 : k / one;
                    }
                    return;
                }
                k -= pw;
            }
            pw = mul_sat(pw, one);
        }
        return;
    }
    }
}

int gen_pattern_nth(const gen_pattern *p, uint64_t k, ddb_buf *out)
{
    nth(p->root, p->root->size == GEN_UNBOUNDED ? k : k % p->root->size, out);
    return out->oom ? DDB_ENOMEM : 0;
}

static void rnd(const pnode *n, ddb_rng *r, ddb_buf *out)
{
    switch (n->kind) {
    case P_CLASS:
        ddb_buf_putc(out, (char)n->chars[ddb_rng_below(r, (uint64_t)n->nchars)]);
        return;
    case P_SEQ:
        for (size_t i = 0; i < n->nkids; i++)
            rnd(n->kids[i], r, out);
        return;
    case P_ALT: {
        /* Weighted by size, so [0-9]|1[0-2] gives each of its strings alike. */
        double total = 0, x;
        for (size_t i = 0; i < n->nkids; i++)
            total += (double)n->kids[i]->size;
        x = ddb_rng_unit(r) * total;
        for (size_t i = 0; i < n->nkids; i++) {
            x -= (double)n->kids[i]->size;
            if (x < 0 || i + 1 == n->nkids) {
                rnd(n->kids[i], r, out);
                return;
            }
        }
        return;
    }
    default: {
        unsigned l = n->min + (unsigned)ddb_rng_below(r, (uint64_t)(n->max - n->min) + 1);
        for (unsigned j = 0; j < l; j++)
            rnd(n->kids[0], r, out);
        return;
    }
    }
}

int gen_pattern_random(const gen_pattern *p, ddb_rng *r, ddb_buf *out)
{
    rnd(p->root, r, out);
    return out->oom ? DDB_ENOMEM : 0;
}
