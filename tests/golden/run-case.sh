#!/usr/bin/env bash
# Runs one golden case: tests/golden/cases/<name>/
#   cmd            the ddbpipe arguments, one line; $CASE, $OUT, $FORMATS, $SAMPLES and
#                  $SHARED are replaced by the case folder, a fresh output folder, the
#                  repository's formats/ and samples/, and ../shared/testdata
#   stdin          (optional) fed to ddbpipe's standard input
#   expected/exit  (optional) expected exit status, default 0
#   expected/stderr.grep  (optional) lines that must each appear in stderr (fixed strings)
#   expected/<file>        compared byte for byte with $OUT/<file> (a .gz output is
#                          compared decompressed against expected/<file without .gz>)
#   expected/<file>.sha256 compared by SHA-256 instead (for large outputs)
#   expected/summary.json  compared with the --summary JSON (seconds and byte counts removed);
#                          OUT/_ddbpipe/summary.json, when written, must be the same bytes
# Every file in $OUT must be expected: an unexpected output file fails the case.
# GOLDEN_UPDATE=1 rewrites expected/ from the actual run (review the diff before committing).
set -u
bin=$1
case_dir=$(cd "$2" && pwd)
name=$(basename "$case_dir")
root=$(cd "$(dirname "$0")/../.." && pwd)
shared=$(cd "$root/../shared/testdata" 2>/dev/null && pwd || echo "$root/../shared/testdata")
out=$(mktemp -d "${TMPDIR:-/tmp}/golden-$name.XXXXXX")
trap 'rm -rf "$out"' EXIT
fail() { echo "golden $name: FAIL: $*" >&2; exit 1; }

# Paths are given relative to the case folder (where ddbpipe runs), so file names
# inside outputs and rejects do not depend on where the repository is checked out.
rel() { realpath -m --relative-to="$case_dir" "$1"; }
args=$(cat "$case_dir/cmd")
args=${args//\$CASE/.}
args=${args//\$OUT/$out/out}
args=${args//\$FORMATS/$(rel "$root/formats")}
args=${args//\$SAMPLES/$(rel "$root/samples")}
args=${args//\$SHARED/$(rel "$shared")}
mkdir -p "$out/out"

cd "$case_dir"
if [ -f "$case_dir/stdin" ]; then
    eval "\"$bin\" $args --summary \"$out/summary.json\"" <"$case_dir/stdin" >"$out/stdout" 2>"$out/stderr"
else
    eval "\"$bin\" $args --summary \"$out/summary.json\"" </dev/null >"$out/stdout" 2>"$out/stderr"
fi
code=$?

normalize_summary() {
    sed -e 's/"seconds":[0-9.]*/"seconds":0/' -e 's/"bytes_in":[0-9]*/"bytes_in":0/' \
        -e 's/"bytes_out":[0-9]*/"bytes_out":0/' -e 's/"bytes_decoded":[0-9]*/"bytes_decoded":0/' -e "s#$out/out#OUT#g" -e "s#$root#ROOT#g" \
        -e "s#$shared#SHARED#g" "$1"
}

actual_content() { # file in $out/out -> its content (decompressed when gzip)
    case "$1" in
    *.gz) gzip -dc "$out/out/$1" ;;
    *) cat "$out/out/$1" ;;
    esac
}

if [ "${GOLDEN_UPDATE:-0}" = 1 ]; then
    mkdir -p "$case_dir/expected"
    keep_sha=$(cd "$case_dir/expected" && ls *.sha256 2>/dev/null)
    find "$case_dir/expected" -type f ! -name stderr.grep ! -name '*.sha256' -delete
    [ "$code" = 0 ] || echo "$code" >"$case_dir/expected/exit"
    [ -f "$out/summary.json" ] && normalize_summary "$out/summary.json" >"$case_dir/expected/summary.json"
    (cd "$out/out" && find . -type f ! -path ./_ddbpipe/summary.json | sed 's#^\./##') | while read -r f; do
        base=${f%.gz}
        if [ -f "$case_dir/expected/$base.sha256" ]; then
            actual_content "$f" | sha256sum | cut -d' ' -f1 >"$case_dir/expected/$base.sha256"
        else
            mkdir -p "$(dirname "$case_dir/expected/$base")"
            actual_content "$f" >"$case_dir/expected/$base"
        fi
    done
    echo "golden $name: expected/ updated (exit $code)"
    cat "$out/stderr" >&2
    exit 0
fi

want_code=0
[ -f "$case_dir/expected/exit" ] && want_code=$(cat "$case_dir/expected/exit")
if [ "$code" != "$want_code" ]; then
    cat "$out/stderr" >&2
    fail "exit status $code, expected $want_code"
fi
if [ -f "$case_dir/expected/stderr.grep" ]; then
    while IFS= read -r line; do
        [ -z "$line" ] && continue
        grep -qF -- "$line" "$out/stderr" || { cat "$out/stderr" >&2; fail "stderr lacks: $line"; }
    done <"$case_dir/expected/stderr.grep"
fi
if [ -f "$case_dir/expected/summary.json" ]; then
    normalize_summary "$out/summary.json" | diff -u "$case_dir/expected/summary.json" - >&2 ||
        fail "summary differs"
fi
if [ -f "$out/out/_ddbpipe/summary.json" ]; then
    cmp -s "$out/summary.json" "$out/out/_ddbpipe/summary.json" ||
        fail "OUT/_ddbpipe/summary.json differs from the --summary file"
fi
# every output file must be expected, and match
for f in $(cd "$out/out" && find . -type f ! -path ./_ddbpipe/summary.json | sed 's#^\./##' | sort); do
    base=${f%.gz}
    if [ -f "$case_dir/expected/$base.sha256" ]; then
        got=$(actual_content "$f" | sha256sum | cut -d' ' -f1)
        [ "$got" = "$(cat "$case_dir/expected/$base.sha256")" ] || fail "$f: SHA-256 $got differs"
    elif [ -f "$case_dir/expected/$base" ]; then
        actual_content "$f" | diff -u "$case_dir/expected/$base" - >&2 || fail "$f differs"
    else
        fail "unexpected output file $f"
    fi
done
# and every expected file must have been produced
for f in $(cd "$case_dir/expected" && find . -type f | sed 's#^\./##' | sort); do
    case "$f" in exit | stderr.grep | summary.json) continue ;; esac
    base=${f%.sha256}
    [ -f "$out/out/$base" ] || [ -f "$out/out/$base.gz" ] || fail "missing output $base"
done
echo "golden $name: ok"
