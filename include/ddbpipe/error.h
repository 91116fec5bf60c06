/*
 * error.h — error codes and the error struct every fallible call fills.
 *
 * Convention (libgit2 style): functions return int, 0 on success and a
 * negative ddb_error_code on failure, with a human-readable message left in
 * the caller's ddb_error. A NULL ddb_error is allowed everywhere and means
 * "I only want the code".
 */
#ifndef DDBPIPE_ERROR_H
#define DDBPIPE_ERROR_H

#include <stdarg.h>
#include <stddef.h>

typedef enum ddb_error_code {
    DDB_OK = 0,
    DDB_ERROR = -1,  /* unclassified failure */
    DDB_ENOMEM = -2, /* allocation failed */
    DDB_EINVAL = -3, /* invalid data: the record or value breaks a rule */
    DDB_EIO = -4,    /* reading or writing a file or stream failed */
    DDB_ENOTFOUND = -5,
    DDB_EVERIFY = -6,  /* checksum or count mismatch */
    DDB_EUSAGE = -7,   /* bad option or mapping: the user must change the command */
    DDB_ETOOBIG = -8,  /* a line, item or value exceeds a limit */
    DDB_ENOMATCH = -9, /* an item matches no entity of the mapping */
    DDB_ENET = -10,    /* network or protocol failure */
    DDB_EINTR = -11,   /* interrupted by a signal */
    DDB_ELIMIT = -12,  /* a limit the run was given was reached (too many rejects) */
    DDB_ITEROVER = -31 /* end of iteration; not an error */
} ddb_error_code;

#define DDB_ERROR_MAX 1024

/* On functions whose failure must be handled: ignoring the result is a
 * compile error (-Werror). */
#define DDB_MUST_USE __attribute__((warn_unused_result))

typedef struct ddb_error {
    int code;
    char message[DDB_ERROR_MAX];
} ddb_error;

/* Sets code and formatted message (truncated to fit). Returns code, so a
 * caller can write `return ddb_error_set(err, DDB_EINVAL, "...")`. err may be NULL. */
int ddb_error_set(ddb_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int ddb_error_vset(ddb_error *err, int code, const char *fmt, va_list ap);

/* Prepends context ("file.json:12: ") to the current message. Returns err->code
 * (or DDB_ERROR when err is NULL). */
int ddb_error_prefix(ddb_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Resets err to DDB_OK with an empty message. */
void ddb_error_clear(ddb_error *err);

/* How many bytes of a value a message quotes before cutting it with "...". */
#define DDB_QUOTE_MAX 60

/* Copies at most DDB_QUOTE_MAX bytes of s into dst (cap bytes, NUL-terminated)
 * for an error message: "..." appended when cut (never inside a UTF-8
 * sequence), control bytes turned into '?' so a message stays one line.
 * Returns the length written. dst needs DDB_QUOTE_MAX + 4 bytes for a full quote. */
size_t ddb_error_quote(char *dst, size_t cap, const char *s, size_t len);

/* Static, human name of a code ("invalid data", "I/O error"...). */
const char *ddb_error_code_name(int code);

/* How much a line the engine reports through a log callback matters. */
typedef enum ddb_log_level {
    DDB_LOG_DEBUG,  /* what --verbose shows: an attempt that succeeded */
    DDB_LOG_INFO,   /* worth knowing: a failed attempt to be retried, credentials refreshed */
    DDB_LOG_WARNING /* something went wrong that the run survives: a refresh that failed */
} ddb_log_level;

/* The engine's log callback (it never prints): one line of text a call, no newline, never a
 * secret. Where it is called from (which thread) is the caller's contract to say. */
typedef void (*ddb_log_fn)(void *ctx, ddb_log_level level, const char *message);

#endif
