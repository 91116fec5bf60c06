/*
 * awsini.h (private header of aws/) — the AWS CLI's INI files (config and credentials) for
 * awsconfig.c: loading, parsing (the syntax is described in awsconfig.h) and
 * looking up a profile's keys. Values may be secrets: they are wiped when
 * freed.
 */
#ifndef DDBPIPE_AWSINI_H
#define DDBPIPE_AWSINI_H

#include <stddef.h>

#include "ddbpipe/error.h"

typedef struct ddb_ini_section {
    char *name;
    unsigned line;
} ddb_ini_section;

typedef struct ddb_ini_entry {
    size_t section;
    char *key; /* lower-cased; "parent.sub" for a sub-key */
    char *value;
    unsigned line;
} ddb_ini_entry;

typedef struct ddb_ini_file {
    char *path; /* NULL when it could not be located (no HOME) */
    int present;
    ddb_ini_section *sec;
    size_t nsec, sec_cap;
    ddb_ini_entry *e;
    size_t n, e_cap;
} ddb_ini_file;

/*
 * Reads and parses f->path (set by the caller, owned by f) into f. A NULL
 * path or a missing file leaves f empty with present = 0 and returns 0.
 * Returns DDB_EIO (unreadable), DDB_ETOOBIG (over 1 MiB), DDB_EINVAL (a NUL
 * byte or a syntax error, naming the file and line) or DDB_ENOMEM. The read
 * buffer is wiped before it is freed.
 */
int ddb_ini_load(ddb_ini_file *f, ddb_error *err);

/* Frees everything f holds (path included), wiping the values. */
void ddb_ini_dispose(ddb_ini_file *f);

/*
 * Section lookups. config = 1 for the config file, whose sections are named
 * [default] and [KIND NAME] (kind "profile" or "services"); config = 0 for
 * the credentials file, whose sections are [NAME] whatever the kind.
 */
int ddb_ini_has(const ddb_ini_file *f, int config, const char *kind, const char *name);

/* The value of key (lower case) in that section, or NULL; the last one wins.
 * ddb_ini_get_at also gives the line it is on. */
const char *ddb_ini_get_at(const ddb_ini_file *f, int config, const char *kind, const char *name,
                           const char *key, unsigned *line);
const char *ddb_ini_get(const ddb_ini_file *f, int config, const char *kind, const char *name,
                        const char *key);

/* malloc'd printf result, NULL on OOM (shared with awsconfig.c). */
__attribute__((format(printf, 1, 2))) char *ddb_aws_xprintf(const char *fmt, ...);

/* Wipes and frees a string that may hold a secret; accepts NULL. */
void ddb_aws_free_secret(char *s);

#endif
