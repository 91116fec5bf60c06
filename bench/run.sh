#!/usr/bin/env bash
# Throughput, scaling, memory and CPU per item of `ddbpipe export` and `import`, on four shapes of
# data, and CPU per item of an export from a table (Scan) and of the live catch-up.
#
#   bench/run.sh [SIZE]      SIZE of each shape's uncompressed input: 384M (default), 1G, ...
#
# Builds a Release ddbpipe, ddbpipe-gen, ddbpipe-floor and ddbpipe-sink in build-bench/, makes (or
# reuses) in bench/out/ one input of about SIZE for each shape:
#   lean    favorites items as the seed's DTOs hold them (formats/favorites.json; gzip -6)
#   rich    the same design, every item also carrying undeclared attributes as real tables do: a
#           nested map with a 30-digit number and a list of BOOL/NULL/B, a string set, binary,
#           38-digit numbers (ddbpipe-gen bench --rich; the mapping leaves them to _extra)
#   real    the real AWS Export to S3 in ../shared/testdata/aws-export repeated to SIZE in its own
#           layout (manifests, gzip data files; ddbpipe-gen repeat-export, keys made distinct),
#           read without a mapping
#   movies  a movies-design dump (formats/movies.json: actors, movies, casts, streams; every
#           DynamoDB type)
# and a 10x smaller lean and rich dump. Then, for each shape, ROUNDS rounds (default 3) of:
#   - zcat of its gzip files > /dev/null        (the floor: gzip decoding alone)
#   - ddbpipe export --format csv, ndjson, parquet (each a ratio to the zcat of the same round)
#   - ddbpipe export --format csv --threads 1 and --threads 2 (the scaling: their ratio)
# and once export --format csv --gzip (Parquet's file size is compared with it). Rows and ratios
# are medians over the rounds, each ratio taken within its round. Then:
#   - ddbpipe export of the lean input as CSV without a mapping (typed columns, their union)
#   - ddbpipe import of the lean input to ddbpipe-sink (bench/sink/sink.c: the importer's CPU per
#     item), ROUNDS times, each time also to a sink that polls
#   - ddbpipe-floor (bench/floor/floor.c): the same requests, prepared, the least any importer
#     spends here, and the same through libcurl (--curl)
#   - bench/sdk-import.js of the lean 1/10 to a fresh sink (the same import with the Node AWS SDK
#     v3, for scale; skipped without node_modules/@aws-sdk)
#   - ddbpipe export --table of the lean and the rich 1/10 from ddbpipe-sink --scan (a parallel
#     Scan of 4 segments served from memory): CPU per item, ROUNDS rounds
#   - the live catch-up of bench/live.sh (20,000 changes replayed from DynamoDB Local's stream):
#     CPU per change; skipped with LIVE=0 or without Java or node_modules
#   - ddbpipe export of the lean 1/10 --format csv (peak memory must not grow with the input)
# and prints wall time, MB/s of uncompressed input, items/s and peak RSS, then the ratios.
#
# Environment: KEEP_OUTPUT=1 keeps bench/out/x (the export output); BUILD_DIR overrides
# build-bench; ROUNDS sets the rounds; LIVE=0 skips the live catch-up. Delete bench/out/ to force
# new inputs (e.g. after changing the generator).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$root/build-bench}"
out="$root/bench/out"
size="${1:-384M}"
mapping="$root/formats/favorites.json"
real_export="$root/../shared/testdata/aws-export/01716790307109-5f9d6aaa"

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
		echo "bench/run.sh: bad size '$s' (use e.g. 1G, 384M, 2000000)" >&2
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

# make_dump FILE BYTES ARGS...: a ddbpipe-gen bench dump (ARGS: its mapping, design, --rich);
# reuses FILE when its .info (items and bytes) is there.
make_dump() {
	local file=$1 want=$2 line
	shift 2
	if [ -f "$file" ] && [ -f "$file.info" ]; then
		echo "reusing ${file#"$root"/} ($(cat "$file.info"))"
		return
	fi
	rm -f "$file" "$file.info"
	line=$("$gen" bench "$@" --bytes "$want" --level 6 --out "$file")
	echo "$line"
	# "FILE: N items, B bytes uncompressed, ..."
	echo "$line" | sed -E 's/.*: ([0-9]+) items, ([0-9]+) bytes uncompressed.*/items=\1 bytes=\2/' \
		>"$file.info"
}

