/*
 * summary.h — what a run reports: per-entity counts that always balance
 * (read = written + rejected + unmatched + not done), bytes, time, the files
 * written; as a table for people and a JSON document for machines.
 */
#ifndef DDBPIPE_SUMMARY_H
#define DDBPIPE_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

#include "ddbpipe/buf.h"

typedef struct ddb_entity_stats {
    const char *name; /* entity name; "(none)" for records no entity was known for */
    uint64_t read;
    uint64_t written; /* accepted by the output (deletes included) */
    uint64_t deleted; /* of written: deletions */
    uint64_t rejected;
    uint64_t unmatched;
    uint64_t existing; /* written only if absent, and already in the table: left as it was */
    uint64_t not_done; /* read but neither written, existing, rejected nor unmatched when the
                          run ended (in flight, queued, or in outputs that were discarded); set
                          once the run is over:
                          read = written + existing + rejected + unmatched + filtered +
                          not_done */
    uint64_t filtered; /* read but not asked for (--entities, --where, --sample): left out */
} ddb_entity_stats;

typedef struct ddb_summary {
    const char *command;
    ddb_entity_stats *entities; /* one per entity of the mapping, then "(none)" */
    size_t n_entities;
    ddb_entity_stats total;
    uint64_t changes[4]; /* incremental records by ddb_change_kind (inserts, modifies, removes) */
    uint64_t bytes_in;   /* raw bytes read from the inputs */
    uint64_t bytes_decoded; /* the same after decompression: what was parsed */
    uint64_t bytes_out;     /* bytes written to the outputs */
    double seconds;
    uint64_t input_errors; /* inputs that failed (unreadable, corrupt, checksum) */
    uint64_t warnings;
    const char *ttl_attribute; /* --skip-expired: the TTL attribute; NULL: not asked */
    uint64_t expired;          /* items left out as expired (not counted as read) */
    uint64_t ttl_removed;      /* of changes[DDB_CHANGE_REMOVE]: made by Time to Live */
    int output_failed;    /* the output could not be written or committed */
    int interrupted;      /* stopped by a signal; a checkpoint was written if asked */
    int resumed;          /* continued from a checkpoint */
    int dry_run;          /* a table's dry run: "written" counts what would be */
    uint64_t checkpoints; /* state files written */
    int committed;        /* the outputs were committed */
    char **outputs;       /* committed files */
    size_t n_outputs;
    char *rejects_path;   /* NULL when nothing was rejected */
    char *unmatched_path; /* NULL when no item was kept as unmatched */
    char *extra_json;     /* members the command adds to the JSON summary (",\"estimate\":
                             {..}"), malloc'd, or NULL */
    char *selection;      /* how the records asked for were read (a Query, a Scan with a
                             filter, a filter as files are read), or NULL: everything */
} ddb_summary;

/* Frees what the summary owns (outputs, rejects path, rows). */
void ddb_summary_dispose(ddb_summary *s);

/* A byte count as the summary writes it ("718.1 KB": powers of 1000), in
 * out (cap bytes; 16 are enough). */
void ddb_summary_bytes(char *out, size_t cap, uint64_t b);

/* The table people read at the end of a run (appended to out). */
void ddb_summary_format(ddb_buf *out, const ddb_summary *s);

/* The same as a JSON document (appended to out). */
void ddb_summary_json(ddb_buf *out, const ddb_summary *s, int exit_code);

#endif
