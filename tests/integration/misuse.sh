#!/usr/bin/env bash
# Hard to misuse: a mapping that does not describe its table stops the run before the first
# request (or only warns with --ignore-schema-mismatch); create-table --if-not-exists fails for an
# existing table that differs; --table defaults to the mapping's table; a dry run fails on a
# missing table as the real run would; every record unmatched exits 6; a missing table is exit 2
# for every command; describe shows index projections.
. "$(dirname "$0")/lib.bash"
E=(--endpoint-url "$endpoint")
fav="$root/formats/favorites.json" fac="$root/formats/facility-capacity.json"
node "$root/tests/seeds/seed-writers.js" favorites 60 5 >"$tmp/fav.json"
node "$root/tests/seeds/seed-writers.js" facility 40 5 >"$tmp/fac.json"
node "$root/tests/seeds/seed-writers.js" movies 40 5 >"$tmp/mov.json"

run create-fac 0 "$bin" create-table --mapping "$fac" "${E[@]}"
run create-fav 0 "$bin" create-table --mapping "$fav" "${E[@]}"

# the wrong mapping for a table: nothing is read or written
run wrong-import 2 "$bin" import "$tmp/fav.json" --mapping "$fav" --table facility-capacity "${E[@]}"
grep -q "table facility-capacity does not match .*favorites.json: the table's partition key is facilityId (S), the mapping's pk (S)" \
    "$tmp/wrong-import.err" || fail "wrong-import message: $(head -2 "$tmp/wrong-import.err")"
# the table is there: creating it is not the way out
grep -q "^hint: give the mapping that describes that table" "$tmp/wrong-import.err" &&
    ! grep -q "create-table" "$tmp/wrong-import.err" || fail "wrong-import hint: $(grep hint: "$tmp/wrong-import.err")"
run wrong-export 2 "$bin" export --table facility-capacity --mapping "$fav" --out "$tmp/we" "${E[@]}"
grep -q "does not match" "$tmp/wrong-export.err" || fail "wrong-export message"
[ ! -e "$tmp/we" ] || [ -z "$(ls -A "$tmp/we")" ] || fail "wrong-export wrote files"
run wrong-migrate 2 "$bin" migrate --table develop.Favorite --mapping "$fac" --to-table facility-capacity \
    --to-mapping "$fac" "${E[@]}"
grep -q "table develop.Favorite does not match" "$tmp/wrong-migrate.err" || fail "wrong-migrate message"
run ignored 0 "$bin" export --table facility-capacity --mapping "$fac" --out "$tmp/ok" "${E[@]}" \
    --ignore-schema-mismatch
run ignored-warns 0 "$bin" export --table develop.Favorite --mapping "$fac" --out "$tmp/iw" "${E[@]}" \
    --ignore-schema-mismatch --format ndjson
grep -q "warning: table develop.Favorite does not match" "$tmp/ignored-warns.err" || fail "no warning when ignoring"

# create-table --if-not-exists: an existing table must be the mapping's
run same-exists 0 "$bin" create-table --mapping "$fav" --if-not-exists "${E[@]}"
run other-exists 2 "$bin" create-table --mapping "$fac" --table develop.Favorite --if-not-exists "${E[@]}"
grep -q "table develop.Favorite exists, but not as .*facility-capacity.json describes it" "$tmp/other-exists.err" ||
    fail "create-table --if-not-exists over another table: $(head -2 "$tmp/other-exists.err")"

# create-table over an existing table says so, whatever the server's message (none here)
run plain-exists 2 "$bin" create-table --mapping "$fav" "${E[@]}"
grep -q "CreateTable develop.Favorite failed: ResourceInUseException: the table already exists" \
    "$tmp/plain-exists.err" && grep -q "hint: add --if-not-exists" "$tmp/plain-exists.err" ||
    fail "create-table over an existing table: $(head -2 "$tmp/plain-exists.err")"

# --table defaults to the mapping's table
run default-table 0 "$bin" import "$tmp/fav.json" --mapping "$fav" "${E[@]}" --summary "$tmp/dt.json"
[ "$(summary_total "$tmp/dt.json" written)" = "$(wc -l <"$tmp/fav.json")" ] || fail "default table: not all written"
grep -q "develop.Favorite:" "$tmp/default-table.err" || fail "default table: not develop.Favorite"
# items imported with a mapping are counted under their entities, not under "(none)"
for e in Tag FavoriteData FavoriteDataTag; do
    n=$(grep -c "\"pk\":{\"S\":\"$e#" "$tmp/fav.json" || true)
    grep -q "{\"name\":\"$e\",\"read\":$n,\"written\":$n," "$tmp/dt.json" ||
        fail "default table: $e not counted as $n: $(head -c 600 "$tmp/dt.json")"
done
grep -q '{"name":"(none)","read":0,' "$tmp/dt.json" || fail "default table: items counted under (none)"

# an import whose messages go to head (which exits early) finishes, table and summary
"$bin" import "$tmp/fav.json" --mapping "$fav" --table piped.Favorite --create-table \
    --summary "$tmp/piped.json" "${E[@]}" 2>&1 | head -2 >"$tmp/piped.head"
rc=${PIPESTATUS[0]}
[ "$rc" = 0 ] || fail "import piped into head: exit $rc"
[ "$(summary_total "$tmp/piped.json" written)" = "$(wc -l <"$tmp/fav.json")" ] ||
    fail "import piped into head: not all written ($(head -c 300 "$tmp/piped.json" 2>&1))"

# dry runs fail on a missing table as the real run would, unless it would create it
run dry-missing 2 "$bin" import "$tmp/fav.json" --mapping "$fav" --table nowhere --dry-run "${E[@]}"
grep -q "table nowhere does not exist" "$tmp/dry-missing.err" || fail "dry-missing message"
run dry-create 0 "$bin" import "$tmp/fav.json" --mapping "$fav" --table nowhere --dry-run --create-table "${E[@]}"
grep -q "would create it" "$tmp/dry-create.err" || fail "dry-create note"

# every record unmatched: exit 6 with the reason
run all-unmatched 6 "$bin" export "$tmp/mov.json" --mapping "$fav" --out "$tmp/au"
grep -q "not one of the .* records matched an entity of the mapping" "$tmp/all-unmatched.err" ||
    fail "all-unmatched message"

# a missing table is exit 2 for every command
run missing-export 2 "$bin" export --table nowhere --out "$tmp/me" "${E[@]}"
run missing-describe 2 "$bin" describe --table nowhere "${E[@]}"
run missing-import 2 "$bin" import "$tmp/fav.json" --table nowhere "${E[@]}"

# describe shows projections
run describe 0 "$bin" describe --table develop.Favorite "${E[@]}"
grep -q "GSI gsiOne.*projection ALL" "$tmp/describe.out" "$tmp/describe.err" || fail "describe: no projection"
finish
