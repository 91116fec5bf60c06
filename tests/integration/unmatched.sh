#!/usr/bin/env bash
# Items no entity matches are kept, never dropped, when the target is a table: migrate (from
# files and from a table, real and dry runs) writes them verbatim to the unmatched file (the
# run's own folder ddbpipe-runs/<table>-<time>/, beside --state FILE, or --unmatched FILE),
# counts them, names the file in the summary, and the file imports back into a table. A clean
# run leaves no folder behind.
. "$(dirname "$0")/lib.bash"
E=(--endpoint-url "$endpoint")
fav="$root/formats/favorites.json"
fav2="$root/formats/favorites-v2.json"
sample="$root/samples/favorites/export"
mkdir -p "$tmp/work"
cd "$tmp/work" || exit 1

# what the export says is unmatched in the sample (the reference)
run ref-export 0 "$bin" export "$sample" --mapping "$fav" --out "$tmp/ref" --max-rejects 1000
n_ref=$(wc -l <"$tmp/ref/_ddbpipe/unmatched.ndjson")
[ "$n_ref" -gt 0 ] || fail "the sample has no unmatched items"

# -- files -> table: the defaults, in the run's own folder under ./ddbpipe-runs/ -----------------
run files-to-table 0 "$bin" migrate "$sample" --mapping "$fav" --to-table favu \
    --to-mapping "$fav2" --create-table --max-rejects 1000 "${E[@]}" --summary "$tmp/s1.json"
[ "$(summary_total "$tmp/s1.json" unmatched)" = "$n_ref" ] ||
    fail "files-to-table: $(summary_total "$tmp/s1.json" unmatched) unmatched counted, $n_ref expected"
run_dirs=(ddbpipe-runs/favu-*)
[ "${#run_dirs[@]}" = 1 ] && [ -d "${run_dirs[0]}" ] || fail "files-to-table: no run folder ddbpipe-runs/favu-<time>"
rd=${run_dirs[0]}
[[ "$rd" =~ ^ddbpipe-runs/favu-[0-9]{8}T[0-9]{6}Z$ ]] || fail "files-to-table: run folder named $rd"
[ -f "$rd/unmatched.ndjson" ] || fail "files-to-table: no $rd/unmatched.ndjson"
[ -f "$rd/rejects.ndjson" ] || fail "files-to-table: no $rd/rejects.ndjson beside it"
same_items files-to-table-kept "$tmp/ref/_ddbpipe/unmatched.ndjson" -- "$rd/unmatched.ndjson"
grep -q "  unmatched: $rd/unmatched.ndjson" "$tmp/files-to-table.err" ||
    fail "files-to-table: the summary does not name the unmatched file"
grep -q "  rejects: $rd/rejects.ndjson" "$tmp/files-to-table.err" ||
    fail "files-to-table: the summary does not name the rejects file"
grep -q "\"unmatched_file\":\"$rd/unmatched.ndjson\"" "$tmp/s1.json" ||
    fail "files-to-table: the JSON summary does not name the unmatched file"

# -- under --state the side files sit beside the state file -----------------------------------
mkdir -p "$tmp/st"
run files-to-table-state 0 "$bin" migrate "$sample" --mapping "$fav" --to-table favu \
    --to-mapping "$fav2" --max-rejects 1000 "${E[@]}" --state "$tmp/st/run.state"
[ -f "$tmp/st/run.state.rejects.ndjson" ] || fail "state: no rejects beside the state file"
same_items state-kept "$tmp/ref/_ddbpipe/unmatched.ndjson" -- "$tmp/st/run.state.unmatched.ndjson"
[ "$(ls -d ddbpipe-runs/favu-* | wc -l)" = 1 ] || fail "state: a run folder was made as well"

# -- table -> table: a Scan's unmatched items, to --unmatched FILE ------------------------------
run src-import 0 "$bin" import "$sample" --table favsrc --create-table --mapping "$fav" \
    --max-rejects 1000 "${E[@]}" --rejects "$tmp/src-rejects.ndjson"
run table-to-table 0 "$bin" migrate --table favsrc --mapping "$fav" --to-table favu2 \
    --to-mapping "$fav2" --create-table "${E[@]}" --unmatched "$tmp/kept/u.ndjson" \
    --rejects "$tmp/r2.ndjson" --summary "$tmp/s2.json"
[ "$(summary_total "$tmp/s2.json" unmatched)" = "$n_ref" ] || fail "table-to-table: unmatched count"
same_items table-to-table-kept "$tmp/ref/_ddbpipe/unmatched.ndjson" -- "$tmp/kept/u.ndjson"
grep -q "  unmatched: $tmp/kept/u.ndjson" "$tmp/table-to-table.err" ||
    fail "table-to-table: the summary does not name --unmatched"
[ -e "$tmp/r2.ndjson" ] && fail "table-to-table: a rejects file for a run without rejects"
compgen -G 'ddbpipe-runs/favu2-*' >/dev/null && fail "table-to-table: a run folder was made"

# the kept items go back into a table of the source layout as they are
run reimport 0 "$bin" import "$tmp/kept/u.ndjson" --table favback --create-table --mapping "$fav" \
    "${E[@]}" --summary "$tmp/s3.json"
[ "$(summary_total "$tmp/s3.json" written)" = "$n_ref" ] || fail "reimport: not every kept item written"
compgen -G 'ddbpipe-runs/favback-*' >/dev/null && fail "reimport: a clean run left a run folder"

# -- a dry run (into the table made above) writes nothing but still keeps what it could not place
mkdir -p "$tmp/dry"
run dry-run 0 "$bin" migrate --table favsrc --mapping "$fav" --to-table favu2 --to-mapping "$fav2" \
    --dry-run "${E[@]}" --rejects "$tmp/dry/rejects.ndjson"
dry_dirs=(ddbpipe-runs/favu2-*)
[ -d "${dry_dirs[0]}" ] || fail "dry-run: no run folder for the unmatched items"
same_items dry-run-kept "$tmp/ref/_ddbpipe/unmatched.ndjson" -- "${dry_dirs[0]}/unmatched.ndjson"

# -- usage errors ------------------------------------------------------------------------------
run same-file 2 "$bin" migrate --table favsrc --mapping "$fav" --to-table favu --to-mapping "$fav2" \
    "${E[@]}" --rejects "$tmp/same.ndjson" --unmatched "$tmp/same.ndjson"
grep -q "the same file" "$tmp/same-file.err" || fail "same-file: no message"

finish
