# Checks shared by the command-line and integration tests (sourced after $tmp is set): failures
# counted, commands run with their exit status checked, files searched, runs killed mid-way.

failures=0

fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}

# run NAME EXPECTED_EXIT COMMAND...: runs, keeps the output in $tmp/NAME.out and $tmp/NAME.err
# (a / in NAME becomes _; the latest also in $tmp/stdout and $tmp/stderr); a wrong exit status
# is a failure, shown with the end of the error output. check is the same.
run() {
    local name=$1 want=$2 got file
    shift 2
    file="$tmp/${name//\//_}"
    "$@" >"$file.out" 2>"$file.err"
    got=$?
    cp "$file.out" "$tmp/stdout"
    cp "$file.err" "$tmp/stderr"
    if [ "$got" != "$want" ]; then
        fail "$name: exit $got, expected $want"
        sed 's/^/    /' "$file.err" | tail -30 >&2
        return 1
    fi
}
check() { run "$@"; }

# expect_in FILE TEXT: the file holds the text
expect_in() {
    grep -qF -- "$2" "$1" || {
        echo "FAIL: $1 lacks: $2" >&2
        sed 's/^/    /' "$1" | tail -30 >&2
        failures=$((failures + 1))
    }
}

# json_number FILE KEY: the first "KEY":N in a JSON file
json_number() {
    grep -o '"'"$2"'":[0-9]*' "$1" | head -1 | cut -d: -f2
}

# kill_after_progress PID STATEFILE PREVIOUS_POS [SIGNAL]: waits until the run's state file
# records progress beyond PREVIOUS_POS, then signals it (SIGKILL by default), so the kill lands
# mid-run whatever the machine's speed. Prints the position reached; fails if the run ended first.
pos_of() { sed -n 's/.*"pos":\([0-9]*\).*/\1/p' "$1" 2>/dev/null; }
kill_after_progress() {
    local pid=$1 st=$2 prev=$3 sig=${4:-KILL} i p
    for i in $(seq 1 1500); do
        kill -0 "$pid" 2>/dev/null || return 1
        p=$(pos_of "$st")
        if [ -n "$p" ] && [ "$p" != "$prev" ] && ! grep -q '"complete":true' "$st"; then
            kill -"$sig" "$pid" 2>/dev/null || return 1
            echo "$p"
            return 0
        fi
        sleep 0.02
    done
    return 1
}

finish() {
    if [ "$failures" -gt 0 ]; then
        echo "$(basename "$0"): $failures failure(s)" >&2
        exit 1
    fi
    echo "$(basename "$0"): ok"
}
