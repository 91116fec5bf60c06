/*
 * JSON writers: DynamoDB JSON (typed) and plain JSON, appended to a ddb_buf.
 * Appenders record allocation failure in the buffer (b->oom), so callers
 * check once per line instead of after every fragment. The writers are
 * json_write_tpl.h's, made twice: as JSON, and with its quotes doubled for
 * a CSV cell (the _dq functions of json.h).
 */
#include "ddbpipe/json.h"

#include <assert.h>
#include <string.h>

#include "ddbpipe/codec.h"
#include "ddbpipe/number.h"
#include "core/swar.h"

/* Bytes that need an escape in a JSON string: control characters, '"' and '\\'. */
static const unsigned char needs_escape[256] = {
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0,
};

#define JW_DQ 0
#define JW(name) name
#define JW_Q "\""
#define JW_QLEN 1
#include "json/json_write_tpl.h"
#undef JW_DQ
#undef JW
#undef JW_Q
#undef JW_QLEN

#define JW_DQ 1
#define JW(name) name##_dq
#define JW_Q "\"\""
#define JW_QLEN 2
#include "json/json_write_tpl.h"
#undef JW_DQ
#undef JW
#undef JW_Q
#undef JW_QLEN

int ddb_json_put_text(ddb_buf *b, const char *s, size_t len)
{
    size_t bad = 0;
    ddb_buf_putc(b, '"');
    while (!ddb_utf8_valid(s, len, &bad)) {
        put_escaped(b, s, bad);
        ddb_buf_puts(b, "\\ufffd");
        s += bad + 1;
        len -= bad + 1;
    }
    put_escaped(b, s, len);
    ddb_buf_putc(b, '"');
    return b->oom ? DDB_ENOMEM : 0;
}
