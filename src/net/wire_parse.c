/*
 * wire_parse.c — an HTTP/1.1 response as it arrives on the own HTTP path
 * (wire.c): the status line, the header lines (1xx answers skipped), then a
 * body of Content-Length, chunked or until the close, handed to the
 * exchange's callbacks line by line and piece by piece.
 */
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "net/wire_internal.h"

#define MAX_HEAD 65536 /* a response's header line, at most */

void ddb_wire_response_reset(wire_response *r)
{
    memset(r, 0, sizeof(*r));
    r->phase = P_STATUS;
}

static int has_token(const char *v, size_t n, const char *token)
{
    size_t tl = strlen(token);
    for (size_t i = 0; i + tl <= n; i++)
        if (strncasecmp(v + i, token, tl) == 0)
            return 1;
    return 0;
}

/* One header line of the final response (CRLF stripped into n). */
static int header_line(wire_response *cn, const char *line, size_t n)
{
    const char *colon = memchr(line, ':', n), *v;
    size_t nl, vl;
    if (colon == NULL)
        return -1;
    nl = (size_t)(colon - line);
    v = colon + 1;
    vl = n - nl - 1;
    while (vl > 0 && (*v == ' ' || *v == '\t'))
        v++, vl--;
    if (nl == 14 && strncasecmp(line, "content-length", 14) == 0) {
        uint64_t len = 0;
        size_t i = 0;
        if (vl == 0)
            return -1;
        for (; i < vl && v[i] >= '0' && v[i] <= '9'; i++) {
            if (len > (UINT64_MAX - 9) / 10)
                return -1;
            len = len * 10 + (uint64_t)(v[i] - '0');
        }
        while (i < vl && (v[i] == ' ' || v[i] == '\t'))
            i++;
        if (i != vl || (cn->has_length && len != cn->length))
            return -1;
        cn->has_length = 1;
        cn->length = len;
    } else if (nl == 17 && strncasecmp(line, "transfer-encoding", 17) == 0) {
        cn->chunked = has_token(v, vl, "chunked");
    } else if (nl == 10 && strncasecmp(line, "connection", 10) == 0) {
        if (has_token(v, vl, "close"))
            cn->close_after = 1;
        if (has_token(v, vl, "keep-alive"))
            cn->keep_alive = 1;
    }
    return 0;
}

/* The body's framing, once the header block has ended. Returns 1 when the
 * response has no body. */
static int begin_body(wire_response *cn)
{
    if (cn->status == 204 || cn->status == 304)
        return 1;
    if (cn->chunked) {
        cn->phase = P_CHUNK_SIZE;
        return 0;
    }
    if (cn->has_length) {
        cn->phase = P_LEN;
        cn->left = cn->length;
        return cn->left == 0;
    }
    cn->phase = P_EOF; /* until the server closes */
    cn->close_after = 1;
    return 0;
}

int ddb_wire_response_parse(wire_response *cn, ddb_wire_xfer *x, const char *buf, size_t *pos,
                            size_t len, const char **why)
{
    for (;;) {
        const char *p = buf + *pos, *eol;
        size_t avail = len - *pos, n;
        if (cn->phase == P_LEN || cn->phase == P_EOF || cn->phase == P_CHUNK_DATA) {
            size_t take = avail;
            if (cn->phase != P_EOF && take > cn->left)
                take = (size_t)cn->left;
            if (take > 0 && x->on_body(x->ud, p, take) != 0)
                return -2;
            *pos += take;
            cn->left -= cn->phase != P_EOF ? take : 0;
            if (cn->phase == P_EOF || cn->left > 0)
                return 0;
            if (cn->phase == P_LEN)
                return 1;
            cn->phase = P_CHUNK_END;
            continue;
        }
        /* the other phases read lines */
        if ((eol = memchr(p, '\n', avail)) == NULL) {
            if (avail > MAX_HEAD) {
                *why = "response header line too long";
                return -1;
            }
            return 0;
        }
        n = (size_t)(eol - p) + 1;
        *pos += n;
        {
            size_t bare = n - 1 - (n >= 2 && p[n - 2] == '\r');
            switch (cn->phase) {
            case P_STATUS:
                if (bare < 12 || strncmp(p, "HTTP/1.", 7) != 0 || p[8] != ' ' || p[9] < '1' ||
                    p[9] > '5' || p[10] < '0' || p[10] > '9' || p[11] < '0' || p[11] > '9') {
                    *why = "malformed HTTP status line";
                    return -1;
                }
                cn->http10 = p[7] == '0';
                cn->status = (p[9] - '0') * 100 + (p[10] - '0') * 10 + (p[11] - '0');
                if (x->on_header(x->ud, p, n) != 0)
                    return -2;
                cn->phase = P_HEAD;
                break;
            case P_HEAD:
                if (x->on_header(x->ud, p, n) != 0)
                    return -2;
                if (bare == 0) {
                    if (cn->status >= 100 && cn->status < 200) {
                        /* 100 Continue and the like: the real answer follows */
                        cn->phase = P_STATUS;
                        cn->chunked = cn->has_length = cn->close_after = cn->keep_alive = 0;
                        break;
                    }
                    if (begin_body(cn))
                        return 1;
                    break;
                }
                if (header_line(cn, p, bare) != 0) {
                    *why = "malformed HTTP header";
                    return -1;
                }
                break;
            case P_CHUNK_SIZE: {
                uint64_t size = 0;
                size_t i = 0;
                for (; i < bare; i++) {
                    int d = p[i] >= '0' && p[i] <= '9'   ? p[i] - '0'
                            : p[i] >= 'a' && p[i] <= 'f' ? p[i] - 'a' + 10
                            : p[i] >= 'A' && p[i] <= 'F' ? p[i] - 'A' + 10
                                                         : -1;
                    if (d < 0)
                        break;
                    if (size >> 56)
                        i = bare + 1; /* too large: fails below */
                    else
                        size = size * 16 + (uint64_t)d;
                }
                if (i == 0 || i > bare || (i < bare && p[i] != ';' && p[i] != ' ')) {
                    *why = "malformed chunk size";
                    return -1;
                }
                cn->left = size;
                cn->phase = size ? P_CHUNK_DATA : P_TRAILER;
                break;
            }
            case P_CHUNK_END:
                if (bare != 0) {
                    *why = "malformed chunk end";
                    return -1;
                }
                cn->phase = P_CHUNK_SIZE;
                break;
            case P_TRAILER:
                if (bare == 0)
                    return 1;
                break;
            }
        }
    }
}
