/*
 * pattern_limits.c — the bounds of a mapping's regular expressions
 * (pattern_limits.h), checked on the text: a scanner that knows just enough
 * of POSIX ERE (groups, brackets, escapes, quantifiers, '|') to measure it.
 */
#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "transform/pattern_limits.h"

/* One open group: its atoms so far, written out, and the last atom's share. */
typedef struct group {
    size_t copies, last;
} group;

typedef struct scan {
    const char *s;
    size_t i;
    group g[DDB_PATTERN_MAX_DEPTH + 1];
    int depth;
    size_t alts;
    char *why;
    size_t why_cap;
} scan;

__attribute__((format(printf, 2, 3))) static int too_much(scan *sc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(sc->why, sc->why_cap, fmt, ap);
    va_end(ap);
    return -1;
}

/* Skips a bracket expression from just past its '['; a ']' first is a member. */
static void skip_bracket(scan *sc)
{
    const char *s = sc->s;
    size_t i = sc->i;
    if (s[i] == '^')
        i++;
    if (s[i] == ']')
        i++;
    while (s[i] != '\0' && s[i] != ']') {
        if (s[i] == '[' && (s[i + 1] == ':' || s[i + 1] == '.' || s[i + 1] == '=')) {
            char kind = s[i + 1]; /* [:alpha:] [.a.] [=a=]: a ']' inside ends nothing */
            for (i += 2; s[i] != '\0' && !(s[i] == kind && s[i + 1] == ']'); i++)
                ;
            if (s[i] == '\0')
                break;
            i += 2;
        } else {
            i++;
        }
    }
    sc->i = s[i] == ']' ? i + 1 : i;
}

/* A count of {n,m} from sc->i; counts past the limit stop growing there. */
static size_t read_count(scan *sc)
{
    size_t v = 0;
    while (sc->s[sc->i] >= '0' && sc->s[sc->i] <= '9') {
        if (v <= DDB_PATTERN_MAX_REPEAT)
            v = v * 10 + (size_t)(sc->s[sc->i] - '0');
        sc->i++;
    }
    return v;
}

/*
 * The copies a quantifier at sc->i makes of the atom before it (regcomp
 * writes a{2,5} out as aa(a(a(a)?)?)?, a{2,} as aaa*, a+ as aa*), past it;
 * 0 when there is none, (size_t)-1 when a count passes its limit.
 */
static size_t quantifier(scan *sc)
{
    size_t min, max;
    char c = sc->s[sc->i];
    if (c == '*' || c == '?') {
        sc->i++;
        return 1;
    }
    if (c == '+') {
        sc->i++;
        return 2;
    }
    if (c != '{' || sc->s[sc->i + 1] < '0' || sc->s[sc->i + 1] > '9')
        return 0;
    sc->i++;
    min = max = read_count(sc);
    if (sc->s[sc->i] == ',' && sc->s[++sc->i] >= '0' && sc->s[sc->i] <= '9')
        max = read_count(sc);
    else if (sc->s[sc->i - 1] == ',')
        max = min + 1; /* {n,}: n copies and a starred one */
    if (sc->s[sc->i] == '}')
        sc->i++;
    if (min > DDB_PATTERN_MAX_REPEAT || max > DDB_PATTERN_MAX_REPEAT + (max == min + 1))
        return (size_t)-1;
    return max > 0 ? max : 1;
}

/* Adds an atom of n copies to the innermost group. */
static void atom(scan *sc, size_t n)
{
    group *g = &sc->g[sc->depth];
    g->copies += n;
    g->last = n;
}

/* Reads one token: an atom, a group's start or end, '|' or quantifiers. */
static int step(scan *sc)
{
    group *g = &sc->g[sc->depth];
    size_t times;
    char c = sc->s[sc->i++];
    if (c == '(') {
        if (sc->depth == DDB_PATTERN_MAX_DEPTH)
            return too_much(sc, "groups nest deeper than %d", DDB_PATTERN_MAX_DEPTH);
        sc->g[++sc->depth] = (group){0, 0};
        return 0;
    }
    if (c == ')' && sc->depth > 0) {
        sc->depth--;
        atom(sc, g->copies + 1);
    } else if (c == '|') {
        if (++sc->alts > DDB_PATTERN_MAX_ALTS)
            return too_much(sc, "more than %d alternatives ('|')", DDB_PATTERN_MAX_ALTS);
        g->copies++;
        g->last = 0;
        return 0;
    } else if (c == '[') {
        skip_bracket(sc);
        atom(sc, 1);
    } else {
        if (c == '\\' && sc->s[sc->i] != '\0')
            sc->i++;
        atom(sc, 1);
    }
    g = &sc->g[sc->depth];
    while ((times = quantifier(sc)) != 0) {
        if (times == (size_t)-1)
            return too_much(sc, "a repetition count over %d", DDB_PATTERN_MAX_REPEAT);
        /* last <= copies <= the limit, times <= the limit + 1: no overflow */
        g->copies += g->last * (times - 1);
        g->last *= times;
        if (g->copies > DDB_PATTERN_MAX_COPIES)
            break;
    }
    return 0;
}

int ddb_pattern_check(const char *re, char *why, size_t why_cap)
{
    scan sc = {.s = re, .why = why, .why_cap = why_cap};
    size_t len = strlen(re);

    assert(why != NULL && why_cap > 0);
    if (len > DDB_PATTERN_MAX_LEN)
        return too_much(&sc, "longer than %d bytes", DDB_PATTERN_MAX_LEN);
    while (sc.s[sc.i] != '\0') {
        if (step(&sc) != 0)
            return -1;
        /* an open group's atoms count for their group once it closes; the
         * total written out so far is the sum over the open groups */
        size_t total = 0;
        for (int d = 0; d <= sc.depth; d++)
            total += sc.g[d].copies;
        if (total > DDB_PATTERN_MAX_COPIES)
            return too_much(&sc,
                            "more than %d atoms once its repetitions are written out "
                            "(nested repetitions multiply)",
                            DDB_PATTERN_MAX_COPIES);
    }
    return 0;
}
