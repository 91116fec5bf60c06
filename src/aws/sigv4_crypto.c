/*
 * sigv4_crypto.c — SigV4's hashing and signing: SHA-256 and HMAC-SHA256 with
 * the algorithms fetched from OpenSSL once, and the signing key kept per
 * secret, day, region and service (sigv4.c builds what is signed).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "ddbpipe/codec.h"
#include "ddbpipe/sigv4.h"
#include "aws/sigv4_internal.h"

/* OpenSSL 3 looks an algorithm up in its provider tables on every implicit
 * fetch (EVP_sha256() in EVP_Digest, a digest named to EVP_MAC_init): a cost
 * per request. Fetched once; kept for the process's life. */
static EVP_MD *g_sha256;
static pthread_once_t g_fetch_once = PTHREAD_ONCE_INIT;

static void fetch_algorithms(void)
{
    g_sha256 = EVP_MD_fetch(NULL, "SHA256", NULL);
}

const EVP_MD *ddb_sigv4_sha256_md(void)
{
    pthread_once(&g_fetch_once, fetch_algorithms);
    return g_sha256;
}

int ddb_sigv4_sha256_hex(char out[65], const void *data, size_t len)
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    const EVP_MD *sha = ddb_sigv4_sha256_md();
    if (sha == NULL || !EVP_Digest(len ? data : "", len, md, &mdlen, sha, NULL) || mdlen != 32)
        return DDB_ERROR;
    ddb_hex_encode(out, md, 32);
    out[64] = '\0';
    return 0;
}

/* HMAC-SHA256 (RFC 2104) of data under key, built on SHA-256 with ctx (the
 * caller's): EVP_MAC_init fetched the digest by name on every call, a third
 * of a signature's cost. out may be key. */
static int hmac(EVP_MD_CTX *ctx, unsigned char out[32], const void *key, size_t keylen,
                const char *data)
{
    const EVP_MD *sha = ddb_sigv4_sha256_md();
    unsigned char k[64], pad[64], inner[32];
    unsigned int n = 0;
    int ok = sha != NULL;

    memset(k, 0, sizeof(k));
    if (keylen > sizeof(k))
        ok = ok && EVP_Digest(key, keylen, k, &n, sha, NULL); /* a long key is hashed */
    else
        memcpy(k, key, keylen);
    for (size_t i = 0; i < sizeof(pad); i++)
        pad[i] = k[i] ^ 0x36;
    ok = ok && EVP_DigestInit_ex(ctx, sha, NULL) && EVP_DigestUpdate(ctx, pad, sizeof(pad)) &&
         EVP_DigestUpdate(ctx, data, strlen(data)) && EVP_DigestFinal_ex(ctx, inner, &n) && n == 32;
    for (size_t i = 0; i < sizeof(pad); i++)
        pad[i] = k[i] ^ 0x5c;
    ok = ok && EVP_DigestInit_ex(ctx, sha, NULL) && EVP_DigestUpdate(ctx, pad, sizeof(pad)) &&
         EVP_DigestUpdate(ctx, inner, sizeof(inner)) && EVP_DigestFinal_ex(ctx, out, &n) && n == 32;
    OPENSSL_cleanse(k, sizeof(k));
    OPENSSL_cleanse(pad, sizeof(pad));
    OPENSSL_cleanse(inner, sizeof(inner));
    return ok ? 0 : DDB_ERROR;
}

/* kSigning depends only on the secret, the day, the region and the service:
 * derived once (four HMACs) and kept for the requests that share them. The
 * secret itself is not kept, only its SHA-256, to tell a rotated secret. */
static struct {
    pthread_mutex_t mu;
    unsigned char secret_hash[32];
    char scope[160]; /* date8/region/service */
    unsigned char key[32];
    int valid;
} g_key = {PTHREAD_MUTEX_INITIALIZER, {0}, {0}, {0}, 0};

