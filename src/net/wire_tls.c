/*
 * wire_tls.c — TLS for the own HTTP path (wire.c): the context, with the
 * peer verified against libcurl's CAs or a bundle of the user's, and a
 * socket BIO of our own.
 */
#include <curl/curl.h>
#include <errno.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>

#include "net/wire_internal.h"

const char *ddb_wire_tls_reason(const SSL *ssl, char *out, size_t cap)
{
    unsigned long e = ERR_get_error();
    long v = ssl ? SSL_get_verify_result(ssl) : X509_V_OK;
    if (v != X509_V_OK)
        snprintf(out, cap, "SSL certificate problem: %s", X509_verify_cert_error_string(v));
    else if (e != 0)
        ERR_error_string_n(e, out, cap);
    else
        snprintf(out, cap, "TLS connection failed");
    ERR_clear_error();
    return out;
}

/* ----------------------------------------------------- TLS socket BIO */

/* OpenSSL's socket BIO writes with write(2): a peer gone away would raise
 * SIGPIPE, which the tool takes for its output pipe closing. This one sends
 * with MSG_NOSIGNAL. */
static int bio_write(BIO *b, const char *data, int len)
{
    ssize_t n = send((int)(intptr_t)BIO_get_data(b), data, (size_t)len, MSG_NOSIGNAL);
    BIO_clear_retry_flags(b);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        BIO_set_retry_write(b);
    return (int)n;
}

static int bio_read(BIO *b, char *data, int len)
{
    ssize_t n = recv((int)(intptr_t)BIO_get_data(b), data, (size_t)len, 0);
    BIO_clear_retry_flags(b);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        BIO_set_retry_read(b);
    return (int)n;
}

static long bio_ctrl(BIO *b, int cmd, long num, void *ptr)
{
    (void)b;
    (void)num;
    (void)ptr;
    return cmd == BIO_CTRL_FLUSH ? 1 : 0;
}

static int bio_create(BIO *b)
{
    BIO_set_init(b, 1);
    return 1;
}

int ddb_wire_tls_setup(SSL_CTX **ctx, BIO_METHOD **bio, const char *ca_file, ddb_error *err)
{
    curl_version_info_data *vi = curl_version_info(CURLVERSION_NOW);
    const char *file = ca_file, *dir = NULL;
    if ((*ctx = SSL_CTX_new(TLS_client_method())) == NULL ||
        (*bio = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "ddb-socket")) == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory (TLS)");
    BIO_meth_set_write(*bio, bio_write);
    BIO_meth_set_read(*bio, bio_read);
    BIO_meth_set_ctrl(*bio, bio_ctrl);
    BIO_meth_set_create(*bio, bio_create);
    SSL_CTX_set_min_proto_version(*ctx, TLS1_2_VERSION);
    SSL_CTX_set_verify(*ctx, SSL_VERIFY_PEER, NULL);
    SSL_CTX_set_options(*ctx, SSL_OP_IGNORE_UNEXPECTED_EOF);
    /* The same trust as libcurl's other requests: its CA file and folder. */
    if (file == NULL && vi != NULL) {
        file = vi->cainfo;
        dir = vi->capath;
    }
    if (file == NULL && dir == NULL) {
        if (SSL_CTX_set_default_verify_paths(*ctx) != 1)
            return ddb_error_set(err, DDB_ENET, "cannot load the system's CA certificates");
    } else if (SSL_CTX_load_verify_locations(*ctx, file, dir) != 1) {
        ERR_clear_error();
        return ddb_error_set(err, DDB_ENET, "cannot load the CA certificates of %s",
                             file ? file : dir);
    }
    return 0;
}
