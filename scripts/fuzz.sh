#!/usr/bin/env bash
# Fuzzes ddbpipe's parsers with libFuzzer under AddressSanitizer and UndefinedBehaviorSanitizer.
#
#   scripts/fuzz.sh [SECONDS] [HARNESS...]     default: 60 seconds each, every harness
#
# Harnesses (tests/fuzz/fuzz_<name>.c): ddbjson, ndjson, csv, json, manifest, mapping, template,
# state, ini. Builds them with clang in build-fuzz/ (BUILD_DIR overrides), then runs each for
# SECONDS on a copy of its corpus tests/fuzz/corpus/<name>/ (new inputs stay in
# build-fuzz/corpus/<name>/; the committed corpus is only read). A crash leaves its input in
# build-fuzz/findings/<name>/ and makes the script fail: fix the bug, then add the input to
# tests/fuzz/corpus/<name>/ as crash-<what> so the suite (label fuzz) keeps checking it.
# JOBS=N runs N harnesses at once (default: the number of CPUs). MERGE=1 then adds to the
# committed corpora, as cov-<sha1>, the inputs that reach code the corpora do not (libFuzzer
# -merge=1): review and commit them to widen the regression test.
#
# Needs clang and its libFuzzer runtime (Debian: apt-get install clang libclang-rt-14-dev).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$root/build-fuzz}"
seconds="${1:-60}"
shift || true
jobs="${JOBS:-$(nproc 2>/dev/null || echo 2)}"
harnesses=("$@")
if [ ${#harnesses[@]} -eq 0 ]; then
    for f in "$root"/tests/fuzz/fuzz_*.c; do
        h=$(basename "$f" .c)
        harnesses+=("${h#fuzz_}")
    done
fi
if ! [[ $seconds =~ ^[0-9]+$ ]] || [ "$seconds" -eq 0 ]; then
    echo "scripts/fuzz.sh: SECONDS must be a positive number, not '$seconds'" >&2
    exit 2
fi
command -v clang >/dev/null || {
    echo "scripts/fuzz.sh: clang is needed (apt-get install clang libclang-rt-14-dev)" >&2
    exit 2
}

echo "== build (clang, libFuzzer, ASan + UBSan) in ${build#"$root"/}"
cmake -S "$root" -B "$build" -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DDDB_FUZZ=ON -DDDB_SANITIZE=ON -DDDB_TESTS=OFF >/dev/null
targets=()
for h in "${harnesses[@]}"; do targets+=("fuzz_$h"); done
cmake --build "$build" -j"$jobs" --target "${targets[@]}" >/dev/null

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:symbolize=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
fuzz_one() {
    local h=$1 work="$build/corpus/$1" found="$build/findings/$1"
    mkdir -p "$work" "$found"
    cp -n "$root/tests/fuzz/corpus/$h"/* "$work/" 2>/dev/null || true
    # -max_len: the seeds are small; 64 KiB leaves room for growth without slowing the search
    local rc=0
    "$build/fuzz_$h" "$work" -max_total_time="$seconds" -max_len=65536 -timeout=20 \
        -rss_limit_mb=2048 -artifact_prefix="$found/" -print_final_stats=1 \
        >"$build/fuzz_$h.log" 2>&1 || rc=$?
    echo "$rc" >"$build/fuzz_$h.rc"
}

echo "== fuzzing ${harnesses[*]} for $seconds s each ($jobs at a time)"
failed=()
running=0
for h in "${harnesses[@]}"; do
    rm -f "$build/fuzz_$h.rc"
    fuzz_one "$h" &
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then
        wait -n || true
        running=$((running - 1))
    fi
done
wait
for h in "${harnesses[@]}"; do
    [ "$(cat "$build/fuzz_$h.rc" 2>/dev/null)" = 0 ] || failed+=("$h")
done
for h in "${harnesses[@]}"; do
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$build/fuzz_$h.log" | tail -1)
    cov=$(grep -o 'cov: [0-9]*' "$build/fuzz_$h.log" | tail -1)
    printf '%-10s %10s runs  %s  %s\n' "$h" "${runs:-?}" "${cov:-}" \
        "$(ls "$build/findings/$h" 2>/dev/null | head -3 | tr '\n' ' ')"
done
if [ "${MERGE:-0}" = 1 ]; then
    for h in "${harnesses[@]}"; do
        committed="$root/tests/fuzz/corpus/$h"
        merged="$build/merge/$h"
        rm -rf "$merged"
        mkdir -p "$merged"
        cp "$committed"/* "$merged/"
        "$build/fuzz_$h" -merge=1 "$merged" "$build/corpus/$h" >"$build/merge_$h.log" 2>&1
        added=0
        for f in "$merged"/*; do
            name=$(basename "$f")
            [ -e "$committed/$name" ] && continue
            cp "$f" "$committed/cov-$name"
            added=$((added + 1))
        done
        echo "merged $h: $added new inputs in tests/fuzz/corpus/$h/"
    done
fi
if [ ${#failed[@]} -gt 0 ]; then
    echo "FINDINGS in: ${failed[*]} (logs: ${build#"$root"/}/fuzz_<name>.log, inputs:" \
        "${build#"$root"/}/findings/<name>/)" >&2
    exit 1
fi
echo "== no findings"
