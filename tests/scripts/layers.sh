#!/usr/bin/env bash
# scripts/check-layers.sh finds what it is there to find: on a copy of the tree, an include that
# goes up a layer, a header included without its folder, a public header no folder owns and a
# source file left directly in src/ are each reported (exit 1), and the tree as it is passes.
. "$(dirname "$0")/lib.bash"

copy() {
    rm -rf "$tmp/t" && mkdir -p "$tmp/t" && cp -r "$root/CMakeLists.txt" "$root/src" "$root/include" \
        "$root/scripts" "$tmp/t/"
}
copy
check clean 0 bash "$tmp/t/scripts/check-layers.sh" "$tmp/t"
expect_in "$tmp/stdout" "no upward include"

# core/ reaching up to the DynamoDB client (net/)
sed -i '1i #include "net/client_impl.h"' "$tmp/t/src/core/buf.c"
check upward 1 bash "$tmp/t/scripts/check-layers.sh" "$tmp/t"
expect_in "$tmp/stdout" "src/core/buf.c:1: includes net/client_impl.h of net/, above core/"

# a public header of a higher layer, through include/ddbpipe
copy
sed -i '1i #include "ddbpipe/pipeline.h"' "$tmp/t/src/read/reader.c"
check upward_public 1 bash "$tmp/t/scripts/check-layers.sh" "$tmp/t"
expect_in "$tmp/stdout" "src/read/reader.c:1: includes ddbpipe/pipeline.h of run/, above read/"

# a public header including one above its owner
copy
sed -i '0,/#include "ddbpipe\/error.h"/s//#include "ddbpipe\/error.h"\n#include "ddbpipe\/table.h"/' \
    "$tmp/t/include/ddbpipe/value.h"
check upward_header 1 bash "$tmp/t/scripts/check-layers.sh" "$tmp/t"
expect_in "$tmp/stdout" "include/ddbpipe/value.h"

# a private header of another folder named without its folder
copy
sed -i '1i #include "client_impl.h"' "$tmp/t/src/s3/s3.c"
check bare 1 bash "$tmp/t/scripts/check-layers.sh" "$tmp/t"
expect_in "$tmp/stdout" "name its folder"

# a public header nobody implements, and a file left in src/
copy
printf '#ifndef X\n#define X\n#endif\n' >"$tmp/t/include/ddbpipe/orphan.h"
: >"$tmp/t/src/stray.c"
check orphan 1 bash "$tmp/t/scripts/check-layers.sh" "$tmp/t"
expect_in "$tmp/stdout" "include/ddbpipe/orphan.h: no folder owns it"
expect_in "$tmp/stdout" "src/stray.c: a source file outside the layer folders"

finish
