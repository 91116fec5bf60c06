#!/usr/bin/env bash
# Regenerates samples/ from scratch with ddbpipe-gen. Deterministic: running it twice gives
# byte-identical files (fixed seeds, no clock), so a diff after regenerating means the
# generator or a mapping changed.
#
#   scripts/make-samples.sh            rebuild ddbpipe-gen if needed, regenerate samples/
#   scripts/make-samples.sh --report   also run `ddbpipe export` on each sample export and
#                                      print its summary (the counts quoted in samples/README.md)
#   scripts/make-samples.sh --check    regenerate twice into temporary folders and compare
#                                      sha256 sums with the committed samples/
#
# Environment: BUILD_DIR (default build-samples, a Release build of the repository).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$root/build-samples}"
mode="${1:-}"
case "$mode" in
"" | --report | --check) ;;
*)
	echo "usage: $0 [--report|--check]" >&2
	exit 2
	;;
esac

targets=(ddbpipe-gen)
[ "$mode" = --report ] && targets+=(ddbpipe)
if [ ! -f "$build/CMakeCache.txt" ]; then
	cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DDDB_TESTS=OFF >/dev/null
fi
for t in "${targets[@]}"; do
	cmake --build "$build" --target "$t" -j2 >/dev/null
done
gen="$build/ddbpipe-gen"

# design  mapping  items files unmatched invalid seed-records (items and records are minimums:
# --whole-collections ends both at the end of a collection, e.g. a facility's 7 weekdays)
samples=(
	"favorites         formats/favorites.json          300 4 10 10 100"
	"movies            formats/movies.json             300 3 10 10 150"
	"facility-capacity formats/facility-capacity.json  300 2 10 10 100"
)

# generate OUTROOT: writes OUTROOT/<design>/{export,seed}
generate() {
	local out=$1 line design mapping items files unm inv records
	for line in "${samples[@]}"; do
		read -r design mapping items files unm inv records <<<"$line"
		rm -rf "$out/$design/export" "$out/$design/seed"
		"$gen" export --mapping "$root/$mapping" --design "$design" --items "$items" \
			--files "$files" --unmatched "$unm" --invalid "$inv" --seed 1 --whole-collections \
			--out "$out/$design/export" >/dev/null
		"$gen" seed-csv --mapping "$root/$mapping" --design "$design" --records "$records" \
			--seed 1 --whole-collections --out "$out/$design/seed" >/dev/null
	done
}

sums() { (cd "$1" && find . -type f ! -name README.md -print0 | LC_ALL=C sort -z | xargs -0 sha256sum); }

if [ "$mode" = --check ]; then
	tmp="$(mktemp -d)"
	trap 'rm -rf "$tmp"' EXIT
	generate "$tmp/a"
	generate "$tmp/b"
	if ! diff <(sums "$tmp/a") <(sums "$tmp/b") >/dev/null; then
		echo "make-samples: two runs differ: the generator is not deterministic" >&2
		exit 1
	fi
	if ! diff <(sums "$tmp/a") <(sums "$root/samples") >"$tmp/diff"; then
		echo "make-samples: samples/ is out of date (run scripts/make-samples.sh):" >&2
		head -20 "$tmp/diff" >&2
		exit 1
	fi
	echo "make-samples: deterministic, and samples/ is up to date ($(sums "$tmp/a" | wc -l) files)"
	exit 0
fi

generate "$root/samples"
echo "make-samples: regenerated $(sums "$root/samples" | wc -l) files under samples/"

if [ "$mode" = --report ]; then
	tmp="$build/samples-report"
	rm -rf "$tmp"
	for line in "${samples[@]}"; do
		read -r design mapping _ <<<"$line"
		dir=$(cd "$root" && echo samples/"$design"/export/AWSDynamoDB/*/)
		echo
		echo "\$ ddbpipe export ${dir%/} --mapping $mapping --out OUT --format csv"
		(cd "$root" && "$build/ddbpipe" export "${dir%/}" --mapping "$mapping" \
			--out "$tmp/$design" --format csv --quiet 2>&1) || true
		echo
		echo "\$ ddbpipe encode samples/$design/seed/*.csv --mapping $mapping --out OUT"
		(cd "$root" && "$build/ddbpipe" encode samples/"$design"/seed/*.csv --mapping "$mapping" \
			--out "$tmp/$design-seed" --quiet 2>&1) || true
	done
fi
