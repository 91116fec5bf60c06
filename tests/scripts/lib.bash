# Shared by the command-line tests (sourced): the binary, a temporary folder removed at exit,
# and the checks.
set -u
bin=$1
root=${DDB_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
tools=$(dirname "$bin")
tmp=$(mktemp -d)
trap '[ -n "${KEEP_TMP:-}" ] || rm -rf "$tmp"' EXIT
. "$(dirname "${BASH_SOURCE[0]}")/checks.bash"
