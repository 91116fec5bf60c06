#!/usr/bin/env bash
# encode(decode(item)) == item for every item of every sample, through each record format:
# export with the mapping (CSV, NDJSON, DynamoDB JSON records), encode the records again, and
# compare with the items themselves (read without a mapping); unmatched items come back
# verbatim from _ddbpipe/unmatched.ndjson. Also: convert to the v2 layout and back gives the same items.
set -u
bin=$1
root=${DDB_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
canon="$(dirname "$bin")/ddbpipe-canon"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

same() { # name fileA -- files B...
    local name=$1 a=$2
    shift 3
    "$canon" "$a" | LC_ALL=C sort >"$tmp/$name.a"
    "$canon" "$@" | LC_ALL=C sort >"$tmp/$name.b"
    cmp -s "$tmp/$name.a" "$tmp/$name.b" || {
        fail "$name: $(wc -l <"$tmp/$name.a") items vs $(wc -l <"$tmp/$name.b") after the round trip"
        diff "$tmp/$name.a" "$tmp/$name.b" | head -4 | cut -c1-300 >&2
    }
}

for design in favorites movies facility-capacity; do
    m="$root/formats/$design.json"
    src="$root/samples/$design/export"
    # the items as they are (invalid lines rejected, nothing decoded)
    "$bin" export "$src" --format ddb-json --out "$tmp/$design-items" --max-rejects 100 2>/dev/null ||
        fail "$design: reading the items"
    # an empty sort key is only invalid against the table's key schema, i.e. with the mapping
    grep -v -e '"sk":{"S":""}' -e '"moment":{"S":""}' "$tmp/$design-items/items.json" >"$tmp/$design-valid.json"
    for fmt in csv ndjson ddb-json; do
        out="$tmp/$design-$fmt"
        "$bin" export "$src" --mapping "$m" --format "$fmt" --out "$out/rec" --max-rejects 100 \
            2>"$out.err" || { fail "$design $fmt: export"; continue; }
        "$bin" encode "$out"/rec/[A-Z]* --mapping "$m" --out "$out/items" 2>>"$out.err" ||
            fail "$design $fmt: encode"
        same "$design-$fmt" "$tmp/$design-valid.json" -- "$out"/items/*.json \
            "$out/rec/_ddbpipe/unmatched.ndjson"
    done
    # validate finds no item that would change when encoded again
    "$bin" validate "$src" --mapping "$m" 2>"$tmp/$design.val"
    grep -q "re-encoding would" "$tmp/$design.val" && fail "$design: validate reports re-encoding changes"
done

# favorites -> v2 -> favorites gives back the favorites items
f1="$root/formats/favorites.json" f2="$root/formats/favorites-v2.json"
"$bin" convert "$root/samples/favorites/export" --mapping "$f1" --to-mapping "$f2" --out "$tmp/v2" \
    --max-rejects 100 2>/dev/null || fail "convert to v2"
"$bin" convert "$tmp"/v2/[A-Z]*.json --mapping "$f2" --to-mapping "$f1" --out "$tmp/v1" 2>/dev/null ||
    fail "convert back"
"$bin" export "$root/samples/favorites/export" --mapping "$f1" --format ddb-json --out "$tmp/fav-rec" \
    --max-rejects 100 2>/dev/null
"$bin" encode "$tmp"/fav-rec/[A-Z]*.json --mapping "$f1" --out "$tmp/fav-matched" 2>/dev/null
same favorites-v2-roundtrip "$tmp/fav-matched/Tag.json" -- "$tmp/v1/Tag.json"
cat "$tmp"/fav-matched/*.json >"$tmp/fav-all.json"
same favorites-v2-roundtrip-all "$tmp/fav-all.json" -- "$tmp"/v1/*.json

[ "$failures" -eq 0 ] || { echo "roundtrip.sh: $failures failure(s)" >&2; exit 1; }
echo "roundtrip.sh: ok"
