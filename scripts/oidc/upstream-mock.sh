#!/usr/bin/env bash
# PyPI's oidc-provider-mock as a real upstream OpenID provider (the web sign-in's "Google"), on
# 127.0.0.1 and a port the system picks.
#
#   scripts/oidc/upstream-mock.sh start DIR [--user-claims JSON]... [--issuer URL]
#                                                                     start it; prints its URL (also in DIR/issuer);
#                                                                     --issuer: the iss its id_tokens name
#   scripts/oidc/upstream-mock.sh stop DIR                            stop it (DIR/pid)
#   scripts/oidc/upstream-mock.sh selftest                            start, read its discovery document, stop
#
# Needs PyPI oidc-provider-mock (scripts/oidc/deps.sh installs it). The web sign-in tests point
# the config's provider_urls.google and google_authorize at its token and authorization
# endpoints; its login form takes a subject (POST sub=… to the authorization URL).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/common.sh"

start() {
    local dir=$1
    shift
    mkdir -p "$dir"
    rm -f "$dir/issuer"
    python3 "$here/upstream-mock.py" "$dir/issuer" "$@" >"$dir/upstream.log" 2>&1 &
    echo $! >"$dir/pid"
    oidc_wait_file "$dir/issuer" || { cat "$dir/upstream.log" >&2; oidc_stop_pidfile "$dir/pid"; return 1; }
    oidc_wait_http "$(cat "$dir/issuer")/.well-known/openid-configuration"
    cat "$dir/issuer"
}

selftest() {
    local issuer port
    dir=$(mktemp -d)
    trap 'oidc_stop_pidfile "$dir/pid"; rm -rf "$dir"' EXIT
    issuer=$(start "$dir")
    curl -sf "$issuer/.well-known/openid-configuration" >"$dir/discovery.json"
    python3 - "$dir/discovery.json" "$issuer" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["issuer"] == sys.argv[2], d["issuer"]
for m in ("authorization_endpoint", "token_endpoint", "jwks_uri", "userinfo_endpoint"):
    assert d[m].startswith(sys.argv[2] + "/"), (m, d[m])
assert "code" in d["response_types_supported"]
PY
    port=${issuer##*:}
    oidc_stop_pidfile "$dir/pid"
    oidc_port_free "$port"
    echo "upstream-mock selftest: ok ($issuer)"
}

case "${1:-}" in
    start) shift; [[ $# -ge 1 ]] || { echo "usage: $0 start DIR [--user-claims JSON]... [--issuer URL]" >&2; exit 2; }; start "$@" ;;
    stop) [[ $# -eq 2 ]] || { echo "usage: $0 stop DIR" >&2; exit 2; }; oidc_stop_pidfile "$2/pid" ;;
    selftest) selftest ;;
    *) echo "usage: $0 start DIR | stop DIR | selftest" >&2; exit 2 ;;
esac
