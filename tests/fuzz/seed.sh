#!/usr/bin/env bash
# (Re)makes the seed inputs of the fuzz corpora from samples/, formats/ and tests/golden/cases/:
#
#   tests/fuzz/seed.sh BUILD_DIR      (a build with ddbpipe, for real state files)
#
# Seeds are named seed-*; inputs the fuzzers found are named crash-* (a bug; keep them:
# they are the regression tests for the fixes) or found-* (worth keeping), and cov-* are
# inputs a fuzzing run added for coverage (MERGE=1 scripts/fuzz.sh). Only seed-* are touched
# here. Every file stays small so the corpus runs in seconds.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build=${1:?usage: tests/fuzz/seed.sh BUILD_DIR}
ddbpipe="$build/ddbpipe"
corpus="$root/tests/fuzz/corpus"
cases="$root/tests/golden/cases"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for h in ddbjson ndjson csv json manifest mapping template state ini; do
    mkdir -p "$corpus/$h"
    rm -f "$corpus/$h"/seed-*
done
n=0
seed() { # HARNESS NAME < content
    cat >"$corpus/$1/seed-$2"
}
# chunks HARNESS PREFIX LINES FILE: the file in pieces of LINES lines (at most 12 pieces)
chunks() {
    split -l "$3" -d -a 2 "$4" "$tmp/chunk."
    for c in $(ls "$tmp"/chunk.* | head -12); do
        n=$((n + 1))
        cp "$c" "$corpus/$1/seed-$2-$n"
    done
    rm -f "$tmp"/chunk.*
}

# -- DynamoDB JSON: the golden inputs, a piece of each sample export, a small gzip file
for f in binary-sets/input.json deep-nesting/input.json numbers-exact/input.json utf8/input.json \
    validate-reencode/items.json scan-output/scan.json mapping-error/in.json; do
    cp "$cases/$f" "$corpus/ddbjson/seed-golden-$(dirname "$f")"
done
cp "$cases/stdin-gzip-members/stdin" "$corpus/ddbjson/seed-golden-gzip-members"
for design in favorites movies facility-capacity; do
    gzip -dc "$root"/samples/$design/export/AWSDynamoDB/*/data/*.json.gz >"$tmp/all.json"
    head -60 "$tmp/all.json" >"$tmp/d.json"
    chunks ddbjson "$design" 5 "$tmp/d.json"
    head -3 "$tmp/d.json" | gzip -1 | seed ddbjson "$design-gzip"
done
# an incremental export's change records (the shape of the real one in ../shared)
seed ddbjson incremental <<'EOF'
{"Metadata":{"WriteTimestampMicros":{"N":"1716791487000123"}},"Keys":{"pk":{"S":"Tag#u1"},"sk":{"S":"t1"}},"NewImage":{"pk":{"S":"Tag#u1"},"sk":{"S":"t1"},"tagName":{"S":"x"}},"OldImage":{"pk":{"S":"Tag#u1"},"sk":{"S":"t1"}}}
{"Metadata":{"WriteTimestampMicros":{"N":"1716791487000124"}},"Keys":{"pk":{"S":"Tag#u2"},"sk":{"S":"t2"}}}
EOF

# -- NDJSON: the golden input and records the golden exports wrote
cp "$cases/ndjson-plain-items/items.ndjson" "$corpus/ndjson/seed-golden-items"
for f in "$cases"/numbers-plain/expected/*.ndjson "$cases"/utf8/expected/*.ndjson \
    "$cases"/scan-output/expected/*.ndjson; do
    head -20 "$f" >"$tmp/r.ndjson"
    chunks ndjson "$(basename "$(dirname "$(dirname "$f")")")" 10 "$tmp/r.ndjson"
done

# -- CSV: the first byte picks the delimiter (0 , 1 tab 2 ; 3 |)
for f in "$root"/samples/*/seed/*.csv "$cases"/csv-quoting/Note.csv "$cases"/encode-deletes/*.csv; do
    { printf '\000'; head -12 "$f"; } | seed csv "$(basename "$(dirname "$(dirname "$f")")")-$(basename "$f" .csv)"
done
{ printf '\002'; cat "$cases/csv-semicolon-types/people.csv"; } | seed csv golden-semicolon
for f in "$cases"/favorites-sample-csv/expected/*.csv; do
    { printf '\000'; head -8 "$f"; } | seed csv "export-$(basename "$f" .csv)"
done

# -- CSV read back as ddbpipe writes it without a mapping (typed columns, _extra), a header-less
#    file with given columns (first byte 16), and uneven rows allowed (4: short, 8: long)
{ printf '\000'; printf 'pk,price:N,tags:SS,data:M,ok:BOOL,raw:B,_extra\nk1,9.5,"[""a"",""b""]","{""x"":{""S"":""y""}}",true,AAE=,"{""n"":{""NULL"":true}}"\nk2,,,,,,\n'; } |
    seed csv typed-columns
{ printf '\020'; printf '1,ann,"[""a""]","{}",\n2,bob\n'; } | seed csv given-columns
{ printf '\014'; printf 'a,b,c\n1\n1,2,3,4,5\n'; } | seed csv uneven-rows

# -- JSON documents: the public samples (an array of items, request files, get-item output,
#    Workbench models, a dynamodump page; their origins and licences: corpus/NOTICE), scan
#    output, and small ones of each other shape
for f in public-moviedata-array/moviedata.json public-productcatalog-batchwrite/ProductCatalog.json \
    public-dynein-batch-tables/batch.json public-awscli-request-items/request-items.json \
    public-awscli-get-item/get-item-output.json public-workbench-devicelog/DeviceStateLog.json \
    public-workbench-shop/AnOnlineShop.json public-dynamodump/dump/testTable/data/0001.json \
    scan-output/scan.json; do
    cp "$cases/$f" "$corpus/json/seed-golden-${f%%/*}"
done
seed json batch-get <<'EOF'
{"Responses": {"Forum": [{"Name": {"S": "Amazon S3"}, "Threads": {"N": "1"}}],
               "Thread": [{"ForumName": {"S": "Amazon S3"}, "Subject": {"S": "q"}}]},
 "UnprocessedKeys": {}}
EOF
seed json documents <<'EOF'
{
  "pk": {"S": "a"},
  "tags": {"SS": ["x", "y"]}
}
[{"pk": "b", "n": 12.50, "deep": {"l": [1, [2, {"m": null}]]}}]
[{"Item": {"pk": {"S": "c"}}}, {"PutRequest": {"Item": {"pk": {"S": "d"}}}}]
EOF
seed json requests <<'EOF'
{"RequestItems": {"Forum": [{"PutRequest": {"Item": {"Name": {"S": "f"}}}},
                            {"DeleteRequest": {"Key": {"Name": {"S": "g"}}}}],
                  "Reply": [{"PutRequest": {"Item": {"Id": {"S": "r"}}}}]}}
EOF
printf 'name;price;qty\nwidget;9.5;3\ngadget;1;2\n' | seed json csv-by-content

# -- manifests: manifest-summary.json, NUL, manifest-files.json
for d in "$root"/samples/*/export/AWSDynamoDB/* "$root"/../shared/testdata/aws-export/*; do
    [ -f "$d/manifest-summary.json" ] || continue
    { cat "$d/manifest-summary.json"; printf '\000'; cat "$d/manifest-files.json" 2>/dev/null || true; } |
        seed manifest "$(basename "$d")"
    cat "$d/manifest-summary.json" | seed manifest "$(basename "$d")-summary-only"
    [ -f "$d/manifest-files.md5" ] && cat "$d/manifest-files.md5" | seed manifest "$(basename "$d")-md5"
done

# -- mappings: the seed designs and the golden ones
for f in "$root"/formats/*.json "$cases"/csv-quoting/mapping.json "$cases"/mapping-error/bad-mapping.json; do
    seed mapping "$(basename "$f" .json)" <"$f"
done

# -- template: "pk\nsk" of sample items of every design
for design in favorites movies facility-capacity; do
    gzip -dc "$root"/samples/$design/export/AWSDynamoDB/*/data/*.json.gz >"$tmp/all.json"
    head -400 "$tmp/all.json" |
        sed -n 's/.*"\(pk\|PK\|id\)":{"[SN]":"\([^"]*\)"}.*"\(sk\|SK\)":{"[SN]":"\([^"]*\)"}.*/\2\n\4/p' |
        paste - - | sort -u | head -15 | while IFS=$'\t' read -r pk sk; do
        n=$((n + 1))
        printf '%s\n%s' "$pk" "$sk" | seed template "$design-$n"
    done