# make_real DIR BYTES: the real export repeated to BYTES (its .info as make_dump's).
make_real() {
	local dir=$1 want=$2 line
	if [ -d "$dir" ] && [ -f "$dir.info" ]; then
		echo "reusing ${dir#"$root"/} ($(cat "$dir.info"))"
		return
	fi
	rm -rf "$dir" "$dir.info"
	line=$("$gen" repeat-export --from "$real_export" --key name --bytes "$want" --out "$dir")
	echo "$line"
	echo "$line" | sed -E 's/.*: ([0-9]+) items, ([0-9]+) bytes uncompressed.*/items=\1 bytes=\2/' \
		>"$dir.info"
}

info() { sed -E "s/.*$2=([0-9]+).*/\1/" "$1.info"; }

fav=(--mapping "$mapping" --design favorites)
movies_map="$root/formats/movies.json"
big="$out/favorites-$size-gz6.json.gz"
small="$out/favorites-$size-gz6-tenth.json.gz"
rich="$out/rich-$size-gz6.json.gz"
rich_small="$out/rich-$size-gz6-tenth.json.gz"
movies="$out/movies-$size-gz6.json.gz"
real="$out/real-$size"
echo "== inputs"
make_dump "$big" "$bytes" "${fav[@]}"
make_dump "$small" "$small_bytes" "${fav[@]}"
make_dump "$rich" "$bytes" "${fav[@]}" --rich
make_dump "$rich_small" "$small_bytes" "${fav[@]}" --rich
make_dump "$movies" "$bytes" --mapping "$movies_map" --design movies
if [ -d "$real_export" ]; then
	make_real "$real" "$bytes"
	shapes=(lean rich real movies)
else
	echo "real: skipped (no $real_export)"
	shapes=(lean rich movies)
fi

big_bytes=$(info "$big" bytes)
big_items=$(info "$big" items)
small_real=$(info "$small" bytes)
small_items=$(info "$small" items)

