#!/usr/bin/env bash
# What a rejected record costs: `ddbpipe export` of the same favorites dump with no rejects,
# with one line in five rejected (four kinds of problem) and with every line rejected.
#
#   bench/rejects.sh [LINES]      LINES of input (default 400000, about 150 MB)
#
# Builds a Release ddbpipe and ddbpipe-gen in build-bench/ (BUILD_DIR overrides), writes the
# inputs to bench/out/rejects/ (uncompressed, so inflate does not hide the rejects path) and
# runs each input RUNS times (default 3), keeping the fastest. It prints CPU seconds (user +
# system), records/s, and the cost of one rejected record: the CPU time the run took beyond
# what its good records cost in the run without rejects, divided by the rejects.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$root/build-bench}"
out="$root/bench/out/rejects"
lines="${1:-400000}"
runs="${RUNS:-3}"
mapping="$root/formats/favorites.json"

echo "== build (Release) in ${build#"$root"/}"
if [ ! -f "$build/CMakeCache.txt" ]; then
	cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DDDB_TESTS=OFF >/dev/null
fi
cmake --build "$build" -j"$(nproc)" --target ddbpipe ddbpipe-gen >/dev/null
mkdir -p "$out"

echo "== inputs ($lines lines)"
good="$out/good-$lines.json"
if [ ! -f "$good" ]; then
	"$build/ddbpipe-gen" bench --mapping "$mapping" --design favorites --items "$lines" \
		--out "$good.gz" --level 1 >/dev/null
	gzip -dc "$good.gz" >"$good"
	rm -f "$good.gz"
fi
# variant NAME AWK-PROGRAM: the good dump with the program applied to every 5th line (or,
# for names starting with all-, to every line).
variant() {
	local name=$1 prog=$2 file="$out/$1-$lines.json" every=5
	case "$name" in all-*) every=1 ;; esac
	[ -f "$file" ] || awk -v every="$every" "NR % every == 0 { $prog } { print }" "$good" >"$file"
}
variant mix-invalid-number 'sub(/\{"N":"1/, "{\"N\":\"x1")'
variant mix-key-mismatch 'sub(/"sk":\{"S":"/, "\"sk\":{\"S\":\"#")'
variant mix-broken-json '$0 = substr($0, 1, 120)'
variant mix-not-utf8 'sub(/"pk":\{"S":"/, "\"pk\":{\"S\":\"\377")'
variant all-invalid-number 'sub(/\{"N":"1/, "{\"N\":\"x1")'

# cpu_of FILE: the fastest of $runs runs (user + system seconds); sets c_cpu, c_wall, c_rej.
cpu_of() {
	local file=$1 best="" wall="" t
	for _ in $(seq "$runs"); do
		rm -rf "$out/x"
		t=$( /usr/bin/time -f "%U %S %e" -o "$out/time" "$build/ddbpipe" export "$file" \
			--mapping "$mapping" --out "$out/x" --format csv --max-rejects "$lines" --quiet \
			--progress off --summary "$out/summary.json" >/dev/null 2>&1; cat "$out/time")
		set -- $t
		local cpu
		cpu=$(awk -v u="$1" -v s="$2" 'BEGIN { printf "%.2f", u + s }')
		if [ -z "$best" ] || awk -v a="$cpu" -v b="$best" 'BEGIN { exit !(a < b) }'; then
			best=$cpu
			wall=$3
		fi
	done
	c_cpu=$best
	c_wall=$wall
	c_rej=$(sed -E 's/.*"total":\{[^}]*"rejected":([0-9]+).*/\1/' "$out/summary.json")
	rm -rf "$out/x"
}

echo "== runs (best of $runs; export --format csv)"
cpu_of "$good"
good_cpu=$c_cpu
printf "%-22s %8s %8s %9s %12s %16s\n" "input" "cpu s" "wall s" "rejected" "records/s" "us per reject"
printf "%-22s %8s %8s %9s %12s %16s\n" "-----" "-----" "------" "--------" "---------" "-------------"
printf "%-22s %8s %8s %9s %12.0f %16s\n" good "$good_cpu" "$c_wall" "$c_rej" \
	"$(awk -v n="$lines" -v c="$good_cpu" 'BEGIN { print n / c }')" "-"
for name in mix-invalid-number mix-key-mismatch mix-broken-json mix-not-utf8 all-invalid-number; do
	cpu_of "$out/$name-$lines.json"
	awk -v name="$name" -v n="$lines" -v c="$c_cpu" -v w="$c_wall" -v r="$c_rej" -v g="$good_cpu" \
		'BEGIN { per = r > 0 ? (c - g * (n - r) / n) / r * 1e6 : 0;
		         printf "%-22s %8.2f %8.2f %9d %12.0f %16.2f\n", name, c, w, r, n / c, per }'
done
echo "(us per reject: CPU time beyond what the good records cost in the run without rejects,"
echo " divided by the rejects; $(nproc) CPUs, $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo))"
