# Sourced by scripts/demo.sh: `demo_sessions [BIN]` shows the session flow on the embedded
# SQLite store: issue a token pair, refresh it, present the spent refresh token again and
# watch the whole session get revoked.

demo_sessions() {
    local bin=${1:-${BIN:-.build/debug/tokentool}}
    local dir store out rt1 rt2 at status
    dir=$(mktemp -d)
    store="$dir/demo.sqlite"
    field() { awk -v k="$1:" '$1 == k { print $2 }'; }

    echo
    echo "== Sessions on the embedded SQLite store ($store)"
    echo "\$ tokentool token issue --store demo.sqlite --sub alice"
    out=$("$bin" token issue --store "$store" --sub alice 2>/dev/null)
    echo "$out" | sed -E 's/^(access_token: .{24}).*/\1…/'
    rt1=$(field refresh_token <<<"$out")
    at=$(field access_token <<<"$out")

    echo
    echo "\$ tokentool token refresh --store demo.sqlite <refresh token 1>    # rotates: token 1 is now spent"
    out=$("$bin" token refresh --store "$store" "$rt1" 2>/dev/null)
    rt2=$(field refresh_token <<<"$out")
    echo "refresh_token: $rt2 (token 2)"

    echo
    echo "\$ tokentool token refresh --store demo.sqlite <refresh token 1>    # a client retrying within the 10 s grace"
    out=$("$bin" token refresh --store "$store" "$rt1" 2>/dev/null)
    echo "refresh_token: $(field refresh_token <<<"$out") (the same token 2, no new branch)"

    echo
    echo "\$ tokentool token refresh --store demo.sqlite --grace 0 <refresh token 1>   # a stolen token replayed later"
    if "$bin" token refresh --store "$store" --grace 0 "$rt1" >/dev/null; then
        echo "unexpected: the reused token was accepted" >&2; rm -rf "$dir"; return 1
    else
        status=$?
    fi
    echo "→ exit $status"

    echo
    echo "\$ tokentool token refresh --store demo.sqlite <refresh token 2>    # the whole session is revoked"
    if "$bin" token refresh --store "$store" "$rt2" >/dev/null; then
        echo "unexpected: the revoked session still refreshes" >&2; rm -rf "$dir"; return 1
    else
        status=$?
    fi
    echo "→ exit $status"

    echo
    echo "\$ tokentool token introspect --store demo.sqlite --json <access token>"
    "$bin" token introspect --store "$store" --json "$at" || echo "→ exit $? (its session is revoked)"

    echo
    echo "\$ tokentool keys jwks --store demo.sqlite"
    "$bin" keys jwks --store "$store"
    rm -rf "$dir"
}
