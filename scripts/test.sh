#!/usr/bin/env bash
# The whole test suite: an optimized build running every test (unit, golden, command-line and
# integration tests against a local DynamoDB server), then a build with AddressSanitizer and
# UndefinedBehaviorSanitizer running the unit, golden and command-line tests again, and every
# fuzz corpus once (tests/fuzz/; scripts/fuzz.sh does the fuzzing itself).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)

echo "== release build"
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$jobs"
(cd build && ctest --output-on-failure -j"$jobs")

echo "== sanitizer build (ASan + UBSan)"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DDDB_SANITIZE=ON >/dev/null
cmake --build build-asan -j"$jobs"
(cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --output-on-failure -j"$jobs" -L 'unit|golden|script|fuzz')
echo "== all tests passed"
