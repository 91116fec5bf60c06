#!/usr/bin/env bash
# The public samples (tests/golden/cases/public-*, each with its NOTICE): ddbpipe reads each one
# exactly as an independent decoder (tests/golden/decode-public.js, node, sharing no code with
# ddbpipe) reads it; every one survives a CSV round trip without a mapping; and a mapping drafted
# from each NoSQL Workbench model decodes and encodes the model's own items back exactly.
set -u
bin=$1
root=${DDB_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
cases="$root/tests/golden/cases"
decode="$root/tests/golden/decode-public.js"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
runs=0
fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}

# ddbpipe's items.json / deletes.json in $1 as the decoder prints them.
ddbpipe_items() { node "$root/tests/golden/canon-items.js" --dir "$1"; }

# case, decoder kind, input (in the case folder), extra decoder args, extra ddbpipe args
sample() {
    local name=$1 kind=$2 input=$3 dargs=$4 pargs=$5
    local dir="$cases/$name" out="$tmp/run$((++runs))"
    [ -e "$dir/$input" ] || { fail "$name: no $input"; return; }
    [ -f "$dir/NOTICE" ] || fail "$name: no NOTICE (source and licence) beside the sample"
    # shellcheck disable=SC2086
    node "$decode" "$kind" "$dir/$input" $dargs >"$tmp/$name.want" || { fail "$name: decoder"; return; }
    [ -s "$tmp/$name.want" ] || fail "$name: the decoder found nothing"
    # shellcheck disable=SC2086
    (cd "$dir" && "$bin" export "$input" --out "$out" --format ddb-json --max-rejects 100 --quiet \
        $pargs 2>"$tmp/$name.err") || { fail "$name: export"; cat "$tmp/$name.err" >&2; return; }
    ddbpipe_items "$out" >"$tmp/$name.got"
    if ! cmp -s "$tmp/$name.want" "$tmp/$name.got"; then
        fail "$name: ddbpipe and the independent decoder disagree"
        diff "$tmp/$name.want" "$tmp/$name.got" | head -6 >&2
    fi
    # CSV without a mapping reads back to the same items (puts only: deletes are keys)
    # shellcheck disable=SC2086
    (cd "$dir" && "$bin" export "$input" --out "$out.csv" --format csv --max-rejects 100 --quiet \
        $pargs 2>/dev/null)
    "$bin" export "$out.csv/items.csv" --out "$out.back" --format ddb-json --quiet 2>"$tmp/$name.err" ||
        { fail "$name: reading its CSV back"; cat "$tmp/$name.err" >&2; }
    ddbpipe_items "$out.back" >"$out.backitems"
    grep '^put ' "$tmp/$name.want" >"$out.wantputs"
    cmp -s "$out.wantputs" "$out.backitems" || {
        fail "$name: the CSV does not read back to the same items"
        diff "$out.wantputs" "$out.backitems" | head -6 >&2
    }
    echo "  $name: $(wc -l <"$tmp/$name.want") items, read exactly"
}

sample public-moviedata-array array moviedata.json "" ""
sample public-productcatalog-batchwrite batch ProductCatalog.json "" ""
sample public-awscli-request-items batch request-items.json "" ""
sample public-dynein-batch-tables batch batch.json "" ""
sample public-dynein-batch-tables batch batch.json "--table __TABLE_NAME__2" "--input-table __TABLE_NAME__2"
sample public-awscli-get-item get-item get-item-output.json "" ""
sample public-workbench-shop workbench AnOnlineShop.json "" ""
sample public-workbench-devicelog workbench DeviceStateLog.json "" ""
sample public-dynamodump dynamodump dump "" ""
sample public-productcatalog-csv-noheader csv products.txt \
    "--columns Id:N,Title,ProductCategory,Price:N,Brand,BicycleType --allow-short-rows" \
    "--columns Id:N,Title,ProductCategory,Price:N,Brand,BicycleType --allow-short-rows"

# Mappings drafted from the Workbench models decode and encode their items back exactly.
draft() { # case, model, a template the draft must hold
    local dir="$cases/$1" m="$tmp/$1.mapping.json"
    "$bin" mapping-from-workbench "$dir/$2" --out "$m" 2>"$tmp/$1.notes" || { fail "$1: draft"; return; }
    grep -q "decode and encode back exactly$" "$tmp/$1.notes" || {
        fail "$1: the draft does not read every sample item back exactly"
        cat "$tmp/$1.notes" >&2
    }
    grep -qF -- "$3" "$m" || fail "$1: the draft lacks $3"
    "$bin" validate "$dir/$2" --mapping "$m" --quiet 2>"$tmp/$1.val" ||
        { fail "$1: validate with the draft"; cat "$tmp/$1.val" >&2; }
    grep -q " 0 rejected, 0 unmatched" "$tmp/$1.val" || { fail "$1: validate"; cat "$tmp/$1.val" >&2; }
}
draft public-workbench-shop AnOnlineShop.json '"PK": "c#{customerId}"'
draft public-workbench-devicelog DeviceStateLog.json '"State#Date": "{State}#{Date}"'

if [ "$failures" -gt 0 ]; then
    echo "public_samples.sh: $failures failure(s)" >&2
    exit 1
fi
echo "public_samples.sh: ok"
