#!/usr/bin/env bash
# The shipped seed mappings read what the seeds' own code writes, byte for byte: items written
# by tests/seeds/seed-writers.js (the seeds' DTOs, KeyGenerator and converters, transliterated)
# decode with no reject and no unmatched item into every entity, encode back to exactly the
# same items through CSV, NDJSON and DynamoDB JSON records, and validate finds nothing to say.
# The favorites table also survives favorites -> favorites-v2 -> favorites unchanged.
set -u
bin=$1
root=${DDB_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
same() { node "$root/tests/seeds/same-items.js" "$@" || fail "items differ: $*"; }
field() { # summary.json key -> value of "total"
    node -e 'const s=require(process.argv[1]);console.log(s.total[process.argv[2]])' "$1" "$2"
}

for pair in favorites:favorites facility:facility-capacity movies:movies; do
    design=${pair%%:*} mapping="$root/formats/${pair#*:}.json"
    node "$root/tests/seeds/seed-writers.js" "$design" 600 7 >"$tmp/$design.json" ||
        { fail "$design: seed writer"; continue; }
    n=$(wc -l <"$tmp/$design.json")
    for fmt in csv ndjson ddb-json; do
        out="$tmp/$design-$fmt"
        "$bin" export "$tmp/$design.json" --mapping "$mapping" --format "$fmt" --out "$out/rec" \
            --summary "$out.summary.json" --quiet 2>"$out.err" || { fail "$design $fmt: export"; cat "$out.err" >&2; continue; }
        [ "$(field "$out.summary.json" written)" = "$n" ] ||
            fail "$design $fmt: $(field "$out.summary.json" written) of $n items decoded"
        [ ! -e "$out/rec/_ddbpipe/unmatched.ndjson" ] || fail "$design $fmt: unmatched items"
        node -e 'const s=require(process.argv[1]);for(const e of s.entities)if(e.name!=="(none)"&&e.written===0)process.exit(1)' \
            "$out.summary.json" || fail "$design $fmt: an entity has no records"
        "$bin" encode "$out"/rec/[A-Z]* --mapping "$mapping" --out "$out/items" --quiet 2>>"$out.err" ||
            fail "$design $fmt: encode"
        same "$tmp/$design.json" -- "$out"/items/*.json
    done
    "$bin" validate "$tmp/$design.json" --mapping "$mapping" --quiet >"$tmp/$design.val" 2>&1 ||
        { fail "$design: validate"; cat "$tmp/$design.val" >&2; }
done

# the seed table through our own re-keyed layout and back
f1="$root/formats/favorites.json" f2="$root/formats/favorites-v2.json"
"$bin" convert "$tmp/favorites.json" --mapping "$f1" --to-mapping "$f2" --out "$tmp/v2" --quiet ||
    fail "convert to v2"
"$bin" convert "$tmp"/v2/[A-Z]*.json --mapping "$f2" --to-mapping "$f1" --out "$tmp/v1" --quiet ||
    fail "convert back"
same "$tmp/favorites.json" -- "$tmp"/v1/*.json

[ "$failures" -eq 0 ] || { echo "seeds.sh: $failures failure(s)" >&2; exit 1; }
echo "seeds.sh: ok"
