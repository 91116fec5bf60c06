/*
 * name_set.h (private header of core/) — a set of names, each at the position it was added
 * in, found by an open-addressing table on a hash of every byte: the columns of the
 * CSV writers (a mapping-less file's union of attribute names, a writer's
 * given columns), looked up once per attribute of every record.
 */
#ifndef DDBPIPE_NAME_SET_H
#define DDBPIPE_NAME_SET_H

#include <stddef.h>
#include <stdint.h>

typedef struct ddb_name {
    char *name; /* a NUL-terminated copy */
    size_t len;
} ddb_name;

typedef struct ddb_name_set {
    ddb_name *at; /* the names, in the order added */
    size_t n, cap;
    uint32_t *slots; /* position + 1; 0: empty */
    size_t n_slots;  /* a power of two, or 0 */
} ddb_name_set;

/* The position of name[0, len), or -1 when it is not in the set. */
ptrdiff_t ddb_name_set_find(const ddb_name_set *s, const char *name, size_t len);

/* Adds a copy of name[0, len) unless it is there; *pos gets its position.
 * Returns 1 when added, 0 when it was there, DDB_ENOMEM (the set unchanged). */
int ddb_name_set_add(ddb_name_set *s, const char *name, size_t len, size_t *pos);

/* Frees what the set holds; s may be zeroed (an empty set). */
void ddb_name_set_dispose(ddb_name_set *s);

#endif
