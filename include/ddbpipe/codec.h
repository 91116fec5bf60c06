/*
 * codec.h — byte-level encodings used at the edges: base64, UTF-8, hex.
 */
#ifndef DDBPIPE_CODEC_H
#define DDBPIPE_CODEC_H

#include <stddef.h>
#include <stdint.h>

/* Length of the base64 text (with padding) for n bytes. */
size_t ddb_base64_encoded_len(size_t n);

/* Encodes n bytes as standard base64 with padding into out (room for
 * ddb_base64_encoded_len(n) bytes; no NUL written). Returns bytes written. */
size_t ddb_base64_encode(char *out, const unsigned char *in, size_t n);

/* Decodes strict standard base64 (padding required when the length is not a
 * multiple of 4, no whitespace, no URL alphabet). out needs room for
 * (len / 4) * 3 bytes. Returns 0 and sets *out_len, or -1 on invalid input
 * with *bad_at set to the offending character index. */
int ddb_base64_decode(unsigned char *out, size_t *out_len, const char *in, size_t len,
                      size_t *bad_at);

/* Returns 1 when s[0..len) is well-formed UTF-8 (no overlongs, no surrogates,
 * nothing above U+10FFFF); otherwise 0 and *bad_at is the first bad byte. */
int ddb_utf8_valid(const char *s, size_t len, size_t *bad_at);

/* Encodes code point cp as UTF-8 into out (4 bytes room). Returns bytes written
 * (0 for an invalid code point). */
size_t ddb_utf8_encode(char *out, uint32_t cp);

/* Lower-case hex of n bytes into out (2n bytes, no NUL). */
void ddb_hex_encode(char *out, const unsigned char *in, size_t n);

#endif
