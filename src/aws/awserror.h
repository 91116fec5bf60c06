/*
 * awserror.h (private header of aws/, used by net/ and write/) — how AWS's
 * services say what went wrong, and what a caller does about it: the error
 * bodies (JSON for DynamoDB and STS's JSON protocol, XML for S3), which
 * errors are throttling or the service's own fault, and the full-jitter
 * backoff before trying again. The DynamoDB client, the table writer and the
 * credential calls all follow these rules.
 */
#ifndef DDBPIPE_AWS_AWSERROR_H
#define DDBPIPE_AWS_AWSERROR_H

#include <stddef.h>
#include <stdint.h>

/* Is an error type (the part after '#') a retryable failure on the
 * service's side (InternalServerError, ServiceUnavailable, InternalFailure)? */
int ddb_error_is_server_side(const char *error_type);

/* Full-jitter backoff for attempt n (1-based): a random delay in
 * [0, min(cap, base * 2^n)) milliseconds. */
uint32_t ddb_backoff_ms(uint64_t *rng_state, int attempt, uint32_t base_ms, uint32_t cap_ms);

/* Is an error type (the part after '#') retryable throttling? */
int ddb_error_is_throttling(const char *error_type);

/* Parses a DynamoDB error body ({"__type":"...#Type","message":"..."} or
 * "Message") into type and message; header_type is X-Amzn-Errortype when sent
 * (it wins, up to its first ':'). */
void ddb_parse_error_body(const char *body, size_t len, const char *header_type, char *type,
                          size_t type_cap, char *message, size_t message_cap);

/* Parses an S3-style XML error (<Error><Code>..</Code><Message>..</Message>)
 * into type and message. Returns 1 when the body was such an error. */
int ddb_parse_xml_error(const char *body, size_t len, char *type, size_t type_cap, char *message,
                        size_t message_cap);

/* The text of the first <tag>...</tag> in [p, end) (an element written
 * without attributes), still encoded: its start, *len its length; NULL when
 * there is none. */
const char *ddb_xml_find(const char *p, const char *end, const char *tag, size_t *len);

/* XML text [p, p + len) decoded into out (cap > 0 bytes, NUL-terminated, cut
 * to fit): the five predefined entities, and character references (&#13;,
 * &#x0D;) as UTF-8; anything else, a malformed reference or &#0; among them,
 * is kept as written. Decoding never lengthens the text, so a cap of len + 1
 * always holds it all. Returns the length written. */
size_t ddb_xml_decode(char *out, size_t cap, const char *p, size_t len);

/* Turns the control bytes of a decoded message (a &#13;&#10; in it) into spaces, so that a
 * service's words stay one line of ddbpipe's message. */
void ddb_xml_one_line(char *s);

#endif
