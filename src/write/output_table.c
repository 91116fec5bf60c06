/*
 * The BatchWriteItem writer: an output that sends items to a table.
 *
 * Every item becomes an entry holding its serialized request and a canonical
 * key signature. A key is "busy" from the moment its entry is queued until
 * DynamoDB has accepted or finally refused it; a later write of a busy key
 * waits in a blocked list, so a batch never holds two requests for one key and
 * the last write of a key is the last one DynamoDB sees. An item counts as
 * written only when a response says so; UnprocessedItems go back into the
 * queue with backoff; a batch refused with a ValidationException is split in
 * halves until the bad item stands alone and is rejected.
 */
#include "ddbpipe/output_table.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ddbpipe/json.h"
#include "ddbpipe/rate.h"
#include "ddbpipe/clock.h"
#include "core/keyset.h"
#include "aws/awserror.h"
#include "write/output_table_internal.h"

#define BATCH_MAX_ITEMS 25
#define BATCH_MAX_BYTES (16u * 1024u * 1024u - 64u * 1024u)

static int send_batch(table_output *to, entry **entries, size_t n, double taken, ddb_error *err);
static int post_batch(table_output *to, entry **entries, size_t n, double taken, ddb_error *err);
static void tick(table_output *to);

static void unlink_batch(table_output *to, batch *b)
{
    if (b->prev)
        b->prev->next = b->next;
    else
        to->flying = b->next;
    if (b->next)
        b->next->prev = b->prev;
}

/* A single-item request (a conditional put, an update) answered yes. */
static void single_written(table_output *to, batch *b, const ddb_response *resp)
{
    double cu = ddb_table_output_single_cu(resp);
    to->stats.capacity_units += cu;
    ddb_rate_settle(&to->rate, b->taken, cu);
    b->taken = 0;
    if (to->mode == DDB_WRITE_UPDATE && !b->entries[0]->is_delete)
        to->stats.updated++;
    tw_acked(to, b->entries[0]);
}

/* A put only where absent found its item there: left as it was, which is
 * what was asked. */
static void single_existing(table_output *to, batch *b)
{
    entry *e = b->entries[0];
    to->stats.existing++;
    if (to->base.exists)
        to->base.exists(to->base.ack_ctx, e->entity, DDB_REC_PUT, e->seq);
    tw_entry_done(to, e);
}

/* A batch answered: each item written, or back in the queue when the
 * answer lists it in UnprocessedItems (all of them when the list cannot be
 * matched to the batch). */
static void batch_answered(table_output *to, batch *b, ddb_response *resp)
{
    char flags[BATCH_MAX_ITEMS] = {0}; /* a batch holds at most 25 */
    double cu = 0;
    int matched;
    /* the busy set's slots of the batch's keys, asked for at once (each
     * would otherwise be a wait for memory in its own removal) */
    for (size_t i = 0; i < b->n; i++)
        ddb_keyset_prefetch(&to->busy, b->entries[i]->key_hash);
    matched = b->n <= BATCH_MAX_ITEMS ? ddb_table_output_find_unprocessed(to, b, resp, flags, &cu)
                                      : -1;
    to->stats.capacity_units += cu;
    ddb_rate_settle(&to->rate, b->taken, cu);
    b->taken = 0;
    for (size_t i = 0; i < b->n; i++) {
        if (matched < 0 || flags[i]) {
            to->stats.unprocessed++;
            tw_requeue(to, b->entries[i], "DynamoDB kept returning it in UnprocessedItems");
        } else {
            tw_acked(to, b->entries[i]);
        }
    }
}

/* The table itself is the problem (deleted, wrong region, no permission):
 * the run stops, and the batch's items are not done, not rejected; they are
 * fine where the table is. */
