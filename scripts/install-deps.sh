#!/usr/bin/env bash
# Installs what building and testing ddbpipe needs on Debian/Ubuntu, skipping what is there:
# compilers (gcc, and clang for the sanitizer stage) and CMake, the libraries (libcurl, OpenSSL,
# zlib, json-c, Criterion, ISA-L, zstd, snappy), what the install test uses (dpkg-dev, man-db, zsh), Node.js
# for the local DynamoDB server used by the integration tests, Java for AWS's DynamoDB Local (the
# Streams tests), and the npm packages pinned in package-lock.json (dynalite, s3rver, DynamoDB
# Local inside amplify-dynamodb-simulator, and DuckDB and hyparquet as independent Parquet readers).
set -euo pipefail
cd "$(dirname "$0")/.."

sudo_cmd=""
if [ "$(id -u)" != 0 ]; then sudo_cmd="sudo"; fi

pkgs="build-essential cmake pkg-config libcurl4-openssl-dev libssl-dev zlib1g-dev libjson-c-dev
      libcriterion-dev gzip curl libisal-dev isal libzstd-dev libsnappy-dev"
# DynamoDB Local (npm amplify-dynamodb-simulator) is a Java program.
command -v java >/dev/null 2>&1 || pkgs="$pkgs default-jre-headless"
# clang for the sanitizer stage of scripts/test.sh: its UBSan checks pointer arithmetic, gcc's not.
pkgs="$pkgs clang libclang-rt-dev"
# The install test: the Debian package (dpkg-shlibdeps), its manual page, its completions.
pkgs="$pkgs dpkg-dev man-db groff-base zsh strace"
command -v node >/dev/null 2>&1 || pkgs="$pkgs nodejs"
command -v npm >/dev/null 2>&1 || pkgs="$pkgs npm"
# The AWS CLI: an independent S3 client for the S3 tests and the S3 benchmark.
command -v aws >/dev/null 2>&1 || pkgs="$pkgs awscli"
missing=""
for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    echo "installing:$missing"
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq $missing >/dev/null
fi
node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$node_major" -lt 20 ]; then
    echo "Node.js $node_major found; the local DynamoDB server (dynalite 4) needs Node.js 20 or newer" >&2
    exit 1
fi
# (@aws-sdk/client-dynamodb is only for bench/sdk-import.js; checked so an older node_modules
# gets it too.)
if [ -f package-lock.json ] && { [ ! -d node_modules/dynalite ] || [ ! -d node_modules/s3rver ] ||
    [ ! -d node_modules/@aws-sdk/client-dynamodb ] || [ ! -d node_modules/@duckdb/node-api ] ||
    [ ! -d node_modules/hyparquet ] || [ ! -d node_modules/amplify-dynamodb-simulator/emulator ]; }; then
    npm ci --no-audit --no-fund --loglevel=error
fi
