#!/usr/bin/env bash
# Real-world inputs into a table (dynalite) and back: the AWS docs' ProductCatalog BatchWriteItem
# file, dynein's request file with puts and deletes for two tables (each table's records written
# to its own table, deletes removing what the puts wrote), a NoSQL Workbench model's sample items
# with the mapping drafted from the model, and a dynamodump backup restored.
. "$(dirname "$0")/lib.bash"
E=(--endpoint-url "$endpoint")
cases="$root/tests/golden/cases"
create() { # TABLE PK-NAME PK-TYPE [SK-NAME SK-TYPE]
    local defs="{\"AttributeName\":\"$2\",\"AttributeType\":\"$3\"}" ks="{\"AttributeName\":\"$2\",\"KeyType\":\"HASH\"}"
    if [ $# -gt 3 ]; then
        defs="$defs,{\"AttributeName\":\"$4\",\"AttributeType\":\"$5\"}"
        ks="$ks,{\"AttributeName\":\"$4\",\"KeyType\":\"RANGE\"}"
    fi
    ddb_call CreateTable "{\"TableName\":\"$1\",\"AttributeDefinitions\":[$defs],\"KeySchema\":[$ks],\"BillingMode\":\"PAY_PER_REQUEST\"}" >/dev/null
}

# -- the ProductCatalog request file: every item lands as the file spells it ---------------------
create ProductCatalog Id N
run pc-import 0 "$bin" import "$cases/public-productcatalog-batchwrite/ProductCatalog.json" \
    --table ProductCatalog "${E[@]}" --summary "$tmp/pc.json"
[ "$(summary_total "$tmp/pc.json" written)" = 4 ] || fail "ProductCatalog: 4 items written"
run pc-export 0 "$bin" export --table ProductCatalog --format ddb-json --out "$tmp/pc" "${E[@]}"
run pc-file 0 "$bin" export "$cases/public-productcatalog-batchwrite/ProductCatalog.json" \
    --format ddb-json --out "$tmp/pcf"
same_items productcatalog "$tmp/pcf/items.json" -- "$tmp/pc/items.json"

# -- puts and deletes for two tables: each import reads one table's requests -----------------------
create tab1 pk S
create tab2 pk S
printf '{"Item":{"pk":{"S":"ichi"},"seed":{"S":"to be deleted"}}}\n' >"$tmp/seed.json"
run seed-tab1 0 "$bin" import "$tmp/seed.json" --table tab1 "${E[@]}"
run tab1 0 "$bin" import "$cases/public-dynein-batch-tables/batch.json" --table tab1 \
    --input-table __TABLE_NAME__1 "${E[@]}" --summary "$tmp/tab1.json"
[ "$(summary_total "$tmp/tab1.json" deleted)" = 1 ] || fail "tab1: one DeleteRequest"
[ "$(summary_total "$tmp/tab1.json" read)" = 3 ] || fail "tab1: only table 1's 3 requests read"
grep -q "3 records of table __TABLE_NAME__2 not read" "$tmp/tab1.err" || fail "tab1: no word of table 2"
# without naming the table, the first one is read and the other's requests are rejected
run tab1-unnamed 1 "$bin" import "$cases/public-dynein-batch-tables/batch.json" --table tab1 "${E[@]}" \
    --rejects "$tmp/tab1-unnamed.rejects"
[ "$(grep -c 'a record of table __TABLE_NAME__2' "$tmp/tab1-unnamed.rejects")" = 3 ] ||
    fail "tab1 unnamed: table 2's 3 requests rejected"
run tab2 0 "$bin" import "$cases/public-dynein-batch-tables/batch.json" --table tab2 \
    --input-table __TABLE_NAME__2 "${E[@]}"
for t in tab1 tab2; do
    run "$t-export" 0 "$bin" export --table "$t" --format ddb-json --out "$tmp/$t" "${E[@]}"
done
printf '{"Item":{"pk":{"S":"ni"}}}\n{"Item":{"pk":{"S":"san"}}}\n' >"$tmp/want.json"
same_items batch-tab1 "$tmp/want.json" -- "$tmp/tab1/items.json"
same_items batch-tab2 "$tmp/want.json" -- "$tmp/tab2/items.json"

# -- a Workbench model: its drafted mapping creates the table, its items go in and decode ----------
model="$cases/public-workbench-shop/AnOnlineShop.json"
run draft 0 "$bin" mapping-from-workbench "$model" --out "$tmp/shop.json"
run shop-import 0 "$bin" import "$model" --table OnlineShop --create-table --mapping "$tmp/shop.json" \
    "${E[@]}" --summary "$tmp/shop.sum"
[ "$(summary_total "$tmp/shop.sum" written)" = 7 ] || fail "OnlineShop: 7 sample items written"
run shop-export 0 "$bin" export --table OnlineShop --mapping "$tmp/shop.json" --out "$tmp/shop" \
    --format csv "${E[@]}" --summary "$tmp/shop-export.sum"
[ "$(summary_total "$tmp/shop-export.sum" written)" = 7 ] || fail "OnlineShop: 7 records"
grep -q '^12345,samaneh@example.com,Samaneh' "$tmp/shop/customer.csv" || fail "customer records"
run shop-encode 0 "$bin" encode "$tmp"/shop/customer.csv "$tmp"/shop/product.csv \
    "$tmp"/shop/orderItem.csv --mapping "$tmp/shop.json" --out "$tmp/shop-items"
run shop-model 0 "$bin" export "$model" --format ddb-json --out "$tmp/shop-model"
same_items workbench-roundtrip "$tmp/shop-model/items.json" -- "$tmp"/shop-items/*.json

# -- a dynamodump backup restored -------------------------------------------------------------------
create testTable id N
run dump-import 0 "$bin" import "$cases/public-dynamodump/dump" --table testTable "${E[@]}"
run dump-export 0 "$bin" export --table testTable --format ddb-json --out "$tmp/dump" "${E[@]}"
grep -q '"firstName":{"S":"John"}' "$tmp/dump/items.json" || fail "dynamodump item restored"

finish