static void table_failed(table_output *to, batch *b, const ddb_response *resp)
{
    if (!to->fatal) {
        char where[300];
        ddb_client_describe_target(to->client, where, sizeof(where));
        to->fatal = 1;
        if (strcmp(resp->error_type, "ResourceNotFoundException") == 0)
            snprintf(to->fatal_msg, sizeof(to->fatal_msg),
                     "table %.100s does not exist in %.200s (it was deleted during the run, "
                     "or this is the wrong region or endpoint): %.150s",
                     to->table, where, resp->message);
        else
            snprintf(to->fatal_msg, sizeof(to->fatal_msg),
                     "BatchWriteItem to %.100s failed (%.200s): %.60s%s%.200s", to->table, where,
                     resp->error_type, resp->error_type[0] ? ": " : "", resp->message);
    }
    for (size_t i = 0; i < b->n; i++)
        tw_abandoned(to, b->entries[i]);
}

/* The batch's items refused for good: by DynamoDB, or after every attempt. */
static void batch_refused(table_output *to, batch *b, const ddb_response *resp)
{
    char why[700];
    snprintf(why, sizeof(why), "%s%s%s", resp->error_type, resp->error_type[0] ? ": " : "",
             resp->message);
    for (size_t i = 0; i < b->n; i++) {
        if (resp->retryable) {
            char reason[800];
            snprintf(reason, sizeof(reason), "gave up after %d attempts: %s", resp->attempts, why);
            tw_refused(to, b->entries[i], reason);
        } else {
            tw_refused(to, b->entries[i], why);
        }
    }
}

/* The client's answer to a batch (or single-item request) b: settles each of
 * its entries by what the answer says, then sends what can go next. */
static void batch_done(void *ctx, ddb_response *resp)
{
    batch *b = ctx;
    table_output *to = b->to;
    int invalid = strcmp(resp->error_type, "ValidationException") == 0;

    unlink_batch(to, b);
    to->batches_in_flight--;
    to->items_in_flight -= b->n;
    to->stats.throttles += resp->throttles;
    if (resp->throttles > 0)
        ddb_rate_throttled(&to->rate, ddb_clock_seconds());
    if (to->mode != DDB_WRITE_BATCH && resp->ok) {
        single_written(to, b, resp);
    } else if (to->mode == DDB_WRITE_IF_ABSENT &&
               strcmp(resp->error_type, "ConditionalCheckFailedException") == 0) {
        single_existing(to, b);
    } else if (resp->ok) {
        batch_answered(to, b, resp);
    } else if (to->stopping && !(invalid && b->n == 1)) {
        /* Interrupted: only an answer that refuses this very item is a
         * rejection; a batch to split, to retry or never sent is not done. */
        for (size_t i = 0; i < b->n; i++)
            tw_abandoned(to, b->entries[i]);
    } else if (invalid && b->n > 1) {
        /* One bad item refuses the whole batch: halve until it stands alone.
         * A half that cannot be sent is refused (and stops the run); the
         * other half still goes. */
        size_t half = b->n / 2;
        ddb_error err;
        to->stats.splits++;
        send_batch(to, b->entries, half, 0, &err);
        send_batch(to, b->entries + half, b->n - half, 0, &err);
    } else if (!resp->retryable && !invalid) {
        table_failed(to, b, resp);
    } else {
        batch_refused(to, b, resp);
    }
    if (b->taken > 0)
        ddb_rate_settle(&to->rate, b->taken, 0); /* refused: nothing was consumed */
    free(b->entries);
    free(b);
    tick(to);
}

/* Sends entries as one BatchWriteItem. When it cannot go (out of memory),
 * its entries are refused with the reason and the run stops: each item is
 * still accounted for and kept in the rejects file. */
static int send_batch(table_output *to, entry **entries, size_t n, double taken, ddb_error *err)
{
    int rc = post_batch(to, entries, n, taken, err);
    if (rc != 0) {
        char reason[600];
        snprintf(reason, sizeof(reason), "not sent: %.500s", err->message);
        if (taken > 0)
            ddb_rate_settle(&to->rate, taken, 0);
        for (size_t i = 0; i < n; i++)
            tw_refused_fatal(to, entries[i], reason);
    }
    return rc;
}

