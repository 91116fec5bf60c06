#!/usr/bin/env bash
# Installed as a user installs it: `cmake --install` into a prefix, and the Debian package that
# `cpack -G DEB` makes in the build folder, unpacked into a scratch root (dpkg -x). Each is run
# with a shipped mapping by name from another folder; the package's Depends: names the shared
# libraries the binary links (dpkg-shlibdeps); `man -l` renders the manual page without a
# warning, and it lists each command's options exactly as its --help does; the bash completion
# defines `complete -p ddbpipe` and offers the commands, options, formats and shipped mappings;
# the zsh completion parses and names every command.
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=${DDB_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
build=$(cd "$(dirname "$bin")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ddbpipe-install.XXXXXX")
trap '[ -n "${KEEP_TMP:-}" ] || rm -rf "$tmp"' EXIT
. "$root/tests/scripts/checks.bash"
cd "$tmp" # nothing of the checkout's folder is at hand, as after an install

# runs_with_shipped_mapping NAME BIN: generates records of a shipped mapping named by its name,
# (12 of each of its three entities), then exports them with it again: every record comes back
runs_with_shipped_mapping() {
    local name=$1 b=$2
    check "$name-generate" 0 "$b" generate --mapping favorites --count 12 --seed 4 \
        --format ddb-json --out "$tmp/$name-g" --quiet
    check "$name-export" 0 "$b" export "$tmp/$name-g" --mapping favorites.json --format csv \
        --out "$tmp/$name-e" --quiet --summary "$tmp/$name-e.json"
    [ "$(json_number "$tmp/$name-e.json" written)" = 36 ] || fail "$name: $(cat "$tmp/$name-e.json")"
    run "$name-unknown" 2 "$b" validate "$tmp/$name-g" --mapping no-such-design
    expect_in "$tmp/stderr" "no-such-design"
}

# 1. cmake --install into a prefix
check install 0 cmake --install "$build" --prefix "$tmp/prefix"
for f in bin/ddbpipe share/ddbpipe/formats/favorites.json share/ddbpipe/formats/README.md \
    share/man/man1/ddbpipe.1.gz share/bash-completion/completions/ddbpipe \
    share/zsh/vendor-completions/_ddbpipe share/doc/ddbpipe/README.md share/doc/ddbpipe/copyright; do
    [ -e "$tmp/prefix/$f" ] || fail "cmake --install did not install $f"
done
runs_with_shipped_mapping prefix "$tmp/prefix/bin/ddbpipe"

# 2. the Debian package, unpacked into a scratch root
check cpack 0 cpack --config "$build/CPackConfig.cmake" -G DEB -B "$tmp/pkg"
deb=$(ls "$tmp"/pkg/ddbpipe_*.deb 2>/dev/null | head -1)
[ -n "$deb" ] || fail "cpack made no package"
depends=$(dpkg-deb -f "$deb" Depends)
for lib in libcurl4 libssl3 libjson-c5 zlib1g libc6; do
    case "$depends" in *"$lib "*) ;; *) fail "Depends: lacks $lib: $depends" ;; esac
done
if "$bin" --version | grep -q "^ISA-L .*built with"; then
    case "$depends" in *libisal*) ;; *) fail "Depends: lacks ISA-L: $depends" ;; esac
fi
[ "$(dpkg-deb -f "$deb" Version)" = "$("$bin" --version | sed -n '1s/^ddbpipe //p')" ] ||
    fail "the package's version is not the tool's"
[ "$(dpkg-deb -f "$deb" Section)" = utils ] || fail "section: $(dpkg-deb -f "$deb" Section)"
check unpack 0 dpkg -x "$deb" "$tmp/root"
installed="$tmp/root/usr/bin/ddbpipe"
check version 0 "$installed" --version
for want in "ddbpipe " "libcurl " "OpenSSL " "json-c " "zlib "; do expect_in "$tmp/stdout" "$want"; done
runs_with_shipped_mapping deb "$installed"

