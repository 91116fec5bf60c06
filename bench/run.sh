#!/usr/bin/env bash
# Throughput and memory benchmark of `ddbpipe export` and `import` on a large favorites dump.
#
#   bench/run.sh [SIZE]      SIZE of the uncompressed dump: 1G (default), 512M, 4G, ...
#
# Builds a Release ddbpipe and ddbpipe-gen in build-bench/, generates (or reuses) the dumps
# bench/out/favorites-SIZE-gz6.json.gz (gzip level 6, as `gzip` writes by default and as the
# speed issue measured) and a 10x smaller one, then times:
#   - zcat FILE > /dev/null            (the floor: gzip decoding alone)
#   - ddbpipe export FILE --format csv
#   - ddbpipe export FILE --format ndjson
#   - ddbpipe export FILE --format parquet (its wall time against CSV's of the same round, and its
#     files' size against those of export --format csv --gzip)
#   - ddbpipe export FILE --format csv without a mapping (typed columns, their union as header)
#   - ddbpipe import FILE to ddbpipe-sink (bench/sink/sink.c: the importer's CPU per item),
#     ROUNDS times, each time also to a sink that polls
#   - ddbpipe-floor (bench/floor/floor.c): the same requests, prepared, the least any importer
#     spends here
#   - bench/sdk-import.js SMALL to a fresh sink (the same import with the Node AWS SDK v3, for
#     scale; skipped without node_modules/@aws-sdk)
#   - ddbpipe export SMALL --format csv (peak memory must not grow with the input)
# and prints wall time, MB/s of uncompressed input, items/s and peak RSS.
#
# zcat and the two exports with a mapping run ROUNDS times side by side (default 3); their rows
# and ratios are medians, each ratio taken within its round.
#
# Environment: KEEP_OUTPUT=1 keeps bench/out/x (the export output); BUILD_DIR overrides
# build-bench; ROUNDS sets the rounds. Delete bench/out/ to force new dumps (e.g. after changing the generator).
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
rounds="${ROUNDS:-3}"
if ! [[ $rounds =~ ^[1-9][0-9]*$ ]]; then
	echo "bench/run.sh: bad ROUNDS '$rounds' (a count, e.g. 3)" >&2
	exit 2
fi
small_bytes=$((bytes / 10))

. "$root/bench/lib.bash"
build_release ddbpipe ddbpipe-gen ddbpipe-floor ddbpipe-sink
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
	line=$("$gen" bench --mapping "$mapping" --design favorites --bytes "$want" --level 6 \
		--out "$file")
	echo "$line"
	# "FILE: N items, B bytes uncompressed, ..."
	echo "$line" | sed -E 's/.*: ([0-9]+) items, ([0-9]+) bytes uncompressed.*/items=\1 bytes=\2/' \
		>"$file.info"
}

info() { sed -E "s/.*$2=([0-9]+).*/\1/" "$1.info"; }

big="$out/favorites-$size-gz6.json.gz"
small="$out/favorites-$size-gz6-tenth.json.gz"
echo "== dumps"
make_dump "$big" "$bytes"
make_dump "$small" "$small_bytes"

big_bytes=$(info "$big" bytes)
big_items=$(info "$big" items)
small_real=$(info "$small" bytes)
small_items=$(info "$small" items)