static int post_batch(table_output *to, entry **entries, size_t n, double taken, ddb_error *err)
{
    batch *b;
    int rc;

    /* a single-item request carries one entry; a batch at most 25 */
    assert(n >= 1 && n <= (to->mode == DDB_WRITE_BATCH ? BATCH_MAX_ITEMS : 1));
    if ((b = calloc(1, sizeof(*b))) == NULL || (b->entries = malloc(n * sizeof(entry *))) == NULL) {
        free(b);
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    }
    memcpy(b->entries, entries, n * sizeof(entry *));
    b->n = n;
    b->to = to;
    b->taken = taken;
    if (to->mode != DDB_WRITE_BATCH) { /* one item a request: its body is ready */
        rc = ddb_client_submit(to->client, ddb_table_output_single_op(to, entries[0]),
                               entries[0]->req, entries[0]->req_len, batch_done, b, err);
    } else {
        /* built in a block of its own, sized once, that the client takes */
        ddb_buf own = DDB_BUF_INIT;
        size_t need = 2 * strlen(to->table) + 80;
        for (size_t i = 0; i < n; i++)
            need += entries[i]->req_len + 1;
        ddb_buf_reserve(&own, need);
        ddb_buf_puts(&own, "{\"RequestItems\":{");
        ddb_json_put_string(&own, to->table, strlen(to->table));
        ddb_buf_puts(&own, ":[");
        for (size_t i = 0; i < n; i++) {
            if (i)
                ddb_buf_putc(&own, ',');
            ddb_buf_append(&own, entries[i]->req, entries[i]->req_len);
        }
        ddb_buf_puts(&own, "]},\"ReturnConsumedCapacity\":\"TOTAL\"}");
        if (own.oom) {
            ddb_buf_dispose(&own);
            rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
        } else {
            size_t len = own.len;
            rc = ddb_client_submit_owned(to->client, "BatchWriteItem", ddb_buf_detach(&own, NULL),
                                         len, batch_done, b, err);
        }
    }
    if (rc != 0) {
        free(b->entries);
        free(b);
        return rc;
    }
    to->batches_in_flight++;
    to->items_in_flight += n;
    to->stats.batches++;
    b->next = to->flying;
    if (to->flying)
        to->flying->prev = b;
    to->flying = b;
    return 0;
}

/* Sends what can go: due retries first, then pending entries, in batches of
 * up to 25 and 16 MB. Partial batches only when force is set (the producer
 * is waiting, or the input has ended). */
static int pump(table_output *to, int force, ddb_error *err)
{
    uint64_t now;
    int limit = ddb_client_concurrency(to->client) * 2;
    if (to->stopping)
        return 0;
    /* The common case per item: not a batch yet and nothing waiting out a
     * backoff, so no clock reads. */
    if (!force && to->retry.head == NULL && to->pending.n < to->batch_items)
        return 0;
    now = ddb_clock_ms();
    to->rate_wait_ms = 0;
    ddb_rate_tick(&to->rate, ddb_clock_seconds());
    while (to->batches_in_flight < limit) {
        entry *picked[BATCH_MAX_ITEMS];
        size_t n = 0, bytes = 0;
        size_t due = 0;
        double cost = 0;
        uint32_t wait;
        int rc;
        for (entry *e = to->retry.head; e && e->wake_ms <= now; e = e->next)
            due++;
        /* Held back in the window is fine while other writes keep the
         * network busy; with nothing else to send it would stall the run. */
        if (force && due + to->pending.n == 0 && to->batches_in_flight == 0)
            tw_shuffle_drain(to);
        if (!force && due + to->pending.n < to->batch_items)
            return 0;
        if (due + to->pending.n == 0)
            return 0;
        /* Capacity first: a batch waits whole rather than going out in part. */
        if ((wait = ddb_rate_take(&to->rate, 0, ddb_clock_seconds())) != 0) {
            to->rate_wait_ms = wait;
            return 0;
        }
        while (n < to->batch_items && to->retry.head && to->retry.head->wake_ms <= now &&
               bytes + to->retry.head->req_len <= BATCH_MAX_BYTES) {
            bytes += to->retry.head->req_len;
            picked[n++] = tw_list_pop(&to->retry);
        }
        while (n < to->batch_items && to->pending.head &&
               bytes + to->pending.head->req_len <= BATCH_MAX_BYTES) {
            bytes += to->pending.head->req_len;
            picked[n++] = tw_list_pop(&to->pending);
        }
        if (n == 0)
            return 0;
        for (size_t i = 0; i < n; i++)
            cost += picked[i]->wcu;
        cost = ddb_rate_cost(&to->rate, cost);
        ddb_rate_take(&to->rate, cost, ddb_clock_seconds());
        if ((rc = send_batch(to, picked, n, cost, err)) != 0)
            return rc;
    }
    return 0;
}

