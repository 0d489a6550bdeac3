#!/usr/bin/env bash
# A real OpenID Connect relying party written by others: Apache with Debian's
# libapache2-mod-auth-openidc protecting a page, on 127.0.0.1 and a free port. mod_auth_openidc
# reads the issuer's discovery document, sends state, nonce and PKCE S256, exchanges the code
# itself and validates the id_token; what it received is readable through its OIDCInfoHook.
#
#   scripts/oidc/apache-rp.sh start DIR ISSUER CLIENT_ID CLIENT_SECRET_FILE [SCOPE]
#       writes DIR/apache.conf and starts Apache; prints the protected page's URL
#       (http://127.0.0.1:PORT/protected/). The client's redirect URI, to register in the
#       issuer's config, is http://127.0.0.1/protected/redirect_uri (a loopback host: any port).
#       It also serves http://127.0.0.1:PORT/signed-out.html, the page a logout lands on (register
#       it in the client's post_logout_redirect_uris, port included); APACHE_RP_PORT=N picks PORT
#       beforehand, so that the issuer's config can name that page before Apache starts.
#   scripts/oidc/apache-rp.sh stop DIR
#       stops that Apache and waits until its port is free.
#   scripts/oidc/apache-rp.sh selftest
#       against a fake discovery document served by this script: Apache starts, sends an
#       unauthenticated request for the page to the issuer's authorization endpoint with
#       client_id, redirect_uri, state, nonce and an S256 code_challenge, and stops.
#   scripts/oidc/apache-rp.sh selftest-flow
#       the whole flow below against a real provider, oidc-provider-mock (scripts/oidc/upstream-mock.sh,
#       whose login form takes sub=…): mod_auth_openidc redeems the code, validates the id_token,
#       serves the page, and its OIDCInfoHook JSON names the user.
#
# The flow the OpenID Connect tests drive with curl (one cookie jar, -c/-b):
#   1. GET  PAGE                       → 302 to ISSUER's authorization endpoint
#   2. follow it to the issuer's login page, POST the form (email, password, CSRF token)
#   3. follow the 302 to PAGE's redirect_uri?code=…&state=…&iss=…: mod_auth_openidc redeems the code
#   4. GET  PAGE                       → 200, the page
#   5. GET  http://127.0.0.1:PORT/protected/redirect_uri?info=json
#        → {"id_token": {claims}, "userinfo": {…}, "access_token": "…", "session": {…}, …}
#   6. GET  http://127.0.0.1:PORT/protected/redirect_uri?logout=http%3A%2F%2F127.0.0.1%3APORT%2Fsigned-out.html
#        → 302 to ISSUER's end_session_endpoint with id_token_hint and post_logout_redirect_uri,
#        → 302 to signed-out.html; the next GET PAGE asks the issuer's login page again
#
# Needs root for apt-get (scripts/oidc/deps.sh installs apache2 and libapache2-mod-auth-openidc);
# Apache itself runs from DIR only (pid file, runtime dir, logs); as root its workers run as
# www-data (so DIR and its parents must be searchable by www-data). The Debian service is never started and nothing outside DIR is written.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/common.sh"
apache=/usr/sbin/apache2
modules=/usr/lib/apache2/modules

