#!/usr/bin/env bash
# Throughput and memory benchmark of `ddbpipe export` on a large favorites dump.
#
#   bench/run.sh [SIZE]      SIZE of the uncompressed dump: 1G (default), 512M, 4G, ...
#
# Builds a Release ddbpipe and ddbpipe-gen in build-bench/, generates (or reuses) the dumps
# bench/out/favorites-SIZE.json.gz and a 10x smaller one, then times:
#   - zcat FILE > /dev/null            (the floor: gzip decoding alone)
#   - ddbpipe export FILE --format csv
#   - ddbpipe export FILE --format ndjson
#   - ddbpipe export SMALL --format csv (peak memory must not grow with the input)
# and prints wall time, MB/s of uncompressed input, items/s and peak RSS.
#
# Environment: KEEP_OUTPUT=1 keeps bench/out/x (the export output); BUILD_DIR overrides
# build-bench. Delete bench/out/ to force new dumps (e.g. after changing the generator).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$root/build-bench}"
out="$root/bench/out"
size="${1:-1G}"
mapping="$root/formats/favorites.json"

to_bytes() {
	local s=$1 n mul=1
	case "$s" in
	*[kK]) mul=1024 ;;
	*[mM]) mul=$((1024 * 1024)) ;;
	*[gG]) mul=$((1024 * 1024 * 1024)) ;;
	*[tT]) mul=$((1024 * 1024 * 1024 * 1024)) ;;
	esac
	n=${s%[kKmMgGtT]}
	if ! [[ $n =~ ^[0-9]+$ ]] || [ "$n" -eq 0 ]; then
		echo "bench/run.sh: bad size '$s' (use e.g. 1G, 512M, 2000000)" >&2
		exit 2
	fi
	echo $((n * mul))
}

bytes=$(to_bytes "$size")
small_bytes=$((bytes / 10))

. "$root/bench/lib.bash"
build_release ddbpipe ddbpipe-gen
ddbpipe="$build/ddbpipe"
gen="$build/ddbpipe-gen"
mkdir -p "$out"

# make_dump FILE BYTES: reuses FILE when its .info (items and bytes) is there.
make_dump() {
	local file=$1 want=$2 line
	if [ -f "$file" ] && [ -f "$file.info" ]; then
		echo "reusing ${file#"$root"/} ($(cat "$file.info"))"
		return
	fi
	rm -f "$file" "$file.info"
	line=$("$gen" bench --mapping "$mapping" --design favorites --bytes "$want" --out "$file")
	echo "$line"
	# "FILE: N items, B bytes uncompressed, ..."
	echo "$line" | sed -E 's/.*: ([0-9]+) items, ([0-9]+) bytes uncompressed.*/items=\1 bytes=\2/' \
		>"$file.info"
}

info() { sed -E "s/.*$2=([0-9]+).*/\1/" "$1.info"; }

big="$out/favorites-$size.json.gz"
small="$out/favorites-$size-tenth.json.gz"
echo "== dumps"
make_dump "$big" "$bytes"
make_dump "$small" "$small_bytes"

big_bytes=$(info "$big" bytes)
big_items=$(info "$big" items)
small_real=$(info "$small" bytes)
small_items=$(info "$small" items)

echo "== runs (input: $big_items items, $big_bytes bytes uncompressed, $(stat -c %s "$big") gzip)"
echo "zcat"
measure zcat /dev/null zcat "$big"
row "zcat FILE > /dev/null" "$big_bytes" "$big_items"

for fmt in csv ndjson; do
	echo "export --format $fmt"
	rm -rf "$out/x"
	measure "export-$fmt" /dev/null "$ddbpipe" export "$big" --mapping "$mapping" --out "$out/x" \
		--format "$fmt"
	row "ddbpipe export --format $fmt" "$big_bytes" "$big_items"
	rss_big_csv=${rss_big_csv:-$m_rss}
done

echo "export --format csv (1/10 input)"
rm -rf "$out/x"
measure export-csv-tenth /dev/null "$ddbpipe" export "$small" --mapping "$mapping" \
	--out "$out/x" --format csv
row "ddbpipe export --format csv (1/10)" "$small_real" "$small_items"
rss_small_csv=$m_rss
[ "${KEEP_OUTPUT:-0}" = 1 ] || rm -rf "$out/x"

echo
echo "== results ($(nproc) CPUs, $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo))"
printf "%-34s %9s %10s %12s %10s %4s\n" "run" "wall s" "MB/s in" "items/s" "peak MB" "exit"
printf "%-34s %9s %10s %12s %10s %4s\n" "---" "------" "-------" "-------" "-------" "----"
for r in "${rows[@]}"; do echo "$r"; done
echo
awk -v a="$rss_big_csv" -v b="$rss_small_csv" 'BEGIN {
	printf "memory bound: peak RSS %.1f MB for the full input vs %.1f MB for 1/10 of it (ratio %.2f)\n",
		a / 1024, b / 1024, (b > 0 ? a / b : 0) }'
echo "MB = 10^6 bytes of uncompressed input; logs in ${out#"$root"/}/*.log"