/* Runs inside the client loop (as its stop condition): keeps the batch
 * slots full as batches complete and retries come due. */
static void tick(table_output *to)
{
    ddb_error err;
    if (!to->fatal && pump(to, to->force, &err) != 0) {
        to->fatal = 1;
        snprintf(to->fatal_msg, sizeof(to->fatal_msg), "%.500s", err.message);
    }
}

static int below_high_water(void *ctx)
{
    table_output *to = ctx;
    tick(to);
    return to->fatal || to->queued - to->shuffle.n < to->max_queued * 3 / 4;
}

static int all_settled(void *ctx)
{
    table_output *to = ctx;
    tick(to);
    /* After a fatal error nothing more is sent, but what is in flight still
     * gets its answer: acknowledged or refused, not left unaccounted. */
    return to->queued == 0 || (to->fatal && to->batches_in_flight == 0);
}

/* Drives the loop until cond holds; when nothing is in flight, sleeps until
 * the next retry is due (entries waiting out a backoff are the writer's, not
 * the client's). */
static int wait_for(table_output *to, int (*cond)(void *), ddb_error *err)
{
    int rc = 0;
    to->force = 1;
    while (!cond(to)) {
        if ((rc = ddb_client_run(to->client, cond, to, err)) != 0)
            break;
        if (cond(to))
            break;
        if (ddb_client_pending(to->client) == 0 && (to->retry.head || to->rate_wait_ms)) {
            /* Only time can help: a backoff or the capacity limit. */
            uint64_t now = ddb_clock_ms(), ms = to->rate_wait_ms ? to->rate_wait_ms : 0;
            if (to->retry.head && to->retry.head->wake_ms > now &&
                (ms == 0 || to->retry.head->wake_ms - now < ms))
                ms = to->retry.head->wake_ms - now;
            if (ms > 0) {
                struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
                nanosleep(&ts, NULL);
            }
        } else if (ddb_client_pending(to->client) == 0 && to->pending.head == NULL &&
                   to->retry.head == NULL) {
            break; /* nothing can change any more */
        }
    }
    to->force = 0;
    return rc;
}

/* The network is driven once a batch's worth of puts came in (refused ones
 * too, so answers are read while a run of bad items goes by), not per item:
 * each step hands libcurl what its sockets have. */
static int drive(table_output *to, ddb_error *err)
{
    int rc;
    if (++to->since_step < to->batch_items && to->retry.head == NULL)
        return 0;
    to->since_step = 0;
    if ((rc = pump(to, 0, err)) != 0)
        return rc;
    return ddb_client_step(to->client, err);
}

/* An item checked against the table's real key schema before it can spoil
 * a batch (a deletion: its key only); *item_size its size when known (0:
 * not). Returns 0, or nonzero with verr saying why it cannot be written. */
