/*
 * output_table_entry.c — the table writer's entries (output_table.c): the
 * lists they wait in (pending, retry by wake time, blocked on a busy key),
 * and what becomes of each, accepted, refused, abandoned or tried again,
 * with the set of busy keys kept in step.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddbpipe/array.h"
#include "ddbpipe/clock.h"
#include "aws/awserror.h"
#include "core/keyset.h"
#include "write/output_table_internal.h"

void tw_list_push(entry_list *l, entry *e)
{
    e->next = NULL;
    if (l->tail)
        l->tail->next = e;
    else
        l->head = e;
    l->tail = e;
    l->n++;
}

entry *tw_list_pop(entry_list *l)
{
    entry *e = l->head;
    if (e) {
        l->head = e->next;
        if (l->head == NULL)
            l->tail = NULL;
        l->n--;
    }
    return e;
}

static void retry_insert(entry_list *l, entry *e)
{
    entry **p = &l->head;
    while (*p && (*p)->wake_ms <= e->wake_ms)
        p = &(*p)->next;
    e->next = *p;
    *p = e;
    if (e->next == NULL)
        l->tail = e;
    l->n++;
}

/* Under AddressSanitizer every block is freed, so that an entry used after
 * it is done is caught, not quietly reused. */
#if defined(__SANITIZE_ADDRESS__)
#define KEEP_SPARES 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KEEP_SPARES 0
#endif
#endif
#ifndef KEEP_SPARES
#define KEEP_SPARES 1
#endif

void tw_entry_free(table_output *to, entry *e)
{
    /* its key and request live in the same block */
    if (e == NULL)
        return;
    if (e->block_class != 0 && to->n_spare < to->max_queued && KEEP_SPARES) {
        e->next = to->spare[e->block_class];
        to->spare[e->block_class] = e;
        to->n_spare++;
        return;
    }
    free(e);
}

void tw_entry_spares_free(table_output *to)
{
    for (size_t c = 0; c <= ENTRY_CLASSES; c++) {
        entry *e, *next;
        for (e = to->spare[c]; e != NULL; e = next) {
            next = e->next;
            free(e);
        }
        to->spare[c] = NULL;
    }
    to->n_spare = 0;
}

/* An entry with copies of the key signature in kb and the request put
 * together from its pieces, in one block (a writer makes one per item): the
 * item's text goes straight in, not through a scratch buffer first.
 * NULL when out of memory. */
entry *tw_entry_new_parts(table_output *to, const ddb_buf *kb, uint64_t key_hash,
                          const char *const *parts, const size_t *lens, int n)
{
    size_t req_len = 0, need;
    unsigned cls;
    entry *e;
    char *w;
    for (int i = 0; i < n; i++)
        req_len += lens[i];
    need = sizeof(*e) + kb->len + 1 + req_len + 1;
    cls = need <= (size_t)ENTRY_GRAIN * ENTRY_CLASSES
              ? (unsigned)((need + ENTRY_GRAIN - 1) / ENTRY_GRAIN)
              : 0;
    if (cls != 0 && (e = to->spare[cls]) != NULL) {
        to->spare[cls] = e->next;
        to->n_spare--;
    } else if ((e = malloc(cls != 0 ? (size_t)cls * ENTRY_GRAIN : need)) == NULL) {
        return NULL;
    }
    memset(e, 0, sizeof(*e));
    e->block_class = cls;
    e->key = (char *)(e + 1);
    memcpy(e->key, kb->ptr, kb->len);
    e->key[kb->len] = '\0';
    e->key_len = kb->len;
    e->key_hash = key_hash;
    e->req = w = e->key + kb->len + 1;
    for (int i = 0; i < n; i++) {
        memcpy(w, parts[i], lens[i]);
        w += lens[i];
    }
    *w = '\0';
    e->req_len = req_len;
    return e;
}

entry *tw_entry_new(table_output *to, const ddb_buf *kb, uint64_t key_hash, const ddb_buf *rb)
{
    const char *part = rb->ptr;
    return tw_entry_new_parts(to, kb, key_hash, &part, &rb->len, 1);
}

