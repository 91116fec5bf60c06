/*
 * checksum.h — the checksums of export manifests and checksum files: an MD5
 * or SHA-256 digest written in base64 or hex, parsed, computed and formatted
 * the way the file wrote it.
 */
#ifndef DDBPIPE_CHECKSUM_H
#define DDBPIPE_CHECKSUM_H

#include <stddef.h>
#include <stdint.h>

#include "ddbpipe/error.h"

typedef enum ddb_digest_algo { DDB_DIGEST_MD5 = 1, DDB_DIGEST_SHA256 } ddb_digest_algo;

/* A checksum as written in a checksum file or a manifest field. */
typedef struct ddb_checksum {
    ddb_digest_algo algo; /* told apart by the decoded length: 16 or 32 bytes */
    int hex;              /* written in hex (else base64) */
    unsigned char bytes[32];
    size_t len;
} ddb_checksum;

/* Room for a formatted digest: 64 hex digits + NUL. */
#define DDB_CHECKSUM_TEXT_MAX 65

/*
 * Parses base64 or hex of an MD5 or SHA-256. Whitespace around it is ignored,
 * and so is anything after the first blank ("<hash>  <file name>", as md5sum
 * writes). Returns 0, or DDB_EINVAL saying why when the text is none of these.
 */
int ddb_checksum_parse(ddb_checksum *out, const char *text, size_t len, ddb_error *err);

/* The digest of data (algo's length), computed with OpenSSL. Returns 0 or DDB_ERROR. */
int ddb_checksum_compute(unsigned char *digest, ddb_digest_algo algo, const void *data, size_t n);

/* Writes digest (like->len bytes) NUL-terminated into out, encoded as like is
 * (hex or base64), so a message shows both values the same way. */
void ddb_checksum_format(char out[DDB_CHECKSUM_TEXT_MAX], const ddb_checksum *like,
                         const unsigned char *digest);

/* The CRC-32 (IEEE, as gzip and zlib's crc32() compute it) of data: what
 * DynamoDB sends in x-amz-crc32. ISA-L's folding CRC where it is built in. */
uint32_t ddb_crc32(const void *data, size_t n);

/* Short name of an algorithm: "MD5", "SHA-256". */
const char *ddb_digest_algo_name(ddb_digest_algo algo);

#endif