static int check_item(table_output *to, const ddb_map *rec, int is_del, const ddb_record *origin,
                      size_t *item_size, ddb_error *verr)
{
    const ddb_key_schema *ks = &to->info->schema;
    /* the item as read: its lexer checked UTF-8, its names id finds its shape */
    int as_read = origin != NULL && rec == &origin->item;
    ddb_shape *sh;
    *item_size = 0;
    if (is_del)
        return ddb_item_validate_key(rec, ks, verr);
    sh = ddb_shape_cache_find_named(to->shapes, rec, as_read ? origin->names_id : 0);
    if (as_read && origin->checked_size > 0) {
        /* the pipeline checked all but the table's own keys */
        *item_size = origin->checked_size;
        return ddb_item_check_keys_shaped(rec, ks, sh, verr);
    }
    return ddb_item_validate_shaped(rec, ks, sh, as_read && origin->utf8_checked, item_size, verr);
}

/* An item that cannot be written: rejected with why, and the network still
 * driven (answers are read while a run of bad items goes by). */
static int refuse_item(table_output *to, int entity, int is_del, const ddb_map *rec,
                       const ddb_record *origin, const char *why, ddb_error *err)
{
    to->stats.rejected++;
    ddb_output_refuse(&to->base, entity, is_del ? DDB_REC_DELETE : DDB_REC_PUT, rec, origin, why,
                      &to->scratch);
    return drive(to, err);
}

/* The key attributes of rec, all a DeleteRequest carries, into *keymap
 * (attrs: room for 2). */
static void delete_key(const ddb_key_schema *ks, const ddb_map *rec, ddb_map *keymap,
                       ddb_attr *attrs)
{
    size_t nk = 0;
    attrs[nk].name.ptr = ks->partition.name;
    attrs[nk].name.len = strlen(ks->partition.name);
    attrs[nk++].value = *ddb_map_getz(rec, ks->partition.name);
    if (ks->sort.name) {
        attrs[nk].name.ptr = ks->sort.name;
        attrs[nk].name.len = strlen(ks->sort.name);
        attrs[nk++].value = *ddb_map_getz(rec, ks->sort.name);
    }
    keymap->attrs = attrs;
    keymap->count = nk;
}

/* The entry of one write, keyed by to->keybuf: its request as the mode sends
 * it (a single-item call's body, or a Put/DeleteRequest of a batch).
 * Returns 0 with *out set, DDB_EINVAL (the item cannot be written: verr
 * says why), or another code with verr set. */
static int make_entry(table_output *to, const ddb_map *rec, int is_del, const ddb_record *origin,
                      uint64_t key_hash, entry **out, ddb_error *verr)
{
    ddb_buf *b = &to->scratch;
    size_t item_off = 0, item_len = 0, req_len = 0;
    entry *e;
    int rc;
    if (to->mode != DDB_WRITE_BATCH) {
        if ((rc = ddb_table_output_single_request(b, to, rec, is_del, &req_len, &item_off,
                                                  &item_len, verr)) != 0)
            return rc;
        e = b->oom ? NULL : tw_entry_new(to, &to->keybuf, key_hash, b);
    } else if (!is_del && origin != NULL && rec == &origin->item && origin->item_text.ptr != NULL) {
        /* the input's own text of this very item: strict typed JSON, checked
         * above, so it goes as it is rather than written again, and straight
         * into the entry */
        static const char put[] = "{\"PutRequest\":{\"Item\":";
        const char *parts[3] = {put, origin->item_text.ptr, "}}"};
        size_t lens[3] = {sizeof(put) - 1, origin->item_text.len, 2};
        item_off = lens[0];
        item_len = lens[1];
        req_len = lens[0] + lens[1] + lens[2];
        e = tw_entry_new_parts(to, &to->keybuf, key_hash, parts, lens, 3);
    } else {
        ddb_buf_clear(b);
        ddb_buf_puts(b, is_del ? "{\"DeleteRequest\":{\"Key\":" : "{\"PutRequest\":{\"Item\":");
        item_off = b->len;
        ddb_json_put_typed_map(b, rec);
        item_len = b->len - item_off;
        ddb_buf_puts(b, "}}");
        req_len = b->len;
        e = b->oom ? NULL : tw_entry_new(to, &to->keybuf, key_hash, b);
    }
    if (e == NULL || to->keybuf.oom) {
        tw_entry_free(to, e);
        return ddb_error_set(verr, DDB_ENOMEM, "out of memory");
    }
    e->req_len = req_len; /* a single-item body is followed by the item, for rejects */
    e->item_off = item_off;
    e->item_len = item_len;
    *out = e;
    return 0;
}

