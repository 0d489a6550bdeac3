#!/usr/bin/env bash
# The walkthrough behind `make demo`. It builds nothing: `make demo` builds first.
# Usage: scripts/demo.sh [path/to/tokentool]
#
# One function per section; to add one, write `section_<name>() { heading "…"; … }` and add
# its name to SECTIONS at the bottom. Sections share the working directory $WORK (keys, tokens).
set -euo pipefail

BIN=$(cd "$(dirname "${1:-.build/debug/tokentool}")" && pwd)/$(basename "${1:-.build/debug/tokentool}")
SCRIPTS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[ -x "$BIN" ] || { echo "demo: $BIN is not built; run 'make demo'" >&2; exit 2; }
tokentool() { "$BIN" "$@"; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/tokentool-demo.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"

if [ -t 1 ]; then BOLD=$'\e[1m'; DIM=$'\e[2m'; RESET=$'\e[0m'; else BOLD=""; DIM=""; RESET=""; fi
heading() { printf '\n%s== %s ==%s\n' "$BOLD" "$1" "$RESET"; }
# Shows a command line, then runs it (stderr merged into stdout so errors appear in place);
# a non-zero exit is shown, not fatal.
run() {
    printf '%s$ %s%s\n' "$DIM" "$1" "$RESET"
    local status=0
    eval "$1" 2>&1 || status=$?
    [ "$status" -eq 0 ] || printf '%s(exit code %d)%s\n' "$BOLD" "$status" "$RESET"
    return 0
}

section_keygen() {
    heading "1. Generate a key pair (EC P-256; the private half is written with mode 0600)"
    run 'tokentool keygen --type ec --kid demo-key --out demo.jwk --public-out demo.pub.jwk'
    run 'ls -l demo.jwk demo.pub.jwk'
    run 'tokentool jwks demo.pub.jwk'
}

section_sign() {
    heading "2. Sign a token that expires in 30 minutes"
    run 'tokentool sign --key demo.jwk --set sub=user-42 --set iss=https://demo.example --set aud=api --expires-in 30m > token.jwt'
    run 'cat token.jwt'
}

section_decode() {
    heading "3. Decode it (shows what it says; verifies nothing)"
    run 'tokentool decode - < token.jwt'
}

section_verify() {
    heading "4. Verify it: signature, times, issuer, audience"
    run 'tokentool verify --key demo.pub.jwk --iss https://demo.example --aud api - < token.jwt'
    echo
    run 'tokentool verify --json --key demo.pub.jwk --iss https://demo.example --aud api - < token.jwt'
}

section_rejected() {
    heading "5. Rejected tokens exit 1"
    echo "An expired token (signed as of two hours ago, valid for one hour):"
    run 'tokentool sign --key demo.jwk --set sub=user-42 --now $(( $(date +%s) - 7200 )) --expires-in 1h > expired.jwt'
    run 'tokentool verify --key demo.pub.jwk - < expired.jwt'
    echo
    echo "A tampered token (payload swapped for one claiming admin rights; signature unchanged):"
    local header sig forged
    header=$(cut -d. -f1 token.jwt); sig=$(cut -d. -f3 token.jwt)
    forged=$(printf '{"sub":"user-42","admin":true}' | base64 -w0 | tr '+/' '-_' | tr -d '=')
    echo "$header.$forged.$sig" > tampered.jwt
    run 'tokentool verify --key demo.pub.jwk - < tampered.jwt'
    echo
    echo "A token pasted with its Authorization scheme:"
    run 'tokentool verify --key demo.pub.jwk "Bearer $(cat token.jwt)"'
    echo
    echo "A configuration error (a key file that does not exist) exits 2:"
    run 'tokentool verify --key missing.pem - < token.jwt'
}

section_identity() {
    heading "6. A Google sign-in becomes one normalized identity (against the stand-in provider on 127.0.0.1)"
    local standin="$(dirname "$BIN")/provider-standin"
    if [ ! -x "$standin" ]; then echo "(skipped: $standin is not built; run 'make demo')"; return 0; fi
    "$standin" --port 0 > standin.json &
    STANDIN_PID=$!
    trap 'kill $STANDIN_PID 2>/dev/null || true; rm -rf "$WORK"' EXIT
    for _ in $(seq 50); do [ -s standin.json ] && break; sleep 0.1; done
    local base client jwks
    base=$(python3 -c 'import json,sys; print(json.load(open("standin.json"))["base_url"])')
    client=$(python3 -c 'import json,sys; print(json.load(open("standin.json"))["google"]["client_id"])')
    jwks=$(python3 -c 'import json,sys; print(json.load(open("standin.json"))["google"]["jwks"])')
    python3 -c 'import urllib.request,sys; sys.stdout.write(urllib.request.urlopen(sys.argv[1]).read().decode())' \
        "$base/_standin/token/google?email=jane.doe@example.com&name=Jane%20Doe&given_name=Jane&family_name=Doe" > google.jwt
    echo "The stand-in speaks Google's protocol: a JWKS at $jwks and id_tokens for client $client."
    run "tokentool idp google --client-id $client --jwks $jwks - < google.jwt"
    echo
    echo "The same token for another app's client id is refused:"
    run "tokentool idp google --client-id other-app.apps.googleusercontent.com --jwks $jwks - < google.jwt"
    kill $STANDIN_PID 2>/dev/null || true
}

section_sessions() {
    # shellcheck source=demo-sessions.sh
    source "$SCRIPTS/demo-sessions.sh"
    demo_sessions "$BIN"
}

section_server() {
    heading "8. The sign-in server: tokentool serve, and an app's calls over HTTP (scripts/demo-server.sh)"
    "$SCRIPTS/demo-server.sh" "$BIN"
}

SECTIONS=(keygen sign decode verify rejected identity sessions server)
for s in "${SECTIONS[@]}"; do "section_$s"; done
printf '\n%sDone.%s Exit codes: 0 valid, 1 rejected, 2 usage or configuration error. See docs/cli.md.\n' "$BOLD" "$RESET"
