#!/usr/bin/env bash
# The NULL that ends a variadic list of strings (sigv4.c's cat) must be a pointer: where NULL is
# a plain 0, an int, va_arg reads a pointer that was never passed. Here sigv4.c is compiled as on
# such a system (every header it includes comes first, then NULL is redefined as 0); cat's
# sentinel attribute makes the compiler refuse a bare NULL. A copy with one bare NULL put back
# shows that the check bites.
. "$(dirname "$0")/lib.bash"

cc=${CC:-cc}
src=$root/src/aws/sigv4.c

# compile FILE: syntax only, NULL an int, warnings (a missing or non-pointer sentinel) errors
compile() {
    { grep '^#include' "$1"; printf '#undef NULL\n#define NULL 0\n'; } >"$tmp/int_null.h"
    "$cc" -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -fsyntax-only -Wformat -Werror \
        -I"$root/include" -I"$root/src" -include "$tmp/int_null.h" "$1"
}

check as_it_is 0 compile "$src"

sed '0,/(const char \*)NULL)/s//NULL)/' "$src" >"$tmp/sigv4.c"
cmp -s "$src" "$tmp/sigv4.c" && fail "no (const char *)NULL) in $src to put a bare NULL for"
check bare_null 1 compile "$tmp/sigv4.c"
expect_in "$tmp/stderr" "sentinel"

finish