# 3. the manual page renders, without a warning, and holds what --help says
page="$tmp/root/usr/share/man/man1/ddbpipe.1.gz"
check man 0 env MANWIDTH=100 man -l "$page"
cp "$tmp/stdout" "$tmp/man.txt"
for want in NAME SYNOPSIS COMMANDS "EXIT STATUS" ENVIRONMENT FILES "141" "AWS_ENDPOINT_URL"; do
    expect_in "$tmp/man.txt" "$want"
done
zcat "$page" | groff -man -ww -Tutf8 -z >"$tmp/groff.err" 2>&1
[ ! -s "$tmp/groff.err" ] || fail "groff warns: $(head -3 "$tmp/groff.err")"
for c in $("$installed" --help | sed -n '/^Commands:/,/^$/s/^  \([a-z-]*\) .*/\1/p'); do
    # the options of --help, and of the command's section of the page
    "$installed" "$c" --help | sed -n 's/^  \(--[a-z0-9-]*\).*/\1/p' | sort >"$tmp/help-$c"
    zcat "$page" | sed -n "/^\.SS \"$c\"/,/^\.S[SH]/p" | sed -n 's/^\.B \\-\\-\([a-z0-9\\-]*\).*/--\1/p' |
        sed 's/\\-/-/g' | sort >"$tmp/man-$c"
    echo "--help" >>"$tmp/man-$c" && sort -o "$tmp/man-$c" "$tmp/man-$c"
    [ -s "$tmp/help-$c" ] || fail "$c --help lists no option"
    cmp -s "$tmp/help-$c" "$tmp/man-$c" || fail "the page's options of $c differ from --help: $(diff "$tmp/help-$c" "$tmp/man-$c" | head -4)"
done

# 4. bash completion
comp="$tmp/root/usr/share/bash-completion/completions/ddbpipe"
# complete WORDS...: what the completion offers for the last word, one a line
complete_words() {
    PATH="$tmp/root/usr/bin:$PATH" bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
        _ddbpipe; printf "%s\n" "${COMPREPLY[@]}"' _ "$comp" "$@"
}
check complete-p 0 bash -c ". '$comp' && complete -p ddbpipe"
expect_in "$tmp/stdout" "-F _ddbpipe ddbpipe"
[ "$(complete_words ddbpipe ex)" = export ] || fail "ddbpipe ex<TAB>: $(complete_words ddbpipe ex)"
complete_words ddbpipe "" >"$tmp/c-commands"
for c in export convert import migrate diff generate create-table --version; do
    grep -qx -- "$c" "$tmp/c-commands" || fail "ddbpipe <TAB> lacks $c"
done
complete_words ddbpipe export --format "" >"$tmp/c-format"
[ "$(sort "$tmp/c-format" | tr '\n' ' ')" = "csv ddb-json ndjson parquet " ] ||
    fail "--format <TAB>: $(tr '\n' ' ' <"$tmp/c-format")"
complete_words ddbpipe import x.json --mapping fav >"$tmp/c-mapping"
for m in favorites favorites-v2; do
    grep -qx "$m" "$tmp/c-mapping" || fail "--mapping fav<TAB> lacks $m: $(tr '\n' ' ' <"$tmp/c-mapping")"
done
complete_words ddbpipe export --ma >"$tmp/c-opts"
for o in --mapping --max-rejects --max-line; do
    grep -qx -- "$o" "$tmp/c-opts" || fail "export --ma<TAB> lacks $o"
done

# 5. zsh completion: it parses, and it names every command
zcomp="$tmp/root/usr/share/zsh/vendor-completions/_ddbpipe"
if command -v zsh >/dev/null; then
    check zsh-parse 0 zsh -n "$zcomp"
else
    fail "zsh is not installed (scripts/install-deps.sh installs it)"
fi
head -1 "$zcomp" | grep -qx "#compdef ddbpipe" || fail "_ddbpipe lacks #compdef"
for c in $(cat "$tmp/c-commands"); do
    case $c in --*) continue ;; esac
    grep -q "^    '$c:" "$zcomp" || fail "_ddbpipe lacks the command $c"
done

finish
