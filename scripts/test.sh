#!/usr/bin/env bash
# The whole test suite: an optimized build running every test (unit, golden, command-line and
# integration tests against a local DynamoDB server), then a build (with clang when installed)
# with AddressSanitizer and UndefinedBehaviorSanitizer running the unit, golden and command-line
# tests again, and every fuzz corpus once (tests/fuzz/; scripts/fuzz.sh does the fuzzing
# itself), then a build with ThreadSanitizer running the tests that exercise the threads.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)

echo "== release build"
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$jobs"
(cd build && ctest --output-on-failure -j"$jobs")

echo "== sanitizer build (ASan + UBSan)"
# With clang when there is one (scripts/install-deps.sh installs it): its UBSan also checks
# pointer arithmetic (-fsanitize=pointer-overflow: an offset added to NULL), gcc's does not. A
# folder of its own per compiler, as CMake cannot change a build folder's compiler.
asan_dir=build-asan
asan_cc=()
if command -v clang >/dev/null 2>&1; then
    asan_dir=build-asan-clang
    asan_cc=(-DCMAKE_C_COMPILER=clang)
fi
cmake -S . -B "$asan_dir" "${asan_cc[@]}" -DCMAKE_BUILD_TYPE=Debug -DDDB_SANITIZE=ON >/dev/null
cmake --build "$asan_dir" -j"$jobs"
(cd "$asan_dir" && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --output-on-failure -j"$jobs" -L 'unit|golden|script|fuzz')

echo "== thread sanitizer build (TSan): the threaded paths"
# Decoding ahead on a second thread, with the read-ahead source under its gzip inputs
# (threads.sh); a long import while the credential refresher renews 6-second credentials, and
# forced refreshes (credentials.sh); the client's name lookups, which run on a thread of their
# own (tls.sh, the one that names its endpoint: localhost over TLS). Only the command-line
# tests: Criterion's runner does not start under ThreadSanitizer (it cannot map its shared
# arena: Snaipe/Criterion issue 274), so only the tool is built.
cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDDB_SANITIZE_THREAD=ON >/dev/null
cmake --build build-tsan -j"$jobs" --target ddbpipe ddbpipe-gen ddbpipe-canon
# Reports go to files rather than the tool's stderr, which a script may read or discard: a
# race must fail the stage whatever the script makes of the run.
reports="$PWD/build-tsan/tsan-reports"
rm -rf "$reports"
mkdir -p "$reports"
tsan_rc=0
(cd build-tsan && TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 log_path=$reports/race" \
    ctest --output-on-failure -j"$jobs" \
    -R '^(script_threads|integration_credentials|integration_tls|integration_accounts)$') || tsan_rc=1
if [ -n "$(ls -A "$reports")" ]; then
    cat "$reports"/*
    echo "ThreadSanitizer reported the races above" >&2
    tsan_rc=1
fi
[ "$tsan_rc" = 0 ] || exit 1
echo "== all tests passed"
