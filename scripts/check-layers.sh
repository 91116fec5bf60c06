#!/usr/bin/env bash
# Checks that src/ is layered: each folder under src/ includes only itself and the folders below
# it, in the order CMakeLists.txt gives them (DDB_LAYERS, bottom-up; src/cli/ on top). Public
# headers (include/ddbpipe/X.h) belong to the folder that implements them (the folder holding
# X.c, else the one holding X_*.c), and obey the same rule. Private headers are included by
# their folder ("net/client_impl.h"); a bare "x.h" must sit beside the file that includes it.
#
# Prints one line per upward or unknown include and exits 1 if there is any. Run by the test
# suite (tests/scripts/layers.sh, ctest -R layers) and by hand: scripts/check-layers.sh [SOURCE_DIR].
set -euo pipefail
top=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$top"

read -r -a layers < <(sed -n 's/^set(DDB_LAYERS \(.*\))$/\1/p' CMakeLists.txt)
[ ${#layers[@]} -gt 0 ] || { echo "check-layers: no set(DDB_LAYERS ...) in CMakeLists.txt" >&2; exit 2; }
layers+=(cli)
declare -A rank
for i in "${!layers[@]}"; do rank[${layers[$i]}]=$i; done

fail=0
complain() { echo "$1"; fail=1; }

for f in src/*.c src/*.h; do
    if [ -e "$f" ]; then complain "$f: a source file outside the layer folders"; fi
done
for d in src/*/; do
    d=${d%/}; d=${d#src/}
    [ -n "${rank[$d]+x}" ] || complain "src/$d: a folder not in DDB_LAYERS (CMakeLists.txt)"
done

# The folder that owns public header X.h.
declare -A owner
for h in include/ddbpipe/*.h; do
    x=$(basename "$h" .h)
    o=""
    for c in src/*/"$x".c; do if [ -e "$c" ]; then o=$(basename "$(dirname "$c")"); fi; done
    if [ -z "$o" ]; then
        dirs=$(for c in src/*/"${x}"_*.c; do if [ -e "$c" ]; then basename "$(dirname "$c")"; fi; done | sort -u)
        if [ "$(printf '%s\n' "$dirs" | grep -c .)" = 1 ]; then o=$dirs; fi
    fi
    if [ -z "$o" ]; then
        complain "$h: no folder owns it (none holds ${x}.c, or ${x}_*.c in more than one)"
        continue
    fi
    owner[$x.h]=$o
done

# check FILE LAYER: every quoted include of FILE may be used from LAYER.
check() {
    local file=$1 layer=$2 n=0 line inc target tl
    local re='^([0-9]+):[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]*)"'
    while IFS= read -r line; do
        [[ $line =~ $re ]] || continue
        n=${BASH_REMATCH[1]} inc=${BASH_REMATCH[2]}
        case "$inc" in
        ddbpipe/*)
            target=${inc#ddbpipe/}
            tl=${owner[$target]:-}
            [ -n "$tl" ] || { complain "$file:$n: includes $inc, which no folder owns"; continue; } ;;
        */*)
            tl=${inc%%/*}
            [ -e "src/$inc" ] || { complain "$file:$n: includes $inc, which is not there"; continue; }
            [ -n "${rank[$tl]+x}" ] || { complain "$file:$n: includes $inc, of no layer"; continue; } ;;
        *)
            if [ ! -e "${file%/*}/$inc" ]; then
                complain "$file:$n: includes \"$inc\": name its folder (\"layer/$inc\")"
            fi
            continue ;;
        esac
        if [ "${rank[$tl]}" -gt "${rank[$layer]}" ]; then
            complain "$file:$n: includes $inc of $tl/, above $layer/ (layers bottom-up: ${layers[*]})"
        fi
    done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$file" || true)
}

for d in "${layers[@]}"; do
    for f in src/"$d"/*.c src/"$d"/*.h; do
        if [ -e "$f" ]; then check "$f" "$d"; fi
    done
done
for h in include/ddbpipe/*.h; do
    x=$(basename "$h")
    if [ -n "${owner[$x]:-}" ]; then check "$h" "${owner[$x]}"; fi
done

if [ "$fail" = 0 ]; then
    echo "layers: ${layers[*]}: no upward include"
fi
exit "$fail"
