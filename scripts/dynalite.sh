#!/usr/bin/env bash
# Start/stop an in-memory dynalite (DynamoDB-compatible test server) on 127.0.0.1.
#
#   scripts/dynalite.sh start <statedir>   start on a free loopback port; writes <statedir>/port,
#                                          <statedir>/pid, <statedir>/log; waits until it answers
#                                          ListTables; prints http://127.0.0.1:PORT on stdout
#   scripts/dynalite.sh stop <statedir>    stop it (TERM, then KILL after 5 s); idempotent
#   scripts/dynalite.sh url <statedir>     print the endpoint of a running instance
#
# Environment:
#   DYNALITE_OWNER_PID   if set, dynalite exits by itself once that process is gone (use the
#                        test driver's pid, e.g. DYNALITE_OWNER_PID=$$, so a killed driver
#                        leaves no orphan even when its cleanup never runs)
#   DYNALITE_TABLE_MS    createTableMs/deleteTableMs/updateTableMs (default 0)
#   DYNALITE_START_TIMEOUT  seconds to wait for readiness (default 20)
#   NODE                 node binary (default: node)
#
# Requires `npm ci` (or `npm install`) to have been run at the repository root beforehand;
# nothing here touches the network beyond 127.0.0.1.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
node_bin="${NODE:-node}"

die() { echo "dynalite.sh: $*" >&2; exit 1; }

usage() {
	echo "usage: $0 start|stop|url <statedir>" >&2
	exit 2
}

# Only signal a pid that is still our dynalite-server.js, in case the pid was recycled.
is_ours() {
	local pid="$1"
	[[ -r "/proc/$pid/cmdline" ]] || return 1
	tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q 'dynalite-server\.js'
}

# POST a ListTables; dynalite insists on an AWS4-looking Authorization header and an
# X-Amz-Date but never checks the signature.
probe() {
	local port="$1"
	curl -s -o /dev/null -w '%{http_code}' --max-time 2 \
		-H 'Content-Type: application/x-amz-json-1.0' \
		-H 'X-Amz-Target: DynamoDB_20120810.ListTables' \
		-H 'X-Amz-Date: 20240101T000000Z' \
		-H 'Authorization: AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20240101/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date;x-amz-target, Signature=0000' \
		--data '{}' "http://127.0.0.1:$port/" 2>/dev/null || true
}

cmd_start() {
	local dir="$1"
	mkdir -p "$dir"
	dir="$(cd "$dir" && pwd)"
	if [[ -f "$dir/pid" ]] && is_ours "$(cat "$dir/pid")"; then
		die "already running in $dir (pid $(cat "$dir/pid")); stop it first"
	fi
	[[ -f "$root/node_modules/dynalite/package.json" ]] ||
		die "dynalite is not installed: run 'npm ci' in $root"
	rm -f "$dir/port" "$dir/port.tmp" "$dir/pid"

	local args=(--port 0 --port-file "$dir/port" --table-ms "${DYNALITE_TABLE_MS:-0}")
	if [[ -n "${DYNALITE_OWNER_PID:-}" ]]; then
		args+=(--owner-pid "$DYNALITE_OWNER_PID")
	fi
	# stdin/stdout/stderr all detached from the caller so `url=$(dynalite.sh start d)` returns.
	"$node_bin" "$here/dynalite-server.js" "${args[@]}" </dev/null >"$dir/log" 2>&1 &
	local pid=$!
	echo "$pid" >"$dir/pid"

	local timeout="${DYNALITE_START_TIMEOUT:-20}"
	local deadline=$((SECONDS + timeout))
	local port=""
	while ((SECONDS < deadline)); do
		if ! kill -0 "$pid" 2>/dev/null; then
			rm -f "$dir/pid"
			die "dynalite exited during startup; log follows:$(printf '\n')$(cat "$dir/log")"
		fi
		if [[ -z "$port" && -s "$dir/port" ]]; then
			port="$(tr -d '[:space:]' <"$dir/port")"
		fi
		if [[ -n "$port" && "$(probe "$port")" == "200" ]]; then
			echo "http://127.0.0.1:$port"
			return 0
		fi
		sleep 0.1
	done
	cmd_stop "$dir" || true
	die "dynalite did not answer within ${timeout}s; see $dir/log"
}

cmd_stop() {
	local dir="$1"
	[[ -f "$dir/pid" ]] || return 0
	local pid
	pid="$(cat "$dir/pid")"
	if is_ours "$pid"; then
		kill -TERM "$pid" 2>/dev/null || true
		local i
		for ((i = 0; i < 50; i++)); do
			is_ours "$pid" || break
			sleep 0.1
		done
		if is_ours "$pid"; then
			kill -KILL "$pid" 2>/dev/null || true
		fi
	fi
	# Reap it if it is our own child (same shell started it), so no zombie lingers.
	wait "$pid" 2>/dev/null || true
	rm -f "$dir/pid" "$dir/port" "$dir/port.tmp"
}

cmd_url() {
	local dir="$1"
	[[ -f "$dir/pid" && -f "$dir/port" ]] || die "not running in $dir"
	is_ours "$(cat "$dir/pid")" || die "pid $(cat "$dir/pid") in $dir is not a dynalite-server"
	echo "http://127.0.0.1:$(tr -d '[:space:]' <"$dir/port")"
}

[[ $# -eq 2 ]] || usage
case "$1" in
start) cmd_start "$2" ;;
stop) cmd_stop "$2" ;;
url) cmd_url "$2" ;;
*) usage ;;
esac
