#!/usr/bin/env bash
# DynamoDB's gzip answers: the fault server in front of dynalite answers as DynamoDB does a
# client that sends Accept-Encoding: gzip (--gzip-over: a body over 1 KB gzipped, x-amz-crc32 of
# the gzipped bytes). A Scan export of 4,000 items comes through whole, in far fewer bytes, asked
# for and decoded by the tool (not by libcurl); a bad CRC on a gzipped page is sent for again; with
# DDBPIPE_NO_GZIP=1 nothing is asked and nothing comes gzipped.
. "$(dirname "$0")/lib.bash"
fav="$root/formats/favorites.json"

echo '[{"kind": "badcrc", "op": "Scan", "first": 1, "id": "badcrc-scan"}]' >"$tmp/faults.json"
node "$root/tests/fault-server/fault-server.js" --upstream "$endpoint" --port-file "$tmp/fport" \
    --gzip-over 1024 --script "$tmp/faults.json" --owner-pid $$ --quiet >"$tmp/fault.log" 2>&1 &
fault_pid=$!
for _ in $(seq 1 100); do [ -s "$tmp/fport" ] && break; sleep 0.1; done
F=(--endpoint-url "http://127.0.0.1:$(cat "$tmp/fport")")
# stat PATH: a number from the fault server's stats, by its dotted path
stat() {
    curl -s "http://127.0.0.1:$(cat "$tmp/fport")/__stats" | node -e "let s='';
        process.stdin.on('data', d => s += d).on('end', () =>
            console.log(process.argv[1].split('.').reduce((o, k) => (o || {})[k], JSON.parse(s)) ?? 0))" "$1"
}

for k in $(seq 1 4000); do
    printf '{"Item":{"pk":{"S":"Tag#user%d"},"sk":{"S":"tag%03d"},"tagName":{"S":"tag %d of a user with a name that repeats itself, as real attribute values do"},"createTime":{"N":"16300615%05d"}}}\n' \
        $((k / 9)) $((k % 9)) "$k" "$k"
done >"$tmp/items.json"
run create 0 "$bin" create-table --mapping "$fav" --table gzipped --endpoint-url "$endpoint"
run import 0 "$bin" import "$tmp/items.json" --table gzipped "${F[@]}" --summary "$tmp/import.json"
[ "$(summary_total "$tmp/import.json" written)" = 4000 ] || fail "import: 4000 written expected"

# -- gzipped Scan pages, the first with a bad CRC (sent for again) ----------------------------
before=$(stat gzipped.responses)
run scan 0 "$bin" export --table gzipped --segments 2 --format ddb-json --out "$tmp/scan" "${F[@]}" \
    --verbose
same_items scan "$tmp/items.json" -- "$tmp/scan/items.json"
[ "$(stat gzipped.responses)" -gt "$before" ] || fail "scan: no answer came gzipped"
[ "$(stat faults.badcrc)" = 1 ] || fail "scan: the bad CRC was not injected ($(stat faults.badcrc))"
expect_in "$tmp/scan.err" "CRC32Mismatch"
expect_in "$tmp/scan.err" "DynamoDB's answers came gzipped: "
in=$(stat gzipped.bytesIn) out=$(stat gzipped.bytesOut)
[ "$out" -gt 0 ] && [ $((out * 3)) -lt "$in" ] ||
    fail "gzip: $in bytes of JSON should come in well under a third ($out)"

# -- DDBPIPE_NO_GZIP=1: not asked, so nothing comes gzipped ----------------------------------
before=$(stat gzipped.responses)
run scan-plain 0 env DDBPIPE_NO_GZIP=1 "$bin" export --table gzipped --format ddb-json \
    --out "$tmp/scan-plain" "${F[@]}"
same_items scan-plain "$tmp/items.json" -- "$tmp/scan-plain/items.json"
[ "$(stat gzipped.responses)" = "$before" ] || fail "scan-plain: an answer came gzipped"
! grep -q "came gzipped" "$tmp/scan-plain.err" || fail "scan-plain: the summary speaks of gzip"

finish