echo "== runs (input: $big_items items, $big_bytes bytes uncompressed, $(stat -c %s "$big") gzip)"
# zcat and the two exports with a mapping, side by side in ROUNDS rounds (zcat, csv, ndjson,
# zcat, ...): on a shared machine one run can be a third slower than the next, so each export's
# ratio is taken within its round, and the rows and ratios give the medians.
walls_zcat=() walls_csv=() walls_ndjson=() walls_parquet=()
ratios_csv=() ratios_ndjson=() ratios_parquet=() parquet_vs_csv=()
for round in $(seq 1 "$rounds"); do
	echo "round $round of $rounds: zcat, export --format csv, ndjson, parquet"
	measure zcat /dev/null zcat "$big"
	walls_zcat+=("$m_wall")
	rss_zcat=$m_rss rc_zcat=$m_rc
	for fmt in csv ndjson parquet; do
		declare -n walls="walls_$fmt" fmt_ratios="ratios_$fmt"
		rm -rf "$out/x"
		measure "export-$fmt" /dev/null "$ddbpipe" export "$big" --mapping "$mapping" \
			--out "$out/x" --format "$fmt"
		walls+=("$m_wall")
		fmt_ratios+=("$(awk -v a="$m_wall" -v z="${walls_zcat[-1]}" 'BEGIN {printf "%.3f", a / z}')")
		declare -g "rss_$fmt=$m_rss" "rc_$fmt=$m_rc"
		unset -n walls fmt_ratios
	done
	parquet_vs_csv+=("$(awk -v a="${walls_parquet[-1]}" -v c="${walls_csv[-1]}" 'BEGIN {printf "%.3f", a / c}')")
	parquet_bytes=$(cat "$out"/x/*.parquet | wc -c)
done
m_wall=$(median "${walls_zcat[@]}") m_rss=$rss_zcat m_rc=$rc_zcat
row "zcat FILE > /dev/null" "$big_bytes" "$big_items"
zcat_wall=$m_wall
if command -v igzip >/dev/null 2>&1; then
	echo "igzip -dc"
	measure igzip /dev/null igzip -dc "$big"
	row "igzip -dc FILE > /dev/null" "$big_bytes" "$big_items"
fi
for fmt in csv ndjson parquet; do
	declare -n walls="walls_$fmt" fmt_ratios="ratios_$fmt" fmt_rss="rss_$fmt" fmt_rc="rc_$fmt"
	m_wall=$(median "${walls[@]}") m_rss=$fmt_rss m_rc=$fmt_rc
	row "ddbpipe export --format $fmt" "$big_bytes" "$big_items"
	ratios+=("export --format $fmt: $(median "${fmt_ratios[@]}") x the wall time of zcat (median of $rounds rounds: $(printf '%s\n' "${fmt_ratios[@]}" | sort -n | awk '{printf "%s%.2f", (NR > 1 ? ", " : ""), $1}'))")
	unset -n walls fmt_ratios fmt_rss fmt_rc
done
rss_big_csv=$rss_csv
ratios+=("export --format parquet: $(median "${parquet_vs_csv[@]}") x the wall time of export --format csv in the same round (median of $rounds rounds)")
echo "export --format csv --gzip (the size Parquet is compared with)"
rm -rf "$out/gz"
measure export-csv-gzip /dev/null "$ddbpipe" export "$big" --mapping "$mapping" --out "$out/gz" \
	--format csv --gzip
csv_gz_bytes=$(cat "$out"/gz/*.csv.gz | wc -c)
ratios+=("Parquet (zstd) files: $parquet_bytes bytes; gzip CSV: $csv_gz_bytes bytes ($(awk -v a="$parquet_bytes" -v b="$csv_gz_bytes" 'BEGIN {printf "%.2f", a / b}') x)")
rm -rf "$out/gz"

# Without a mapping: every attribute a typed column, the header their union (records spilled,
# then replayed under the final header).
echo "export --format csv without a mapping"
rm -rf "$out/x"
measure export-csv-raw /dev/null "$ddbpipe" export "$big" --out "$out/x" --format csv
row "ddbpipe export csv, no mapping" "$big_bytes" "$big_items"
ratios+=("export --format csv without a mapping: $(awk -v a="$m_wall" -v z="$zcat_wall" 'BEGIN {printf "%.2f", a / z}') x the wall time of zcat (one run, against zcat's median)")

# start_sink [--poll USEC]: a fresh ddbpipe-sink (item count 0) on a free port; sets sink_pid and
# sink_url.
start_sink() {
	rm -f "$out/sink.port"
	"$build/ddbpipe-sink" "$@" "$out/sink.port" &
	sink_pid=$!
	for _ in $(seq 1 50); do [ -s "$out/sink.port" ] && break; sleep 0.1; done
	sink_url="http://127.0.0.1:$(cat "$out/sink.port")"
}
# sink_stat NAME: what the running sink counted: items, requests or bytes (of request bodies).
sink_stat() {
	curl -fsS -X POST -H 'x-amz-target: DynamoDB_20120810.Stats' --data '{}' "$sink_url" |
		sed -E "s/.*\"$1\":([0-9]+).*/\1/"
}
sink_items() { sink_stat items; }
# check_sink_items LABEL ITEMS: says (and adds to the ratios) when the sink did not get every
# item of the dump, so a run that lost items cannot pass for a fast one.
check_sink_items() {
	local got
	got=$(sink_items || echo "?")
	if [ "$got" != "$2" ]; then
		echo "!! $1: the sink got $got items, the file has $2" >&2
		ratios+=("!! $1: the sink got $got items, the file has $2")
	fi
}

