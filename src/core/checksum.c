/*
 * Checksums as export manifests and checksum files write them (MD5 or
 * SHA-256, in base64 or hex), computed with OpenSSL.
 */
#include "ddbpipe/checksum.h"

#include <ctype.h>
#include <openssl/evp.h>
#include <string.h>

#ifdef DDB_HAVE_ISAL
#include <isa-l/crc.h>
#else
#include <zlib.h>
#endif

#include "ddbpipe/codec.h"

uint32_t ddb_crc32(const void *data, size_t n)
{
#ifdef DDB_HAVE_ISAL
    return crc32_gzip_refl(0, (const unsigned char *)data, (uint64_t)n);
#else
    uLong crc = 0;
    const unsigned char *p = data;
    while (n > 0) { /* zlib takes an unsigned int length */
        uInt k = n > 0x40000000u ? 0x40000000u : (uInt)n;
        crc = crc32(crc, p, k);
        p += k;
        n -= k;
    }
    return (uint32_t)crc;
#endif
}

const char *ddb_digest_algo_name(ddb_digest_algo algo)
{
    return algo == DDB_DIGEST_SHA256 ? "SHA-256" : "MD5";
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = tolower(c);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

int ddb_checksum_parse(ddb_checksum *out, const char *text, size_t len, ddb_error *err)
{
    size_t i = 0, n = 0, k;
    const char *tok;
    int all_hex = 1;

    memset(out, 0, sizeof(*out));
    while (i < len && isspace((unsigned char)text[i]))
        i++;
    tok = text + i;
    while (i + n < len && !isspace((unsigned char)tok[n]))
        n++;
    if (n == 0)
        return ddb_error_set(err, DDB_EINVAL, "empty checksum");
    for (k = 0; k < n; k++)
        all_hex &= hexval((unsigned char)tok[k]) >= 0;
    if (all_hex && (n == 32 || n == 64)) {
        for (k = 0; k < n / 2; k++)
            out->bytes[k] = (unsigned char)(hexval((unsigned char)tok[2 * k]) * 16 +
                                            hexval((unsigned char)tok[2 * k + 1]));
        out->len = n / 2;
        out->hex = 1;
    } else {
        unsigned char buf[48];
        size_t got, bad;
        if (n > 44 || n % 4 != 0 || ddb_base64_decode(buf, &got, tok, n, &bad) != 0 ||
            (got != 16 && got != 32))
            return ddb_error_set(err, DDB_EINVAL,
                                 "\"%.*s\" is neither base64 nor hex of an MD5 (16 bytes) or a "
                                 "SHA-256 (32 bytes)",
                                 (int)(n > 80 ? 80 : n), tok);
        memcpy(out->bytes, buf, got);
        out->len = got;
    }
    out->algo = out->len == 16 ? DDB_DIGEST_MD5 : DDB_DIGEST_SHA256;
    return 0;
}

int ddb_checksum_compute(unsigned char *digest, ddb_digest_algo algo, const void *data, size_t n)
{
    const EVP_MD *md = algo == DDB_DIGEST_SHA256 ? EVP_sha256() : EVP_md5();
    return EVP_Digest(data, n, digest, NULL, md, NULL) == 1 ? 0 : DDB_ERROR;
}

void ddb_checksum_format(char out[DDB_CHECKSUM_TEXT_MAX], const ddb_checksum *like,
                         const unsigned char *digest)
{
    size_t n;
    if (like->hex) {
        ddb_hex_encode(out, digest, like->len);
        n = 2 * like->len;
    } else {
        n = ddb_base64_encode(out, digest, like->len);
    }
    out[n] = '\0';
}
