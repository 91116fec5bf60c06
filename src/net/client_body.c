/*
 * client_body.c — what a DynamoDB answer's body must pass before anyone
 * reads it: its x-amz-crc32, and, asked with Accept-Encoding: gzip, its
 * decoding. DynamoDB compresses an answer past a size of its choosing (a
 * Scan page of a megabyte comes in about a sixth of that) and computes the
 * CRC over the compressed bytes, so the CRC is checked on them and the body
 * decoded after, through the same gzip filter the readers use (ISA-L where
 * built in, each member's own CRC and length checked).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "net/client_impl.h"
#include "ddbpipe/checksum.h"
#include "ddbpipe/source.h"

/* Does the body as it stands match x-amz-crc32 (or is there none)? *got and
 * *want say what was compared. */
static int crc_matches(const call *cl, unsigned long *got, unsigned long *want)
{
    if (!cl->crc[0])
        return 1;
    *want = strtoul(cl->crc, NULL, 10);
    *got = ddb_crc32(cl->resp_body.ptr ? cl->resp_body.ptr : "", cl->resp_body.len);
    return *want == *got;
}

/* asked_gzip: the request asked for gzip and the answer came without it, so
 * a proxy that decodes answers (keeping DynamoDB's CRC of the gzipped bytes)
 * is a likely cause, and the message says how to stop asking. */
static int crc_ok(call *cl, int asked_gzip)
{
    unsigned long want = 0, got = 0;
    if (crc_matches(cl, &got, &want))
        return 1;
    snprintf(cl->resp.error_type, sizeof(cl->resp.error_type), "CRC32Mismatch");
    snprintf(cl->resp.message, sizeof(cl->resp.message),
             "response CRC32 %lu does not match x-amz-crc32 %lu%s", got, want,
             asked_gzip && cl->encoding[0] == '\0'
                 ? " (gzip was asked for; a proxy that decodes answers breaks this check: "
                   "DDBPIPE_NO_GZIP=1 stops asking)"
                 : "");
    return 0;
}

int ddb_client_decode_body(ddb_client *c, call *cl)
{
    ddb_source *src = NULL;
    ddb_buf out = DDB_BUF_INIT, wire = DDB_BUF_INIT;
    ddb_error err;
    size_t in_len = cl->resp_body.len, room;
    int rc = -1;

    if (strcasecmp(cl->encoding, "gzip") != 0 && strcasecmp(cl->encoding, "x-gzip") != 0) {
        snprintf(cl->resp.message, sizeof(cl->resp.message),
                 "the answer came in Content-Encoding '%.40s', which was not asked for",
                 cl->encoding);
        return -1;
    }
    if (ddb_source_new_memory(&src, cl->resp_body.ptr ? cl->resp_body.ptr : "", in_len,
                              "the gzip answer", &err) != 0 ||
        ddb_source_new_gzip(&src, src, &err) != 0) {
        src = NULL; /* the filter took its upstream, even on failure */
        goto fail;
    }
    /* JSON compresses five to ten times: room for that at once (the limit
     * at most, whatever the answer claims), then doubling */
    room = in_len <= DDB_CLIENT_MAX_BODY / 8 ? in_len * 8 + 4096 : DDB_CLIENT_MAX_BODY;
    /* decoded into a body given back (a Scan page's megabyte, already
     * faulted in), as a plain answer is received into one; one too small
     * is replaced, not grown: realloc would copy its stale bytes */
    out = ddb_client_take_spare_body(c);
    if (out.cap < room + 1)
        ddb_buf_dispose(&out);
    if (ddb_buf_reserve(&out, room) != 0) {
        ddb_error_set(&err, DDB_ENOMEM, "out of memory");
        goto fail;
    }
    for (;;) {
        ssize_t n;
        if (ddb_buf_reserve(&out, 65536) != 0) {
            ddb_error_set(&err, DDB_ENOMEM, "out of memory");
            goto fail;
        }
        n = ddb_source_read(src, out.ptr + out.len, out.cap - out.len - 1, &err);
        if (n < 0)
            goto fail;
        if (n == 0)
            break;
        out.len += (size_t)n;
        if (out.len > DDB_CLIENT_MAX_BODY) {
            cl->over = OVER_BODY;
            ddb_error_set(&err, DDB_ETOOBIG, "it decodes to more than %u MiB",
                          DDB_CLIENT_MAX_BODY >> 20);
            goto fail;
        }
    }
    out.ptr[out.len] = '\0';
    wire = cl->resp_body;
    cl->resp_body = out;
    memset(&out, 0, sizeof(out));
    rc = 0;
    goto done;
fail:
    snprintf(cl->resp.message, sizeof(cl->resp.message), "gzip answer of %zu bytes: %.400s", in_len,
             err.message);
done:
    ddb_buf_dispose(&out);
    ddb_source_free(src); /* before the bytes it reads go */
    /* the gzip bytes' memory receives a later answer */
    ddb_client_reuse_body(c, wire.ptr, wire.cap);
    return rc;
}

int ddb_client_body_ready(ddb_client *c, call *cl, long status, char *undecoded, size_t cap)
{
    unsigned long got, want;
    int sent_ok;
    if (cl->encoding[0] == '\0')
        return crc_ok(cl, c->ask_gzip) ? 0 : -1;
    /* gzip: DynamoDB's CRC is of the bytes as sent. Some stand-ins take it of
     * the decoded bytes (LocalStack did, #429): either passes, as gzip's own
     * CRC-32 guards the decoded bytes whatever the header says. A success
     * that cannot be decoded is sent for again; an error answer that cannot
     * is still what its status and headers say it is. */
    sent_ok = status != 200 || crc_matches(cl, &got, &want);
    if (ddb_client_decode_body(c, cl) != 0) {
        if (status == 200) {
            snprintf(cl->resp.error_type, sizeof(cl->resp.error_type), "%s",
                     cl->over ? "ResponseTooLarge" : "ContentEncodingError");
            return -1;
        }
        ddb_buf_clear(&cl->resp_body); /* no error body to read */
        snprintf(undecoded, cap, "%s", cl->resp.message);
        return 0;
    }
    if (!sent_ok && !crc_ok(cl, 0))
        return -1;
    c->stats.gzip_sent += cl->wire_len;
    c->stats.gzip_json += cl->resp_body.len;
    return 0;
}
