#!/usr/bin/env bash
# Throughput and memory of `ddbpipe generate` and `ddbpipe diff` on the favorites design.
#
#   bench/diffgen.sh [RECORDS]     records to generate: 1000000 (default), 200000, ...
#
# Builds a Release ddbpipe in build-bench/, then times:
#   - generate RECORDS records as items (ddb-json) and as CSV records
#   - diff of those items against themselves re-keyed to favorites-v2 (two mappings, all equal)
#   - the same diff on 1/10 of the records, both with --max-memory 16: peak memory must not
#     grow with the input (bucket pairs over 16 MB are partitioned again)
# and prints wall time, records/s and peak RSS.
#
# Environment: BUILD_DIR overrides build-bench. Outputs go to bench/out/diffgen (removed).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$root/build-bench}"
out="$root/bench/out/diffgen"
records="${1:-1000000}"
m1="$root/formats/favorites.json"
m2="$root/formats/favorites-v2.json"

if ! [[ $records =~ ^[0-9]+$ ]] || [ "$records" -lt 1000 ]; then
	echo "bench/diffgen.sh: RECORDS must be a number >= 1000" >&2
	exit 2
fi
. "$root/bench/lib.bash"
build_release ddbpipe
ddbpipe="$build/ddbpipe"
rm -rf "$out"
mkdir -p "$out"
cpu=()

# counts in the proportions of a favorites table: 10% tags, 40% favorites, 50% links
counts() { echo "Tag=$(($1 / 10)),FavoriteData=$(($1 * 4 / 10)),FavoriteDataTag=$(($1 / 2))"; }
tenth=$((records / 10))

echo "== runs ($records records)"
for fmt in ddb-json csv; do
	echo "generate --format $fmt"
	measure "generate-$fmt" /dev/null "$ddbpipe" generate --mapping "$m1" --count "$(counts "$records")" \
		--format "$fmt" --out "$out/gen-$fmt" --quiet
	row "ddbpipe generate --format $fmt *" "$(du -sb "$out/gen-$fmt" | cut -f1)" "$records"
	cpu+=("generate --format $fmt: ${m_cpu:-?} s of CPU")
done
"$ddbpipe" convert "$out"/gen-ddb-json/*.json --mapping "$m1" --to-mapping "$m2" --out "$out/v2" --quiet \
	2>/dev/null
"$ddbpipe" generate --mapping "$m1" --count "$(counts "$tenth")" --format ddb-json --out "$out/small" --quiet \
	2>/dev/null
"$ddbpipe" convert "$out"/small/*.json --mapping "$m1" --to-mapping "$m2" --out "$out/small-v2" --quiet \
	2>/dev/null

echo "diff v1 against v2"
measure diff /dev/null "$ddbpipe" diff "$out/gen-ddb-json" "$out/v2" --mapping "$m1" --to-mapping "$m2" \
	--out "$out/d" --quiet --max-memory 16
row "ddbpipe diff (2 x records)" "$(du -scb "$out/gen-ddb-json" "$out/v2" | tail -1 | cut -f1)" \
	"$((2 * records))"
cpu+=("diff: ${m_cpu:-?} s of CPU")
rss_big=$m_rss
echo "diff v1 against v2 (1/10)"
measure diff-tenth /dev/null "$ddbpipe" diff "$out/small" "$out/small-v2" --mapping "$m1" \
	--to-mapping "$m2" --out "$out/d-small" --quiet --max-memory 16
row "ddbpipe diff (2 x records / 10)" "$(du -scb "$out/small" "$out/small-v2" | tail -1 | cut -f1)" \
	"$((2 * tenth))"
rss_small=$m_rss
grep -q "the same" "$out/diff.log" || echo "!! diff did not find the sides the same" >&2
buckets=$(sed -n 's/.*buckets were split \([0-9]*\) level.*/\1/p' "$out/diff.log")

echo
echo "== results ($(nproc) CPUs, $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo))"
printf "%-34s %9s %10s %12s %10s %4s\n" "run" "wall s" "MB/s in" "records/s" "peak MB" "exit"
printf "%-34s %9s %10s %12s %10s %4s\n" "---" "------" "-------" "---------" "-------" "----"
for r in "${rows[@]}"; do echo "$r"; done
echo "(* MB/s of output written; diff: of the two sides' input)"
echo "CPU seconds (user + system; on a shared machine wall time exceeds them):"
printf '  %s\n' "${cpu[@]}"
echo
awk -v a="$rss_big" -v b="$rss_small" -v s="${buckets:-0}" 'BEGIN {
	printf "memory bound: diff peak RSS %.1f MB for the full input vs %.1f MB for 1/10 of it (ratio %.2f); buckets split %d level(s) deep at --max-memory 16\n",
		a / 1024, b / 1024, (b > 0 ? a / b : 0), s }'
du -sh "$out/gen-ddb-json" "$out/gen-csv" | sed 's/^/output: /'
rm -rf "$out"