/* Queues e: pending, or blocked while an earlier write of its key is
 * unsettled. Returns 0, or DDB_ENOMEM with e freed. */
static int queue_entry(table_output *to, entry *e, int entity, int is_del,
                       const ddb_record *origin, size_t item_size, ddb_error *err)
{
    int rc;
    e->entity = entity;
    e->is_delete = is_del;
    e->source = tw_intern(to, origin ? origin->source : NULL);
    e->line = origin ? origin->line : 0;
    e->offset = origin ? origin->offset : 0;
    e->seq = origin ? origin->seq : 0;
    e->wcu = is_del || item_size == 0 ? 1.0 : (double)((item_size + 1023) / 1024);
    /* the key stays in the set (borrowed from e) until e is done */
    if ((rc = ddb_keyset_add(&to->busy, e->key, e->key_len, e->key_hash)) == 1) {
        to->stats.blocked++;
        tw_list_push(&to->blocked, e);
    } else if (rc == 0) {
        tw_shuffle_add(to, e);
    } else {
        tw_entry_free(to, e);
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    }
    to->queued++;
    return 0;
}

static int tw_put(ddb_output *o, int entity, ddb_record_kind kind, const ddb_map *rec,
                  size_t n_declared, const ddb_record *origin, ddb_error *err)
{
    table_output *to = (table_output *)o;
    int is_del = kind == DDB_REC_DELETE, rc;
    size_t item_size;
    ddb_error verr;
    entry *e = NULL;
    ddb_map keymap;
    ddb_attr keyattrs[2];
    uint64_t key_hash;

    (void)n_declared;
    if (to->fatal)
        return ddb_error_set(err, DDB_ENET, "%s", to->fatal_msg);
    if (check_item(to, rec, is_del, origin, &item_size, &verr) != 0)
        return refuse_item(to, entity, is_del, rec, origin, verr.message, err);
    if (ddb_table_output_key_signature(&to->keybuf, &to->info->schema, rec) != 0)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    /* the busy set's slot for it is cold: asked for now, needed after the copy below */
    key_hash = ddb_keyset_hash(to->keybuf.ptr, to->keybuf.len);
    ddb_keyset_prefetch(&to->busy, key_hash);
    if (is_del) {
        delete_key(&to->info->schema, rec, &keymap, keyattrs);
        rec = &keymap;
    }
    if ((rc = make_entry(to, rec, is_del, origin, key_hash, &e, &verr)) == DDB_EINVAL)
        return refuse_item(to, entity, is_del, rec, origin, verr.message, err);
    if (rc != 0)
        return ddb_error_set(err, rc, "%s", verr.message);
    if ((rc = queue_entry(to, e, entity, is_del, origin, item_size, err)) != 0 ||
        (rc = drive(to, err)) != 0)
        return rc;
    /* Bounded memory: past the high-water mark, wait for DynamoDB to catch up. */
    if (to->queued - to->shuffle.n >= to->max_queued &&
        (rc = wait_for(to, below_high_water, err)) != 0)
        return rc;
    return to->fatal ? ddb_error_set(err, DDB_ENET, "%s", to->fatal_msg) : 0;
}

static int tw_finish(ddb_output *o, ddb_error *err)
{
    table_output *to = (table_output *)o;
    int rc;
    tw_shuffle_drain(to);
    if ((rc = wait_for(to, all_settled, err)) != 0)
        return rc;
    if (to->fatal)
        return ddb_error_set(err, DDB_ENET, "%s", to->fatal_msg);
    return 0;
}

static void free_list(entry_list *l)
{
    entry *e = l->head;
    while (e) {
        entry *n = e->next;
        free(e); /* a whole block, key and request in it */
        e = n;
    }
    l->head = l->tail = NULL;
    l->n = 0;
}