# shape_input SHAPE: sets in (what export reads), gz (its gzip files, for zcat), map (the mapping
# arguments), in_bytes and in_items.
shape_input() {
	case "$1" in
	lean) in=$big gz=("$big") map=(--mapping "$mapping") ;;
	rich) in=$rich gz=("$rich") map=(--mapping "$mapping") ;;
	real) in=$real gz=("$real"/AWSDynamoDB/*/data/*.json.gz) map=() ;;
	movies) in=$movies gz=("$movies") map=(--mapping "$movies_map") ;;
	esac
	in_bytes=$(info "$in" bytes)
	in_items=$(info "$in" items)
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3f", (b > 0 ? a / b : 0)}'; }
# sorted_list X...: the values sorted, two decimals, comma-separated.
sorted_list() { printf '%s\n' "$@" | sort -n | awk '{printf "%s%.2f", (NR > 1 ? ", " : ""), $1}'; }

# Each shape: zcat, the three formats and the two thread counts side by side in ROUNDS rounds: on a
# shared machine one run can be a third slower than the next, so each ratio is taken within its
# round, and the rows and ratios give the medians.
shape_rows=()
for shape in "${shapes[@]}"; do
	shape_input "$shape"
	echo "== $shape: $in_items items, $in_bytes bytes uncompressed, $(cat "${gz[@]}" | wc -c) gzip"
	walls_zcat=() walls_csv=() walls_ndjson=() walls_parquet=() walls_t1=() walls_t2=()
	ratios_csv=() ratios_ndjson=() ratios_parquet=() scaling=() cpus_t1=() cpus_t2=()
	rss_t2=0
	for round in $(seq 1 "$rounds"); do
		echo "round $round of $rounds: zcat, export --format csv, ndjson, parquet, csv --threads 1, 2"
		measure "$shape-zcat" /dev/null zcat "${gz[@]}"
		walls_zcat+=("$m_wall")
		rss_zcat=$m_rss rc_zcat=$m_rc
		for fmt in csv ndjson parquet; do
			declare -n walls="walls_$fmt" fmt_ratios="ratios_$fmt"
			rm -rf "$out/x"
			measure "$shape-export-$fmt" /dev/null "$ddbpipe" export "$in" "${map[@]}" \
				--out "$out/x" --format "$fmt"
			walls+=("$m_wall")
			fmt_ratios+=("$(ratio "$m_wall" "${walls_zcat[-1]}")")
			declare -g "rss_$fmt=$m_rss" "rc_$fmt=$m_rc"
			unset -n walls fmt_ratios
		done
		parquet_bytes=$(cat "$out"/x/*.parquet | wc -c)
		for t in 1 2; do
			rm -rf "$out/x"
			measure "$shape-export-csv-t$t" /dev/null "$ddbpipe" export "$in" "${map[@]}" \
				--out "$out/x" --format csv --threads "$t"
			declare -n walls="walls_t$t" cpus="cpus_t$t"
			walls+=("$m_wall")
			cpus+=("$m_cpu")
			unset -n walls cpus
		done
		[ "$m_rss" -gt "$rss_t2" ] && rss_t2=$m_rss
		scaling+=("$(ratio "${walls_t1[-1]}" "${walls_t2[-1]}")")
	done
	m_wall=$(median "${walls_zcat[@]}") m_rss=$rss_zcat m_rc=$rc_zcat
	row "$shape: zcat > /dev/null" "$in_bytes" "$in_items"
	for fmt in csv ndjson parquet; do
		declare -n walls="walls_$fmt" fmt_ratios="ratios_$fmt" fmt_rss="rss_$fmt" fmt_rc="rc_$fmt"
		m_wall=$(median "${walls[@]}") m_rss=$fmt_rss m_rc=$fmt_rc
		row "$shape: export --format $fmt" "$in_bytes" "$in_items"
		shape_rows+=("$(printf '%-7s %-8s %6s x zcat   (rounds: %s)' "$shape" "$fmt" \
			"$(median "${fmt_ratios[@]}")" "$(sorted_list "${fmt_ratios[@]}")")")
		[ "$shape" = lean ] && [ "$fmt" = csv ] && rss_big_csv=$fmt_rss
		unset -n walls fmt_ratios fmt_rss fmt_rc
	done
	shape_rows+=("$(printf '%-7s %-8s %6s x      (csv --threads 1 %s s, --threads 2 %s s; rounds: %s); peak RSS at 2 threads %.1f MB' \
		"$shape" scaling "$(median "${scaling[@]}")" "$(median "${walls_t1[@]}")" \
		"$(median "${walls_t2[@]}")" "$(sorted_list "${scaling[@]}")" \
		"$(awk -v r="$rss_t2" 'BEGIN {print r / 1024}')")")
	# Two cores run at most CPU / 2 seconds of work a second: what the CPU of the two-thread run
	# allows, against --threads 1 and against zcat, whatever the split of the work.
	shape_rows+=("$(awk -v c1="$(median "${cpus_t1[@]}")" -v c2="$(median "${cpus_t2[@]}")" \
		-v w1="$(median "${walls_t1[@]}")" -v z="$(median "${walls_zcat[@]}")" -v s="$shape" \
		'BEGIN {printf "%-7s %-8s CPU (user + sys) %.2f s at 1 thread, %.2f s at 2: two cores allow at most %.2f x the 1-thread speed and at best %.2f x zcat", s, "cpu", c1, c2, (c2 > 0 ? w1 / (c2 / 2) : 0), (z > 0 ? c2 / 2 / z : 0)}')")
	echo "export --format csv --gzip (the size Parquet is compared with)"
	rm -rf "$out/gz"
	measure "$shape-export-csv-gzip" /dev/null "$ddbpipe" export "$in" "${map[@]}" --out "$out/gz" \
		--format csv --gzip
	csv_gz_bytes=$(cat "$out"/gz/*.csv.gz | wc -c)
	shape_rows+=("$(printf '%-7s %-8s %6s x      (Parquet, zstd: %s bytes; export --format csv --gzip: %s bytes)' \
		"$shape" size "$(ratio "$parquet_bytes" "$csv_gz_bytes")" "$parquet_bytes" "$csv_gz_bytes")")
	rm -rf "$out/gz"
done
ratios=()

# Without a mapping: every attribute a typed column, the header their union (records spilled,
# then replayed under the final header).
echo "lean: export --format csv without a mapping"
measure lean-zcat /dev/null zcat "$big"
zcat_lean=$m_wall
rm -rf "$out/x"
measure export-csv-raw /dev/null "$ddbpipe" export "$big" --out "$out/x" --format csv
row "lean: export csv, no mapping" "$big_bytes" "$big_items"
ratios+=("lean: export --format csv without a mapping: $(ratio "$m_wall" "$zcat_lean") x the wall time of zcat (one pair)")

# start_sink [--poll USEC] [--scan FILE]: a fresh ddbpipe-sink (item count 0) on a free port; sets sink_pid and
# sink_url.
start_sink() {
	rm -f "$out/sink.port"
	"$build/ddbpipe-sink" "$@" "$out/sink.port" &
	sink_pid=$!
	# with --scan it reads its table first
	for _ in $(seq 1 300); do [ -s "$out/sink.port" ] && break; sleep 0.1; done
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
row "lean: import to sink" "$big_bytes" "$big_items"
import_cpu=$(median "${cpu_own[@]}")
ratios+=("lean: import: $(per_item "$import_cpu") us of CPU per item (user + system; median of $rounds rounds: $(all_per_item "${cpu_own[@]}"))")
m_wall=$(median "${wall_poll[@]}") m_rss=$rss_poll m_rc=$rc_poll
row "lean: the same, the sink polling" "$big_bytes" "$big_items"
ratios+=("lean: import to a sink that polls (not woken by the importer's sendmsg): $(per_item "$(median "${cpu_poll[@]}")") us of CPU per item (rounds: $(all_per_item "${cpu_poll[@]}"))")

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

# Export from a table: ddbpipe-sink --scan holds the lean (then the rich) 1/10 in memory and
# answers a parallel Scan of 4 segments at once; ddbpipe's CPU (user + system) per item, ROUNDS
# rounds, each a fresh sink (it loads the file before it says its port).
for shape in lean rich; do
	if [ $shape = lean ]; then scan_in=$small; else scan_in=$rich_small; fi
	scan_items=$(info "$scan_in" items)
	cpu_scan=()
	for round in $(seq 1 "$rounds"); do
		echo "$shape: export --table from a sink that serves the 1/10 by Scan, round $round of $rounds"
		start_sink --scan "$scan_in"
		rm -rf "$out/x"
		measure "$shape-export-scan" /dev/null "${import_env[@]}" "$ddbpipe" export --table bench \
			--mapping "$mapping" --ignore-schema-mismatch --segments 4 --endpoint-url "$sink_url" \
			--out "$out/x" --format csv
		got=$(sink_stat scanned || echo "?")
		kill "$sink_pid" 2>/dev/null
		if [ "$got" != "$scan_items" ]; then
			echo "!! $shape-export-scan: the sink served $got items, the table has $scan_items" >&2
			ratios+=("!! $shape: export --table: the sink served $got items, the table has $scan_items")
		fi
		cpu_scan+=("$m_cpu")
	done
	row "$shape: export --table (Scan) 1/10" "$(info "$scan_in" bytes)" "$scan_items"
	ratios+=("$shape: export from a table (parallel Scan, 4 segments, to CSV): $(awk -v c="$(median "${cpu_scan[@]}")" -v n="$scan_items" 'BEGIN {printf "%.2f", c * 1e6 / n}') us of CPU per item (median of $rounds rounds of the 1/10: $(for c in "${cpu_scan[@]}"; do awk -v c="$c" -v n="$scan_items" 'BEGIN {printf "%.2f\n", c * 1e6 / n}'; done | sort -n | paste -sd, | sed 's/,/, /g'))")
done

# The live catch-up: bench/live.sh's first part (20,000 changes written while the migration is
# stopped, then replayed from DynamoDB Local's stream), its lag run skipped (SECONDS 0).
if [ "${LIVE:-1}" != 0 ] && command -v java >/dev/null 2>&1 &&
	[ -d "$root/node_modules/@aws-sdk/client-dynamodb" ]; then
	echo "live catch-up (bench/live.sh 20000 0 0, DynamoDB Local)"
	if DDBPIPE="$ddbpipe" "$root/bench/live.sh" 20000 0 0 >"$out/live.log" 2>&1; then
		ratios+=("live (favorites-like items of tests/integration/live): $(grep '^catch-up:' "$out/live.log")")
	else
		echo "!! bench/live.sh failed; see ${out#"$root"/}/live.log" >&2
		ratios+=("!! live catch-up: bench/live.sh failed; see ${out#"$root"/}/live.log")
	fi
else
	ratios+=("live catch-up: skipped (LIVE=0, or no Java or node_modules)")
fi

echo "export --format csv (1/10 input)"
rm -rf "$out/x"
measure export-csv-tenth /dev/null "$ddbpipe" export "$small" --mapping "$mapping" \
	--out "$out/x" --format csv
row "lean: export --format csv (1/10)" "$small_real" "$small_items"
rss_small_csv=$m_rss
[ "${KEEP_OUTPUT:-0}" = 1 ] || rm -rf "$out/x"

echo
echo "== results ($(nproc) CPUs, $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo))"
printf "%-34s %9s %10s %12s %10s %4s\n" "run" "wall s" "MB/s in" "items/s" "peak MB" "exit"
printf "%-34s %9s %10s %12s %10s %4s\n" "---" "------" "-------" "-------" "-------" "----"
for r in "${rows[@]}"; do echo "$r"; done
echo
echo "each shape and format: the export's wall time against zcat of the same files (medians)"
for r in "${shape_rows[@]}"; do echo "$r"; done
echo
awk -v a="$rss_big_csv" -v b="$rss_small_csv" 'BEGIN {
	printf "memory bound (lean, CSV): peak RSS %.1f MB for the full input vs %.1f MB for 1/10 of it (ratio %.2f)\n",
		a / 1024, b / 1024, (b > 0 ? a / b : 0) }'
for r in "${ratios[@]}"; do echo "$r"; done
echo "MB = 10^6 bytes of uncompressed input; logs in ${out#"$root"/}/*.log"