done

# -- state files: real ones from export runs (complete, and from a file output with rejects)
"$ddbpipe" export "$cases/binary-sets/input.json" --out "$tmp/o1" --state "$tmp/s1" --max-rejects 9 \
    --quiet --progress off 2>/dev/null || true
seed state export-complete <"$tmp/s1"
"$ddbpipe" export "$root/samples/favorites/export" --mapping "$root/formats/favorites.json" \
    --out "$tmp/o2" --format csv --gzip --state "$tmp/s2" --max-rejects 99 --quiet --progress off \
    2>/dev/null || true
seed state favorites-gzip <"$tmp/s2"
sed 's/"complete":true/"complete":false/' "$tmp/s2" | seed state favorites-unfinished
seed state scan <<'EOF'
{"ddbpipe_state":1,"complete":false,"fingerprint":{"command":"export","table":"t"},"input":0,"pos":250,"counts":{"rows":[[250,250,0,0,0]],"total":[250,250,0,0,0],"changes":[0,0,0,0],"rejects":0},"reader":{"total_segments":4,"segments":[{"n":0,"done":true,"key":null},{"n":1,"done":false,"key":"{\"pk\":{\"S\":\"a\"}}"},{"n":2,"done":false,"key":null},{"n":3,"done":false,"key":null}]},"outputs":[{"path":"o/items.ndjson","bytes":4096}],"rejects_bytes":0,"unmatched_bytes":0}
EOF

# -- AWS INI files
seed ini config <<'EOF'
[default]
region = eu-west-1
output=json

[profile prod]
region = us-east-1
role_arn = arn:aws:iam::123456789012:role/x
source_profile = default
dynamodb =
  endpoint_url = http://127.0.0.1:8000
  max_attempts = 3
# a comment
; another
[sso-session corp]
sso_start_url = https://example.awsapps.com/start
sso_region = us-east-1

[services local]
dynamodb =
    endpoint_url = http://localhost:8000
EOF
seed ini credentials <<'EOF'
[default]
aws_access_key_id = AKIDEXAMPLE
aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY
aws_session_token = FwoGZXIvYXdzEXAMPLE

[other]
credential_process = /usr/bin/printf '{"Version": 1}'
EOF
printf '[default]\r\nregion=us-west-2\r\n[profile  spaced  ]\r\nregion =  x  \r\n' | seed ini crlf
echo "seeded: $(for h in "$corpus"/*; do printf '%s %s  ' "$(basename "$h")" "$(ls "$h" | wc -l)"; done)"
