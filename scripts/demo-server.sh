#!/usr/bin/env bash
# The sign-in server in one minute: starts `tokentool serve` on a free port with a throwaway
# config and SQLite store, signs in anonymously over HTTP with curl, reads the profile, refreshes,
# logs out, and stops the server. Tokens go to curl through header files, never on a command line.
#
#   scripts/demo-server.sh [path/to/tokentool]      (default: .build/debug/tokentool)
set -euo pipefail
TOKENTOOL=${1:-.build/debug/tokentool}
command -v curl >/dev/null || { echo "demo-server: curl is needed" >&2; exit 2; }
command -v jq >/dev/null || { echo "demo-server: jq is needed" >&2; exit 2; }

dir=$(mktemp -d)
umask 077
pid=
cleanup() {
    if [ -n "$pid" ]; then kill -TERM "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
    rm -rf "$dir"
}
trap cleanup EXIT

# public_url is where clients reach the server (location hands it to them), so the server must
# listen on its port: pick a free one first, below the ephemeral range that port-0 listeners get.
port=
for p in $(shuf -i 20000-32000 -n 50); do
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then port=$p; break; fi
done
[ -n "$port" ] || { echo "demo-server: no free port found" >&2; exit 1; }
cat > "$dir/server.json" <<JSON
{ "public_url": "http://127.0.0.1:$port",
  "apps": { "demo-app": { "providers": { "anon-user": {}, "api-key": {} } } } }
JSON

section() { printf '\n== %s\n' "$1"; }

section "Start the server (on the free port public_url names)"
"$TOKENTOOL" serve --config "$dir/server.json" --listen "127.0.0.1:$port" > "$dir/stdout" 2> "$dir/server.log" &
pid=$!
for _ in $(seq 1 300); do
    grep -q '^listening on ' "$dir/stdout" 2>/dev/null && break
    kill -0 "$pid" 2>/dev/null || { cat "$dir/server.log" >&2; exit 1; }
    sleep 0.1
done
url=$(sed -n 's/^listening on //p' "$dir/stdout")
echo "listening on $url"
BASE="$url/api/client/v2.0"

section "Where is the app? (GET location: public_url, which is where this server listens)"
curl -sS "$BASE/app/demo-app/location" > "$dir/location.json"
jq -c . "$dir/location.json"
[ "$(jq -r .hostname "$dir/location.json")" = "$url" ] || { echo "demo-server: location does not name $url" >&2; exit 1; }

section "Sign in anonymously (POST …/auth/providers/anon-user/login)"
curl -sS -X POST -H 'Content-Type: application/json' \
     -d '{"options":{"device":{"platform":"demo","deviceName":"this shell"}}}' \
     "$BASE/app/demo-app/auth/providers/anon-user/login" > "$dir/login.json"
jq -c '{user_id, device_id, access_token: (.access_token[0:16] + "…"), refresh_token: "(kept)"}' "$dir/login.json"
printf 'Authorization: Bearer %s\n' "$(jq -r .access_token "$dir/login.json")" > "$dir/access.h"
printf 'Authorization: Bearer %s\n' "$(jq -r .refresh_token "$dir/login.json")" > "$dir/refresh.h"

section "Read the profile (GET auth/profile, access token)"
curl -sS -H @"$dir/access.h" "$BASE/auth/profile" | jq -c .

section "Refresh (POST auth/session, refresh token): a new access token, HTTP 201"
curl -sS -o "$dir/refreshed.json" -w '%{http_code}\n' -X POST -H @"$dir/refresh.h" "$BASE/auth/session"
jq -c 'keys' "$dir/refreshed.json"

section "Log out (DELETE auth/session): HTTP 204; the access token is refused at once"
curl -sS -o /dev/null -w '%{http_code}\n' -X DELETE -H @"$dir/refresh.h" "$BASE/auth/session"
curl -sS -H @"$dir/access.h" "$BASE/auth/profile" | jq -c .

section "Stop the server (SIGTERM: graceful)"
kill -TERM "$pid"
wait "$pid" && echo "exit status 0"
pid=