start() {
    local dir=$1 issuer=$2 client_id=$3 client_secret scope=${5:-openid email profile} port passphrase
    # The secret comes from a file (never a command line); Apache's config quotes it, and the
    # config file is the owner's only.
    client_secret=$(<"$4")
    [[ $client_secret != *'"'* && $client_secret != *$'\n'* ]] || { echo "the client secret must not hold a quote or a line break" >&2; return 1; }
    [[ -x $apache && -f $modules/mod_auth_openidc.so ]] || { echo "apache2 or mod_auth_openidc is missing: run scripts/oidc/deps.sh" >&2; return 1; }
    mkdir -p "$dir/htdocs/protected" "$dir/run"
    chmod 755 "$dir" "$dir/htdocs" "$dir/htdocs/protected"
    echo "the protected page" >"$dir/htdocs/protected/index.html"
    # Where a logout lands (outside /protected): register it in the client's post_logout_redirect_uris.
    echo "signed out" >"$dir/htdocs/signed-out.html"
    chmod 644 "$dir/htdocs/protected/index.html" "$dir/htdocs/signed-out.html"
    # APACHE_RP_PORT: a port chosen beforehand (the server's config must name the post-logout page).
    port=${APACHE_RP_PORT:-$(oidc_free_port)}
    passphrase=$(head -c 24 /dev/urandom | base64)
    {
        echo "ServerName 127.0.0.1"
        echo "Listen 127.0.0.1:$port"
        echo "PidFile $dir/run/apache.pid"
        echo "DefaultRuntimeDir $dir/run"
        echo "Mutex file:$dir/run default"
        echo "ErrorLog $dir/error.log"
        echo "LogLevel warn auth_openidc:info"
        echo "LoadModule mpm_event_module $modules/mod_mpm_event.so"
        echo "LoadModule authn_core_module $modules/mod_authn_core.so"
        echo "LoadModule authz_core_module $modules/mod_authz_core.so"
        echo "LoadModule authz_user_module $modules/mod_authz_user.so"
        echo "LoadModule dir_module $modules/mod_dir.so"
        echo "LoadModule auth_openidc_module $modules/mod_auth_openidc.so"
        if [[ $(id -u) -eq 0 ]]; then echo "User www-data"; echo "Group www-data"; fi
        echo "<Directory />"
        echo "    AllowOverride None"
        echo "    Require all denied"
        echo "</Directory>"
        echo "DocumentRoot $dir/htdocs"
        echo "DirectoryIndex index.html"
        echo "<Directory $dir/htdocs>"
        echo "    Require all granted"
        echo "</Directory>"
        echo "OIDCProviderMetadataURL ${issuer%/}/.well-known/openid-configuration"
        echo "OIDCClientID $client_id"
        echo "OIDCClientSecret \"$client_secret\""
        echo "OIDCRedirectURI http://127.0.0.1:$port/protected/redirect_uri"
        echo "OIDCCryptoPassphrase $passphrase"
        echo "OIDCScope \"$scope\""
        echo "OIDCPKCEMethod S256"
        echo "OIDCProviderTokenEndpointAuth client_secret_basic"
        echo "OIDCInfoHook iat access_token access_token_expires id_token userinfo refresh_token exp remote_user session"
        echo "OIDCSessionType server-cache"
        echo "OIDCCacheType shm"
        echo "<Location /protected>"
        echo "    AuthType openid-connect"
        echo "    Require valid-user"
        echo "</Location>"
    } >"$dir/apache.conf"
    chmod 600 "$dir/apache.conf"
    echo "$port" >"$dir/port"
    "$apache" -f "$dir/apache.conf" -k start
    oidc_wait_file "$dir/run/apache.pid"
    oidc_wait_http "http://127.0.0.1:$port/"
    echo "http://127.0.0.1:$port/protected/"
}

stop() {
    local dir=$1
    [[ -f $dir/apache.conf ]] || return 0
    [[ -s $dir/run/apache.pid ]] && { "$apache" -f "$dir/apache.conf" -k stop >/dev/null 2>&1 || true; }
    oidc_stop_pidfile "$dir/run/apache.pid"
    [[ -s $dir/port ]] && for _ in $(seq 1 100); do oidc_port_free "$(cat "$dir/port")" 2>/dev/null && break; sleep 0.1; done
    [[ -s $dir/port ]] && oidc_port_free "$(cat "$dir/port")"
    return 0
}