const char *tw_intern(table_output *to, const char *s)
{
    char **n;
    if (s == NULL)
        return "-";
    for (size_t i = to->n_sources; i > 0; i--)
        if (strcmp(to->sources[i - 1], s) == 0)
            return to->sources[i - 1];
    n = ddb_array_reserve(to->sources, to->n_sources, &to->cap_sources, sizeof(*n), 16);
    if (n == NULL)
        return "-";
    to->sources = n;
    to->sources[to->n_sources] = strdup(s);
    return to->sources[to->n_sources] ? to->sources[to->n_sources++] : "-";
}

static void late_reject(table_output *to, entry *e, const char *reason)
{
    ddb_reject_info info;
    info.seq = e->seq;
    info.source = e->source;
    info.line = e->line;
    info.offset = e->offset;
    info.reason = reason;
    info.item_json = e->req + e->item_off;
    info.item_len = e->item_len;
    info.is_delete = e->is_delete;
    to->stats.rejected++;
    if (to->base.reject)
        to->base.reject(to->base.ack_ctx, e->entity, &info);
}

/* Out of memory where an item cannot wait: it is refused, and the run stops. */
void tw_refused_fatal(table_output *to, entry *e, const char *what)
{
    if (!to->fatal) {
        to->fatal = 1;
        snprintf(to->fatal_msg, sizeof(to->fatal_msg), "%.500s", what);
    }
    tw_refused(to, e, what);
}

/* An entry is done (accepted or refused): free its key and let a blocked
 * write of the same key go. */
void tw_entry_done(table_output *to, entry *e)
{
    entry_list ready = {NULL, NULL, 0}, lost = {NULL, NULL, 0};
    entry **p = &to->blocked.head, *prev = NULL, *b;
    ddb_keyset_remove(&to->busy, e->key, e->key_len, e->key_hash);
    to->queued--;
    tw_entry_free(to, e);
    while (*p) {
        int rc;
        b = *p;
        /* Busy again before it goes: a later write of its key waits for it. */
        if ((rc = ddb_keyset_add(&to->busy, b->key, b->key_len, b->key_hash)) == 1) {
            prev = b;
            p = &b->next;
            continue;
        }
        *p = b->next;
        if (to->blocked.tail == b)
            to->blocked.tail = prev;
        to->blocked.n--;
        tw_list_push(rc == 0 ? &ready : &lost, b);
    }
    while ((b = tw_list_pop(&ready)) != NULL)
        tw_list_push(&to->pending, b);
    /* Refused only now: refusing re-enters here. */
    while ((b = tw_list_pop(&lost)) != NULL)
        tw_refused_fatal(to, b, "out of memory (the set of keys being written cannot grow)");
}

void tw_acked(table_output *to, entry *e)
{
    to->stats.written++;
    if (to->base.ack)
        to->base.ack(to->base.ack_ctx, e->entity, e->is_delete ? DDB_REC_DELETE : DDB_REC_PUT,
                     e->seq);
    tw_entry_done(to, e);
}

void tw_refused(table_output *to, entry *e, const char *reason)
{
    late_reject(to, e, reason);
    tw_entry_done(to, e);
}

/* The run is stopping: the entry is neither written nor refused (not done). */
void tw_abandoned(table_output *to, entry *e)
{
    to->stats.abandoned++;
    tw_entry_done(to, e);
}

void tw_requeue(table_output *to, entry *e, const char *why)
{
    if (to->stopping) {
        tw_abandoned(to, e);
        return;
    }
    e->attempts++;
    if (e->attempts >= to->max_attempts) {
        char reason[400];
        snprintf(reason, sizeof(reason), "not written after %d attempts: %s", e->attempts, why);
        tw_refused(to, e, reason);
        return;
    }
    e->wake_ms = ddb_clock_ms() + ddb_backoff_ms(&to->rng, e->attempts, to->base_ms, to->cap_ms);
    retry_insert(&to->retry, e);
}
