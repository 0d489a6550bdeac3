#!/usr/bin/env bash
# The release tokentool (`make release`: Swift runtime linked in, position-dependent executable)
# builds and judges tokens the way the debug build the tests use does. Core-only, so it costs a
# minute or two: the link flags, not the package graph, are what differ from the tested build.
# Usage: RELEASE_FLAGS="…" scripts/release-smoke.sh   (the Makefile passes its flags)
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
SCRATCH=.build-release-core
read -r -a flags <<< "${RELEASE_FLAGS:?set RELEASE_FLAGS (see the Makefile)}"
fail() { echo "release-smoke: $*" >&2; exit 1; }
# The static link prints a glibc warning from the toolchain's libFoundationEssentials.a (mktemp);
# it is not ours, so it is dropped from the output, and nothing else is.
quiet() { grep -v "the use of \`mktemp' is dangerous" || true; }
if ! out=$(TOKENTOOL_CORE_ONLY=1 "$SWIFT" build "${flags[@]}" --product tokentool --scratch-path "$SCRATCH" 2>&1); then
    quiet <<< "$out" >&2
    fail "the release build failed"
fi
quiet <<< "$out"
bin="$SCRATCH/release/tokentool"
[ -x "$bin" ] || fail "$bin was not built"
# What the flags promise: no Swift library (nor libstdc++, when its archive exists) loaded at run
# time, no PIE, no exported symbols.
loaded=$(ldd "$bin")
if grep -q 'libswift\|libFoundation\|libdispatch' <<< "$loaded"; then fail "$bin loads Swift libraries: $loaded"; fi
if [ -f .build-static-cxx/libstdc++.so ] && grep -q 'libstdc++' <<< "$loaded"; then fail "$bin loads libstdc++.so: $loaded"; fi
readelf -h "$bin" | grep -q 'Type:.*EXEC' || fail "$bin is not a position-dependent executable: $(readelf -h "$bin" | grep Type:)"
exported=$(readelf --dyn-syms -W "$bin" | awk '$7 != "UND" && $8 != "" && $1 != "Num:"' | wc -l)
[ "$exported" -lt 50 ] || fail "$bin exports $exported dynamic symbols (--no-export-dynamic lost?)"

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$bin" keygen --type rsa --kid smoke --out "$dir/key.jwk" --public-out "$dir/key.pub.jwk" >/dev/null
"$bin" keygen --type rsa --kid smoke --out "$dir/other.jwk" --public-out "$dir/other.pub.jwk" >/dev/null
token=$("$bin" sign --key "$dir/key.jwk" --set sub=smoke --expires-in 5m)
expect() {  # expect STATUS ARGS…: tokentool's exit status
    local want=$1; shift
    local got=0
    "$bin" "$@" >"$dir/out" 2>&1 || got=$?
    [ "$got" = "$want" ] || fail "tokentool $* exited $got, expected $want: $(head -c 300 "$dir/out")"
}
expect 0 verify --key "$dir/key.pub.jwk" "$token"              # the fast path
expect 0 verify --key="$dir/key.pub.jwk" "$token"              # ArgumentParser
expect 1 verify --key "$dir/other.pub.jwk" "$token"
last=${token: -1}; [ "$last" = A ] && swap=E || swap=A     # another signature (or malformed): refused
expect 1 verify --key "$dir/key.pub.jwk" --json "${token%?}$swap"
expect 2 verify --key "$dir/missing.jwk" "$token"
expect 2 verify --key "$dir/key.pub.jwk"
expect 0 decode "$token"
grep -q '"sub": "smoke"' "$dir/out" || fail "decode did not show the claims: $(head -c 300 "$dir/out")"
echo "release-smoke: $bin (static Swift runtime, non-PIE) signs, verifies, refuses and decodes"
