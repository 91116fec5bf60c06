/*
 * client_gzip.c — DynamoDB's gzip answers. Asked with Accept-Encoding: gzip,
 * DynamoDB compresses an answer past a size of its choosing (a Scan page of a
 * megabyte comes in about a sixth of that) and computes x-amz-crc32 over the
 * compressed bytes, so the client checks the CRC first and decodes after,
 * here, through the same gzip filter the readers use (ISA-L where built in,
 * each member's own CRC and length checked).
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "client_impl.h"
#include "ddbpipe/io.h"

int ddb_client_decode_body(call *cl)
{
    ddb_source *src = NULL;
    ddb_buf out = DDB_BUF_INIT;
    ddb_error err;
    size_t in_len = cl->resp_body.len;
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
    /* JSON compresses five to ten times: room for that at once (64 MB at
     * most, whatever the answer claims), then doubling */
    if (ddb_buf_reserve(&out, in_len <= (8u << 20) ? in_len * 8 + 4096 : (64u << 20)) != 0) {
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
        if (out.len > DDB_CLIENT_MAX_DECODED) {
            ddb_error_set(&err, DDB_EIO, "it decodes to more than %u MB",
                          DDB_CLIENT_MAX_DECODED >> 20);
            goto fail;
        }
    }
    out.ptr[out.len] = '\0';
    ddb_buf_dispose(&cl->resp_body);
    cl->resp_body = out;
    memset(&out, 0, sizeof(out));
    rc = 0;
    goto done;
fail:
    snprintf(cl->resp.message, sizeof(cl->resp.message), "gzip answer of %zu bytes: %.400s", in_len,
             err.message);
done:
    ddb_buf_dispose(&out);
    ddb_source_free(src);
    return rc;
}
