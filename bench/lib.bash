# Shared by the benchmark scripts (sourced; needs $root, $build and $out): the Release build,
# timing with peak memory, and result rows.

# build_release TARGET...: configures $build (Release, no tests; its options set once) and builds
# the targets.
build_release() {
	echo "== build (Release) in ${build#"$root"/}"
	if [ ! -f "$build/CMakeCache.txt" ]; then
		cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DDDB_TESTS=OFF >/dev/null
	else
		cmake "$build" >/dev/null # a target added since it was configured
	fi
	cmake --build "$build" -j"$(nproc)" --target "$@" >/dev/null
}

# measure LABEL STDOUT CMD...: sets m_wall (s), m_rss (KiB), m_rc, and m_cpu (user + system
# seconds; empty without /usr/bin/time). Peak RSS comes from GNU
# time's %M (the same figure as -v "Maximum resident set size"); without /usr/bin/time it
# is polled from VmHWM in /proc/PID/status.
measure() {
	local label=$1 stdout=$2 t0 t1 tf peak v pid
	shift 2
	tf=$(mktemp)
	t0=$(date +%s%N)
	if [ -x /usr/bin/time ]; then
		set +e
		/usr/bin/time -f "%M %U %S" -o "$tf" "$@" >"$stdout" 2>"$out/$label.log"
		m_rc=$?
		set -e
		m_rss=$(tail -n 1 "$tf" | cut -d' ' -f1)
		m_cpu=$(tail -n 1 "$tf" | awk '{printf "%.2f", $2 + $3}')
	else
		"$@" >"$stdout" 2>"$out/$label.log" &
		pid=$!
		peak=0
		while kill -0 "$pid" 2>/dev/null; do
			v=$(awk '/^VmHWM:/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
			if [ -n "$v" ] && [ "$v" -gt "$peak" ]; then peak=$v; fi
			sleep 0.05
		done
		set +e
		wait "$pid"
		m_rc=$?
		set -e
		m_rss=$peak
		m_cpu=
	fi
	t1=$(date +%s%N)
	rm -f "$tf"
	m_wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f", (b - a) / 1e9}')
	if [ "$m_rc" -ne 0 ]; then
		echo "!! $label exited with status $m_rc; see ${out#"$root"/}/$label.log" >&2
	fi
}

# median X...: the middle value (the mean of the two middle ones for an even count).
median() {
	printf '%s\n' "$@" | sort -n | awk '{v[NR] = $1} END {
		if (NR == 0) exit 1
		printf "%.2f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

rows=()
# row LABEL INPUT_BYTES ITEMS
row() {
	local label=$1 in_bytes=$2 items=$3
	rows+=("$(awk -v l="$label" -v w="$m_wall" -v b="$in_bytes" -v n="$items" -v r="$m_rss" \
		-v rc="$m_rc" 'BEGIN {
			mbs = w > 0 ? b / 1e6 / w : 0; ips = w > 0 ? n / w : 0;
			printf "%-34s %9.2f %10.1f %12.0f %10.1f %4d", l, w, mbs, ips, r / 1024, rc }')")
}

