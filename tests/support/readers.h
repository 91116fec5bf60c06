/* Record readers in the Criterion suites (header-only, test code only):
 * readers over memory, reading records one by one, checking attributes. */
#ifndef DDB_TU_READERS_H
#define DDB_TU_READERS_H

#include <criterion/criterion.h>
#include <string.h>

#include "ddbpipe/reader.h"

/* A source over text[0, len), named name in messages. */
static inline ddb_source *tu_memory_source(const char *text, size_t len, const char *name)
{
    ddb_source *src = NULL;
    ddb_error err;
    cr_assert_eq(ddb_source_new_memory(&src, text, len, name, &err), 0, "%s", err.message);
    return src;
}

/* The next record, which must be there. */
static inline ddb_record *tu_next_ok(ddb_reader *r)
{
    ddb_record *rec = NULL;
    ddb_error err;
    ddb_error_clear(&err);
    int rc = ddb_reader_next(r, &rec, &err);
    cr_assert_eq(rc, 0, "next: %d %s", rc, err.message);
    cr_assert_not_null(rec);
    return rec;
}

/* The reader is at its end. */
static inline void tu_expect_end(ddb_reader *r)
{
    ddb_record *rec = NULL;
    ddb_error err;
    ddb_error_clear(&err);
    cr_assert_eq(ddb_reader_next(r, &rec, &err), DDB_ITEROVER, "%s", err.message);
}

/* Attribute name of m is a value of type (S, N or B) holding want[0, len). */
static inline void tu_expect_bytes(const ddb_map *m, const char *name, ddb_type type,
                                   const char *want, size_t len)
{
    const ddb_value *v = ddb_map_getz(m, name);
    cr_assert_not_null(v, "attribute %s missing", name);
    cr_assert_eq(v->type, type, "attribute %s: type %s, want %s", name, ddb_type_name(v->type),
                 ddb_type_name(type));
    cr_assert_eq(v->u.s.len, len, "%s: %.*s", name, (int)v->u.s.len, v->u.s.ptr);
    cr_assert_eq(memcmp(v->u.s.ptr, want, len), 0, "%s: %.*s", name, (int)v->u.s.len, v->u.s.ptr);
}

static inline void tu_expect_s(const ddb_map *m, const char *name, const char *want)
{
    tu_expect_bytes(m, name, DDB_TYPE_S, want, strlen(want));
}

static inline void tu_expect_n(const ddb_map *m, const char *name, const char *want)
{
    tu_expect_bytes(m, name, DDB_TYPE_N, want, strlen(want));
}

#endif
