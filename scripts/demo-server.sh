# The `make demo` section for `tokentool serve` (sourced by scripts/demo.sh): a server on a free port
# of 127.0.0.1 with an embedded SQLite store, an anonymous sign-in over HTTP with curl, the profile,
# a refresh, a logout, and the refused refresh after it; the server is stopped at the end.
# shellcheck shell=bash

demo_server() {
    local bin=$1
    heading "8. The sign-in server: tokentool serve, then an app's calls over HTTP"
    mkdir -p server
    cat > server/config.json <<'JSON'
{
  "public_url": "http://127.0.0.1",
  "apps": { "demo-app": { "providers": { "anon-user": {} } } }
}
JSON
    run 'cat server/config.json'
    "$bin" serve --config server/config.json --listen 127.0.0.1:0 > server/out.log 2> server/err.log &
    local pid=$!
    local url="" i
    for i in $(seq 1 200); do
        url=$(sed -n 's/^listening on //p' server/out.log)
        [ -n "$url" ] && break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.05
    done
    if [ -z "$url" ]; then echo "the server did not start:"; cat server/err.log; kill "$pid" 2>/dev/null || true; return 0; fi
    echo "tokentool serve is listening on $url (it made a master key beside its store: ls server/)."
    run 'ls server'
    local base="$url/api/client/v2.0"
    run "curl -s $url/healthz; echo"
    run "curl -s $base/app/demo-app/location; echo"
    echo
    echo "An anonymous sign-in, as a Realm app's app.login(credentials: .anonymous) sends it:"
    run "curl -s -X POST -H 'Content-Type: application/json' -d '{\"options\":{\"device\":{\"platform\":\"demo\"}}}' $base/app/demo-app/auth/providers/anon-user/login | tee login.json; echo"
    local access refresh
    access=$(python3 -c 'import json; print(json.load(open("login.json"))["access_token"])')
    refresh=$(python3 -c 'import json; print(json.load(open("login.json"))["refresh_token"])')
    printf '%s' "$access" > access.jwt
    echo "The access token is an RFC 9068 JWT signed by the store's key ring:"
    run 'tokentool decode - < access.jwt | sed -n "/Header/,/^}/p"'
    run "curl -s -H \"Authorization: Bearer \$(cat access.jwt)\" $base/auth/profile; echo"
    echo "A refresh (the refresh token is the bearer) gives a new access token; the refresh token lives on:"
    printf '%s' "$refresh" > refresh.token
    run "curl -s -X POST -H \"Authorization: Bearer \$(cat refresh.token)\" $base/auth/session; echo"
    echo "Logout ends the session (204); the same refresh token is then refused with 401:"
    run "curl -s -o /dev/null -w '%{http_code}\n' -X DELETE -H \"Authorization: Bearer \$(cat refresh.token)\" $base/auth/session"
    run "curl -s -w '\n%{http_code}\n' -X POST -H \"Authorization: Bearer \$(cat refresh.token)\" $base/auth/session"
    kill -TERM "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    echo "Stopped with SIGTERM. The server's log lines (standard error) name no token:"
    run 'tail -n 3 server/err.log'
}
