#!/usr/bin/env bash
# Start/stop AWS's DynamoDB Local (in memory) on a free port, for the tests that need what
# dynalite lacks: DynamoDB Streams (DescribeStream, GetShardIterator, GetRecords).
#
#   scripts/dynamodb-local.sh start <statedir> [--per-account]
#                                                start it; writes <statedir>/port, pid, log;
#                                                waits until it answers ListTables; prints
#                                                http://127.0.0.1:PORT on stdout.
#                                                --per-account: without -sharedDb, so each
#                                                access key and region has its own database
#                                                (two profiles with different keys are two
#                                                accounts)
#   scripts/dynamodb-local.sh stop <statedir>    stop it (TERM, then KILL after 5 s); idempotent
#   scripts/dynamodb-local.sh url <statedir>     print the endpoint of a running instance
#
# Environment:
#   DDBLOCAL_OWNER_PID      if set, the server is stopped once that process is gone (the test
#                           driver's pid, so a driver killed with SIGKILL leaves no server)
#   DDBLOCAL_START_TIMEOUT  seconds to wait for readiness (default 60: the JVM starts slowly
#                           on a busy machine)
#   JAVA                    java binary (default: java)
#
# DynamoDB Local comes in the npm package amplify-dynamodb-simulator (its emulator/ folder,
# pinned in package-lock.json) and needs a Java runtime; scripts/install-deps.sh installs both.
# It is started with -inMemory and, unless --per-account, -sharedDb (one database whatever the
# access key and region).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
emulator="$root/node_modules/amplify-dynamodb-simulator/emulator"
java_bin="${JAVA:-java}"

die() { echo "dynamodb-local.sh: $*" >&2; exit 1; }

usage() {
	echo "usage: $0 start <statedir> [--per-account] | stop|url <statedir>" >&2
	exit 2
}

# Only signal a pid that is still our DynamoDB Local, in case the pid was recycled.
is_ours() {
	local pid="$1"
	[[ -r "/proc/$pid/cmdline" ]] || return 1
	tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q 'DynamoDBLocal\.jar'
}

# A ListTables; DynamoDB Local wants a SigV4-looking Authorization header (it does not check
# the signature).
probe() {
	curl -s -o /dev/null -w '%{http_code}' --max-time 2 \
		-H 'Content-Type: application/x-amz-json-1.0' \
		-H 'X-Amz-Target: DynamoDB_20120810.ListTables' \
		-H 'X-Amz-Date: 20240101T000000Z' \
		-H 'Authorization: AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20240101/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date;x-amz-target, Signature=0000' \
		--data '{}' "http://127.0.0.1:$1/" 2>/dev/null || true
}

# A port free on 127.0.0.1 now (the kernel's pick); the JVM binds it a moment later, and a
# failure to bind is seen below as an exit during startup, retried with another port.
free_port() {
	node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

# Starts the JVM on port $2; returns 0 once it answers, 1 if it exited, 2 on timeout.
try_start() {
	local dir="$1" port="$2"
	(cd "$emulator" && exec "$java_bin" -Xmx256m -Djava.library.path=./DynamoDBLocal_lib \
		-jar DynamoDBLocal.jar -inMemory $shared -port "$port") </dev/null >"$dir/log" 2>&1 &
	local pid=$!
	echo "$pid" >"$dir/pid"
	local deadline=$((SECONDS + ${DDBLOCAL_START_TIMEOUT:-60}))
	while ((SECONDS < deadline)); do
		kill -0 "$pid" 2>/dev/null || return 1
		if [[ "$(probe "$port")" == "200" ]]; then
			echo "$port" >"$dir/port"
			return 0
		fi
		sleep 0.2
	done
	return 2
}

# Stops the server once the owner is gone (the watcher runs detached, and quits with it).
watch_owner() {
	local dir="$1" owner="$2" pid
	pid="$(cat "$dir/pid")"
	(
		while kill -0 "$owner" 2>/dev/null && kill -0 "$pid" 2>/dev/null; do sleep 1; done
		is_ours "$pid" && kill -TERM "$pid" 2>/dev/null
	) </dev/null >/dev/null 2>&1 &
}

cmd_start() {
	local dir="$1" attempt rc
	mkdir -p "$dir"
	dir="$(cd "$dir" && pwd)"
	if [[ -f "$dir/pid" ]] && is_ours "$(cat "$dir/pid")"; then
		die "already running in $dir (pid $(cat "$dir/pid")); stop it first"
	fi
	[[ -f "$emulator/DynamoDBLocal.jar" ]] ||
		die "DynamoDB Local is not installed: run scripts/install-deps.sh (npm ci) in $root"
	command -v "$java_bin" >/dev/null || die "no Java runtime: install default-jre-headless"
	rm -f "$dir/port" "$dir/pid"
	for attempt in 1 2 3; do
		rc=0
		try_start "$dir" "$(free_port)" || rc=$?
		if ((rc == 0)); then
			[[ -n "${DDBLOCAL_OWNER_PID:-}" ]] && watch_owner "$dir" "$DDBLOCAL_OWNER_PID"
			echo "http://127.0.0.1:$(cat "$dir/port")"
			return 0
		fi
		((rc == 2)) && break
	done
	cmd_stop "$dir" || true
	die "DynamoDB Local did not start (attempt $attempt); log follows:$(printf '\n')$(cat "$dir/log")"
}

cmd_stop() {
	local dir="$1" pid i
	[[ -f "$dir/pid" ]] || return 0
	pid="$(cat "$dir/pid")"
	if is_ours "$pid"; then
		kill -TERM "$pid" 2>/dev/null || true
		for ((i = 0; i < 50; i++)); do
			is_ours "$pid" || break
			sleep 0.1
		done
		is_ours "$pid" && kill -KILL "$pid" 2>/dev/null
	fi
	wait "$pid" 2>/dev/null || true
	rm -f "$dir/pid" "$dir/port"
}

cmd_url() {
	local dir="$1"
	[[ -f "$dir/pid" && -f "$dir/port" ]] || die "not running in $dir"
	is_ours "$(cat "$dir/pid")" || die "pid $(cat "$dir/pid") in $dir is not DynamoDB Local"
	echo "http://127.0.0.1:$(tr -d '[:space:]' <"$dir/port")"
}

shared=-sharedDb
if [[ $# -eq 3 && "$1" == start && "$3" == --per-account ]]; then
	shared=
	set -- "$1" "$2"
fi
[[ $# -eq 2 ]] || usage
case "$1" in
start) cmd_start "$2" ;;
stop) cmd_stop "$2" ;;
url) cmd_url "$2" ;;
*) usage ;;
esac