static void tw_free(ddb_output *o)
{
    table_output *to = (table_output *)o;
    /* Batches still in flight (an interrupted run): their entries were never
     * acknowledged, a resumed run sends them again. */
    while (to->flying) {
        batch *b = to->flying;
        to->flying = b->next;
        for (size_t i = 0; i < b->n; i++)
            free(b->entries[i]);
        free(b->entries);
        free(b);
    }
    tw_shuffle_free(to);
    free_list(&to->pending);
    free_list(&to->retry);
    free_list(&to->blocked);
    tw_entry_spares_free(to);
    ddb_keyset_dispose(&to->busy);
    ddb_buf_dispose(&to->scratch);
    ddb_buf_dispose(&to->keybuf);
    ddb_json_parser_free(to->resp_parser);
    ddb_arena_free(to->resp_arena);
    ddb_shape_cache_free(to->shapes);
    for (size_t i = 0; i < to->n_sources; i++)
        free(to->sources[i]);
    free(to->sources);
    free(to->table);
}

static int tw_checkpoint(ddb_output *o, ddb_buf *state, ddb_error *err)
{
    (void)o;
    (void)err;
    /* Acks already mean written: nothing more to make durable. */
    return ddb_buf_puts(state, "[]");
}

/* Interrupted: what DynamoDB answers for is counted (written, or refused when
 * the answer says so); what it was never sent is not done. */
static int tw_stop(ddb_output *o, ddb_error *err)
{
    table_output *to = (table_output *)o;
    to->stopping = 1;
    return ddb_client_settle(to->client, err);
}

/* The input pauses: a partial batch goes out now rather than when the
 * input comes back, and retries whose backoff is over go with it. */
static int tw_idle(ddb_output *o, ddb_error *err)
{
    table_output *to = (table_output *)o;
    int rc;
    if (to->fatal || to->queued == 0)
        return 0;
    tw_shuffle_drain(to);
    if ((rc = pump(to, 1, err)) != 0)
        return rc;
    return ddb_client_step(to->client, err);
}

static const ddb_output_vtable table_vt = {tw_put,  tw_finish, tw_free, tw_checkpoint,
                                           tw_stop, NULL,      tw_idle};

int ddb_table_output_new(ddb_output **out, const ddb_table_output_opts *opts, ddb_error *err)
{
    table_output *to = calloc(1, sizeof(*to));
    *out = NULL;
    if (to == NULL || (to->table = strdup(opts->table)) == NULL) {
        free(to);
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    }
    to->base.vt = &table_vt;
    to->mode = opts->mode;
    to->batch_items = opts->mode == DDB_WRITE_BATCH ? BATCH_MAX_ITEMS : 1;
    to->client = opts->client;
    to->info = opts->info;
    to->max_attempts = opts->max_attempts > 0 ? opts->max_attempts : 10;
    to->base_ms = opts->backoff_base_ms ? opts->backoff_base_ms : 50;
    to->cap_ms = opts->backoff_cap_ms ? opts->backoff_cap_ms : 20000;
    to->rng = opts->random_seed ? opts->random_seed : (uint64_t)time(NULL) * 2654435761u;
    ddb_rate_init(&to->rate, opts->max_wcu, ddb_clock_seconds());
    to->max_queued =
        (size_t)(ddb_client_concurrency(opts->client) > 0 ? ddb_client_concurrency(opts->client)
                                                          : 16) *
        BATCH_MAX_ITEMS * 4;
    if (ddb_keyset_init(&to->busy, 1024) != 0 || ddb_shape_cache_new(&to->shapes) != 0 ||
        tw_shuffle_init(to, opts->shuffle_window, ddb_mix64(to->rng)) != 0) {
        tw_free(&to->base);
        free(to);
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    }
    *out = &to->base;
    return 0;
}

void ddb_table_output_stats(const ddb_output *o, ddb_table_write_stats *out)
{
    const table_output *to = (const table_output *)o;
    *out = to->stats;
    out->rate = to->rate.limit > 0 ? to->rate.rate : 0;
    out->in_flight = to->items_in_flight;
}
