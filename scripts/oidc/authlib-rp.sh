#!/usr/bin/env bash
# PyPI authlib as a relying party (scripts/oidc/authlib-rp.py: OAuth2Session with PKCE S256,
# CodeIDToken validation of the id_token, userinfo).
#
#   scripts/oidc/authlib-rp.sh selftest
#       the whole code flow against a real provider written by others, oidc-provider-mock
#       (scripts/oidc/upstream-mock.sh): authorization URL, the provider's form (sub=alice),
#       the callback, the code exchange, the id_token checks and userinfo; then both stop.
#
# Against tokentool serve, a test runs the same two steps with the server's issuer, and its
# own login step in between (GET the authorization URL, POST the hosted login form, read the
# Location of the 302 to the redirect URI):
#   python3 scripts/oidc/authlib-rp.py start --issuer ISSUER --client-id ID [--client-secret-file F] \
#       --redirect-uri http://127.0.0.1:PORT/cb --state-file F          # prints the authorization URL
#   python3 scripts/oidc/authlib-rp.py finish --state-file F --callback REDIRECT_LOCATION
#       # prints {"id_token": {…}, "userinfo": {…}, "token": {…}}, or exits 1 with the refusal
#
# Needs PyPI authlib, requests and oidc-provider-mock (scripts/oidc/deps.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/common.sh"

selftest() {
    dir=$(mktemp -d)
    trap '"$here/upstream-mock.sh" stop "$dir/op"; rm -rf "$dir"' EXIT
    local issuer url location result
    issuer=$("$here/upstream-mock.sh" start "$dir/op" --user-claims '{"sub":"alice","email":"alice@example.com","name":"Alice"}')
    printf 's3cret' >"$dir/client.secret"
    url=$(python3 "$here/authlib-rp.py" start --issuer "$issuer" --client-id rp-selftest --client-secret-file "$dir/client.secret" \
        --redirect-uri http://127.0.0.1:9/cb --state-file "$dir/state.json")
    # The provider's login form: a POST of the subject to the authorization URL answers 302 to the callback.
    location=$(curl -s -o /dev/null -w '%{redirect_url}' --data-urlencode sub=alice "$url")
    [[ $location == http://127.0.0.1:9/cb\?* ]] || { echo "no redirect to the callback: $location" >&2; return 1; }
    result=$(python3 "$here/authlib-rp.py" finish --state-file "$dir/state.json" --callback "$location")
    python3 - "$result" <<'PY'
import json, sys
r = json.loads(sys.argv[1])
assert r["id_token"]["sub"] == "alice" and r["userinfo"]["sub"] == "alice", r
assert r["id_token"]["aud"] in ("rp-selftest", ["rp-selftest"]) and "nonce" in r["id_token"], r
assert r["token"]["access_token"] == "present" and r["token"]["id_token"] == "present", r
PY
    echo "authlib-rp selftest: ok (sub alice through $issuer)"
}

case "${1:-}" in
    selftest) selftest ;;
    *) echo "usage: $0 selftest" >&2; exit 2 ;;
esac