# The importer's own CPU per item: a local sink answers every request at once (ddbpipe-sink, a
# few microseconds a request from one epoll thread), SigV4 and x-amz-crc32 checks on, as against
# DynamoDB. The whole dump, so that start-up is a negligible share and the CPU figure (10 ms
# ticks) is fine enough. ROUNDS rounds, each a fresh sink, one that sleeps and one that polls
# rather than sleeps between requests (ddbpipe-sink --poll) in turn; the rows give the medians.
# Why both: on loopback the importer's sendmsg wakes a sleeping sink, an inter-processor
# interrupt its CPU figure pays for and a request to DynamoDB across a network does not; the two
# rows side by side show that share.
import_env=(env AWS_ACCESS_KEY_ID=bench AWS_SECRET_ACCESS_KEY=bench AWS_REGION=us-east-1
	AWS_EC2_METADATA_DISABLED=true)
cpu_own=() cpu_poll=() wall_own=() wall_poll=()
for round in $(seq 1 "$rounds"); do
	echo "import round $round of $rounds: to a local sink, then to one that polls"
	for via in own poll; do
		if [ $via = poll ]; then start_sink --poll 100000; else start_sink; fi
		measure "import-sink-$via" /dev/null "${import_env[@]}" "$ddbpipe" import "$big" \
			--table bench --endpoint-url "$sink_url"
		check_sink_items "import-sink-$via" "$big_items"
		if [ $via = own ]; then
			import_requests=$(sink_stat requests)
			import_body=$(( $(sink_stat bytes) / import_requests ))
			cpu_own+=("$m_cpu") wall_own+=("$m_wall") rss_own=$m_rss rc_own=$m_rc
		else
			cpu_poll+=("$m_cpu") wall_poll+=("$m_wall") rss_poll=$m_rss rc_poll=$m_rc
		fi
		kill "$sink_pid" 2>/dev/null
	done
done
per_item() { awk -v c="$1" -v n="$big_items" 'BEGIN {printf "%.2f", c * 1e6 / n}'; }
all_per_item() { for c in "$@"; do per_item "$c"; echo; done | sort -n | paste -sd, | sed 's/,/, /g'; }
m_wall=$(median "${wall_own[@]}") m_rss=$rss_own m_rc=$rc_own
row "ddbpipe import to sink" "$big_bytes" "$big_items"
import_cpu=$(median "${cpu_own[@]}")
ratios+=("import: $(per_item "$import_cpu") us of CPU per item (user + system; median of $rounds rounds: $(all_per_item "${cpu_own[@]}"))")
m_wall=$(median "${wall_poll[@]}") m_rss=$rss_poll m_rc=$rc_poll
row "the same, the sink polling" "$big_bytes" "$big_items"
ratios+=("import to a sink that polls (not woken by the importer's sendmsg): $(per_item "$(median "${cpu_poll[@]}")") us of CPU per item (rounds: $(all_per_item "${cpu_poll[@]}"))")