selftest() {
    dir=$(mktemp -d)
    chmod 755 "$dir"
    trap 'stop "$dir/rp"; oidc_stop_pidfile "$dir/fake.pid"; rm -rf "$dir"' EXIT
    mkdir -p "$dir/fake/.well-known"
    # The issuer's port is known only once its server listens; the document is written after.
    oidc_static_server "$dir/fake" "$dir/fake.port" "$dir/fake.pid"
    local issuer="http://127.0.0.1:$(cat "$dir/fake.port")" page location
    cat >"$dir/fake/.well-known/openid-configuration" <<JSON
{"issuer": "$issuer", "authorization_endpoint": "$issuer/oauth/authorize", "token_endpoint": "$issuer/oauth/token",
 "userinfo_endpoint": "$issuer/oauth/userinfo", "jwks_uri": "$issuer/.well-known/jwks.json",
 "response_types_supported": ["code"], "subject_types_supported": ["public"], "id_token_signing_alg_values_supported": ["RS256"],
 "code_challenge_methods_supported": ["S256"], "token_endpoint_auth_methods_supported": ["client_secret_basic"]}
JSON
    printf 'a-secret-of-the-portal' >"$dir/portal.secret"
    page=$(start "$dir/rp" "$issuer" portal "$dir/portal.secret")
    location=$(curl -s -o /dev/null -w '%{http_code} %{redirect_url}' "$page")
    case $location in
        "302 $issuer/oauth/authorize?"*) ;;
        *) echo "the page did not redirect to the issuer: $location" >&2; cat "$dir/rp/error.log" >&2; return 1 ;;
    esac
    for p in response_type=code client_id=portal "redirect_uri=http%3A%2F%2F127.0.0.1%3A$(cat "$dir/rp/port")%2Fprotected%2Fredirect_uri" \
        state= nonce= code_challenge= code_challenge_method=S256 scope=openid; do
        [[ $location == *[?\&]$p* ]] || { echo "the redirect lacks $p: $location" >&2; return 1; }
    done
    local port
    port=$(cat "$dir/rp/port")
    stop "$dir/rp"
    oidc_port_free "$port"
    [[ ! -e $dir/rp/run/apache.pid ]] || { echo "Apache's pid file is still there" >&2; return 1; }
    echo "apache-rp selftest: ok (mod_auth_openidc sent $page to ${location#302 })"
}

selftest_flow() {
    dir=$(mktemp -d)
    chmod 755 "$dir"
    trap 'stop "$dir/rp"; "$here/upstream-mock.sh" stop "$dir/op"; rm -rf "$dir"' EXIT
    local issuer page login callback back info
    issuer=$("$here/upstream-mock.sh" start "$dir/op" --user-claims '{"sub":"alice","email":"alice@example.com"}')
    printf 'a-secret-of-the-rp' >"$dir/rp.secret"
    page=$(start "$dir/rp" "$issuer" rp-apache "$dir/rp.secret")
    login=$(curl -s -c "$dir/jar" -b "$dir/jar" -o /dev/null -w '%{redirect_url}' "$page")
    callback=$(curl -s -o /dev/null -w '%{redirect_url}' --data-urlencode sub=alice "$login")
    back=$(curl -s -c "$dir/jar" -b "$dir/jar" -o /dev/null -w '%{http_code} %{redirect_url}' "$callback")
    [[ $back == "302 $page" ]] || { echo "the callback did not send back to the page: $back" >&2; cat "$dir/rp/error.log" >&2; return 1; }
    [[ $(curl -s -c "$dir/jar" -b "$dir/jar" "$page") == "the protected page" ]] || { echo "the page was not served" >&2; return 1; }
    info=$(curl -s -b "$dir/jar" "${page}redirect_uri?info=json")
    python3 - "$info" "$issuer" <<'PY'
import json, sys
i = json.loads(sys.argv[1])
assert i["id_token"]["sub"] == "alice" and i["id_token"]["iss"] == sys.argv[2], i["id_token"]
assert i["userinfo"]["email"] == "alice@example.com" and "nonce" in i["id_token"], i
PY
    echo "apache-rp selftest-flow: ok (alice signed in through $issuer; OIDCInfoHook read)"
}

case "${1:-}" in
    start) shift; [[ $# -ge 4 ]] || { echo "usage: $0 start DIR ISSUER CLIENT_ID CLIENT_SECRET_FILE [SCOPE]" >&2; exit 2; }; start "$@" ;;
    stop) [[ $# -eq 2 ]] || { echo "usage: $0 stop DIR" >&2; exit 2; }; stop "$2" ;;
    selftest) selftest ;;
    selftest-flow) selftest_flow ;;
    *) echo "usage: $0 start DIR ISSUER CLIENT_ID CLIENT_SECRET_FILE [SCOPE] | stop DIR | selftest | selftest-flow" >&2; exit 2 ;;
esac