static int derive_key(unsigned char k[32], EVP_MD_CTX *ctx, const ddb_sigv4_request *req,
                      const char *date8)
{
    size_t slen = strlen(req->secret_access_key);
    unsigned char sh[32];
    char scope[160];
    unsigned int shlen = 0;
    char *k0 = NULL;
    int rc = DDB_ERROR, n;

    n = snprintf(scope, sizeof(scope), "%s/%s/%s", date8, req->region, req->service);
    if (n < 0 || (size_t)n >= sizeof(scope) ||
        !EVP_DigestInit_ex(ctx, ddb_sigv4_sha256_md(), NULL) ||
        !EVP_DigestUpdate(ctx, req->secret_access_key, slen) ||
        !EVP_DigestFinal_ex(ctx, sh, &shlen))
        return DDB_ERROR;
    pthread_mutex_lock(&g_key.mu);
    if (g_key.valid && memcmp(g_key.secret_hash, sh, 32) == 0 && strcmp(g_key.scope, scope) == 0) {
        memcpy(k, g_key.key, 32);
        pthread_mutex_unlock(&g_key.mu);
        OPENSSL_cleanse(sh, sizeof(sh));
        return 0;
    }
    pthread_mutex_unlock(&g_key.mu);
    if ((k0 = malloc(slen + 5)) == NULL)
        return DDB_ENOMEM;
    memcpy(k0, "AWS4", 4);
    memcpy(k0 + 4, req->secret_access_key, slen + 1);
    if (hmac(ctx, k, k0, slen + 4, date8) || hmac(ctx, k, k, 32, req->region) ||
        hmac(ctx, k, k, 32, req->service) || hmac(ctx, k, k, 32, "aws4_request"))
        goto done;
    pthread_mutex_lock(&g_key.mu);
    memcpy(g_key.secret_hash, sh, 32);
    memcpy(g_key.scope, scope, (size_t)n + 1);
    memcpy(g_key.key, k, 32);
    g_key.valid = 1;
    pthread_mutex_unlock(&g_key.mu);
    rc = 0;
done:
    OPENSSL_cleanse(k0, slen + 5);
    free(k0);
    OPENSSL_cleanse(sh, sizeof(sh));
    return rc;
}

/* signature = HMAC(kSigning, string_to_sign), with kSigning derived from the
 * secret through date, region, service and "aws4_request". */
int ddb_sigv4_compute_signature(char out[65], const ddb_sigv4_request *req, const char *amz_date,
                                const char *string_to_sign, ddb_error *err)
{
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int rc;
    if (ctx == NULL)
        return ddb_error_set(err, DDB_ERROR, "SigV4: HMAC-SHA256 failed in OpenSSL");
    rc = ddb_sigv4_signature_with(out, ctx, req, amz_date, string_to_sign, err);
    EVP_MD_CTX_free(ctx);
    return rc;
}

int ddb_sigv4_signature_with(char out[65], EVP_MD_CTX *ctx, const ddb_sigv4_request *req,
                             const char *amz_date, const char *string_to_sign, ddb_error *err)
{
    unsigned char k[32], sig[32];
    char date8[9];
    int rc = DDB_ERROR;

    memcpy(date8, amz_date, 8);
    date8[8] = '\0';
    if ((rc = derive_key(k, ctx, req, date8)) != 0) {
        rc = rc == DDB_ENOMEM
                 ? ddb_error_set(err, DDB_ENOMEM, "SigV4: out of memory")
                 : ddb_error_set(err, DDB_ERROR, "SigV4: HMAC-SHA256 failed in OpenSSL");
        goto done;
    }
    if (hmac(ctx, sig, k, 32, string_to_sign)) {
        rc = ddb_error_set(err, DDB_ERROR, "SigV4: HMAC-SHA256 failed in OpenSSL");
        goto done;
    }
    ddb_hex_encode(out, sig, 32);
    out[64] = '\0';
    rc = 0;
done:
    OPENSSL_cleanse(k, sizeof(k));
    return rc;
}