# The floor under any importer here: as many requests of the same mean size, sent and answered
# over 16 keep-alive connections with only SigV4's SHA-256 of each body and the CRC32 of each
# answer computed (bench/floor/floor.c): no input read, parsed or encoded.
echo "floor: the same requests, prepared (bench/floor)"
start_sink
measure floor-sink "$out/floor.txt" "$build/ddbpipe-floor" "${sink_url##*:}" "$import_requests" \
	"$import_body" 16
kill "$sink_pid" 2>/dev/null
row "floor: prepared requests to sink" "$big_bytes" "$big_items"
ratios+=("floor under any importer: $(awk -v c="$m_cpu" -v n="$big_items" 'BEGIN {printf "%.2f", c * 1e6 / n}') us of CPU per item ($import_requests requests of $import_body bytes: loopback HTTP, SHA-256 of each body, CRC32 of each answer); ddbpipe import uses $(awk -v c="$m_cpu" -v d="$import_cpu" 'BEGIN {printf "%.1f", (c > 0 ? d / c : 0)}') x the floor")
echo "floor, the sink polling"
start_sink --poll 100000
measure floor-poll-sink "$out/floor-poll.txt" "$build/ddbpipe-floor" "${sink_url##*:}" \
	"$import_requests" "$import_body" 16
kill "$sink_pid" 2>/dev/null
row "floor, the sink polling" "$big_bytes" "$big_items"
ratios+=("floor, the sink polling: $(awk -v c="$m_cpu" -v n="$big_items" 'BEGIN {printf "%.2f", c * 1e6 / n}') us of CPU per item")
# The same through libcurl's multi interface, as ddbpipe's client sends them: the HTTP library's
# own share.
echo "floor through libcurl (bench/floor --curl)"
start_sink
measure floor-curl-sink "$out/floor-curl.txt" "$build/ddbpipe-floor" --curl "${sink_url##*:}" \
	"$import_requests" "$import_body" 16
kill "$sink_pid" 2>/dev/null
row "floor: the same through libcurl" "$big_bytes" "$big_items"
ratios+=("floor through libcurl: $(awk -v c="$m_cpu" -v n="$big_items" 'BEGIN {printf "%.2f", c * 1e6 / n}') us of CPU per item")

# For scale: the same file and a fresh sink through the AWS SDK for JavaScript v3, as a Node user
# would write the importer (bench/sdk-import.js; 16 requests in flight like ddbpipe's default).
if [ -d "$root/node_modules/@aws-sdk/client-dynamodb" ]; then
	echo "Node AWS SDK v3 import to a local sink (1/10 input)"
	start_sink
	measure sdk-import-sink /dev/null node "$root/bench/sdk-import.js" "$small" --table bench \
		--endpoint "$sink_url" --concurrency 16
	check_sink_items sdk-import-sink "$small_items"
	kill "$sink_pid" 2>/dev/null
	row "Node SDK v3 import to sink (1/10)" "$small_real" "$small_items"
	ratios+=("$(awk -v s="$m_cpu" -v n="$small_items" -v d="$import_cpu" -v dn="$big_items" 'BEGIN {
		printf "Node SDK v3 import: %.2f us of CPU per item; ddbpipe uses %.2f x its CPU per item",
			s * 1e6 / n, (s > 0 ? (d / dn) / (s / n) : 0) }')")
else
	echo "Node AWS SDK v3 import: skipped (node_modules/@aws-sdk missing; run npm ci)"
	ratios+=("Node SDK v3 import: skipped (node_modules/@aws-sdk missing; run npm ci)")
fi

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
for r in "${ratios[@]}"; do echo "$r"; done
echo "MB = 10^6 bytes of uncompressed input; logs in ${out#"$root"/}/*.log"
