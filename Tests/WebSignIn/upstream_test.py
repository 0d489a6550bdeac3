#!/usr/bin/env python3
"""Web sign-in with a real upstream OpenID provider written by others (docs/oidc.md, "Web sign-in").

PyPI's oidc-provider-mock (an authlib-based provider, scripts/oidc/upstream-mock.sh) plays Google:
its id_tokens name https://accounts.google.com as issuer, and the server's config points
provider_urls.google, google_jwks and google_authorize at it. `tokentool serve` runs on 127.0.0.1
(SQLite, then a throwaway PostgreSQL when scripts/pg-throwaway.sh can start one), and PyPI
`requests` plays the browser of realm-web's redirect flow: the start URL, the provider's form (a
POST of the subject), the callback, and the app's redirect URL (a page served here), following
every redirect and reading the fragment realm-web reads. Then: the same user through the native
id_token login, and the refusals (the provider's "deny", a replayed and a tampered callback, an
unregistered redirect).

Usage: upstream_test.py PATH/TO/tokentool
"""
import base64, json, os, re, shutil, subprocess, sys, tempfile, threading, urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import requests

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
MOCK = os.path.join(ROOT, "scripts", "oidc", "upstream-mock.sh")
APP = "websignin-test"
CLIENT_ID = "websignin-test.apps.googleusercontent.com"
BASE = "/api/client/v2.0"
TIMEOUT = 30


class AppPage(BaseHTTPRequestHandler):
    """The app's redirect URL: any page (the fragment is the browser's, never sent here)."""

    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.end_headers()
        self.wfile.write(b"<p>signed in</p>")

    def log_message(self, *args):
        pass


def check(condition, what):
    if not condition:
        raise AssertionError(what)


def fragment(location):
    return dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(location).fragment, keep_blank_values=True))


def start_url(server, redirect, state, device=None):
    query = {"redirect": redirect, "state": state}
    if device is not None:
        query["device"] = base64.urlsafe_b64encode(json.dumps(device).encode()).decode().rstrip("=")
    return f"{server}{BASE}/app/{APP}/auth/providers/oauth2-google/login?" + urllib.parse.urlencode(query)


def sign_in(browser, server, redirect, state, sub, device=None):
    """realm-web's window: start, the provider's form, then whatever the redirects lead to."""
    page = browser.get(start_url(server, redirect, state, device), timeout=TIMEOUT)
    check(page.status_code == 200 and "/oauth2/authorize" in page.url, f"the provider's form: {page.status_code} {page.url}")
    done = browser.post(page.url, data={"sub": sub}, timeout=TIMEOUT)
    callback = next((r.headers["Location"] for r in done.history if "/oauth/callback/google" in r.headers.get("Location", "")), None)
    last = done.history[-1].headers["Location"] if done.history else ""
    check(last.startswith(redirect + "#"), f"back at the app's redirect URL: {done.status_code} {last[:200]}")
    return fragment(last), callback


def link(browser, server, redirect, access, sub):
    """realm-web's linkCredentials: the start with the token, then its window (the page, its button, the provider's form)."""
    start = requests.get(start_url(server, redirect, "realmweblink") + "&link=true&providerRedirectHeader=true",
                         headers={"Authorization": "Bearer " + access}, allow_redirects=False, timeout=TIMEOUT)
    location = start.headers.get("X-BAAS-Location", "")
    check(start.status_code == 200 and location.startswith(server + "/oauth/link?flow="), f"the link start: {start.status_code} {start.headers}")
    page = browser.get(location, timeout=TIMEOUT)
    csrf = re.search(r'name="csrf" value="([^"]*)"', page.text)
    check(page.status_code == 200 and csrf, f"the confirmation page: {page.status_code} {page.text[:300]}")
    form = browser.post(location, data={"csrf": csrf.group(1)}, headers={"Origin": server}, timeout=TIMEOUT)
    check(form.status_code == 200 and "/oauth2/authorize" in form.url, f"the provider's form after the button: {form.status_code} {form.url}")
    done = browser.post(form.url, data={"sub": sub}, timeout=TIMEOUT)
    last = done.history[-1].headers["Location"] if done.history else ""
    check(last.startswith(redirect + "#"), f"back at the app's redirect URL: {done.status_code} {last[:200]}")
    return fragment(last)


def native_id_token(mock, sub):
    """An id_token of the mock for `sub`, by a code flow of our own (as a mobile app would have one)."""
    s = requests.Session()
    redirect = "http://127.0.0.1:9/native"
    url = f"{mock}/oauth2/authorize?" + urllib.parse.urlencode(
        {"client_id": CLIENT_ID, "redirect_uri": redirect, "response_type": "code", "scope": "openid email", "state": "n", "nonce": "n1"})
    r = s.post(url, data={"sub": sub}, allow_redirects=False, timeout=TIMEOUT)
    code = urllib.parse.parse_qs(urllib.parse.urlsplit(r.headers["Location"]).query)["code"][0]
    t = s.post(f"{mock}/oauth2/token", data={"grant_type": "authorization_code", "code": code, "redirect_uri": redirect,
                                            "client_id": CLIENT_ID, "client_secret": "google-web-secret"}, timeout=TIMEOUT)
    check(t.status_code == 200, f"the mock's token endpoint: {t.status_code} {t.text[:200]}")
    return t.json()["id_token"]


def run(tokentool, store, mock, work):
    app_page = ThreadingHTTPServer(("127.0.0.1", 0), AppPage)
    threading.Thread(target=app_page.serve_forever, daemon=True).start()
    redirect = f"http://127.0.0.1:{app_page.server_port}/oauth-done"
    port = free_port()
    server = f"http://127.0.0.1:{port}"
    with open(os.path.join(work, "google.secret"), "w") as f:
        f.write("google-web-secret\n")
    os.chmod(os.path.join(work, "google.secret"), 0o600)
    config = {
        "public_url": server, "store": store, "provider_timeout": "5s",
        "provider_urls": {"google": f"{mock}/oauth2", "google_jwks": f"{mock}/jwks", "google_authorize": f"{mock}/oauth2/authorize"},
        "apps": {APP: {"redirect_uris": [redirect], "providers": {
            "anon-user": {},
            "oauth2-google": {"client_ids": [CLIENT_ID], "client_secret_file": "google.secret"}}}},
    }
    if store.startswith("postgres"):
        with open(os.path.join(work, "master.key"), "w") as f:
            f.write("ab" * 32)
        os.chmod(os.path.join(work, "master.key"), 0o600)
        config["master_key_file"] = "master.key"
    with open(os.path.join(work, "config.json"), "w") as f:
        json.dump(config, f)
    log = open(os.path.join(work, "serve.log"), "w")
    proc = subprocess.Popen([tokentool, "serve", "--config", os.path.join(work, "config.json"), "--listen", f"127.0.0.1:{port}"],
                            stdout=subprocess.PIPE, stderr=log, text=True)
    try:
        line = proc.stdout.readline()
        check(line.startswith("listening on http://"), f"tokentool serve did not start: {line!r}")

        browser = requests.Session()
        device = {"platform": "chrome", "sdkVersion": "2.0.1", "deviceId": "0123456789abcdef01234567"}
        f, callback = sign_in(browser, server, redirect, "realmwebstat", "alice-google", device=device)
        check(f.get("_baas_client_app_id") == APP and f.get("_baas_state") == "realmwebstat", f"the fragment: {f}")
        ua = f.get("_baas_ua", "").split("$")
        check(len(ua) == 4 and ua[3] == "0123456789abcdef01234567", f"_baas_ua: {f}")
        access, refresh, user = ua[0], ua[1], ua[2]
        profile = requests.get(f"{server}{BASE}/auth/profile", headers={"Authorization": "Bearer " + access}, timeout=TIMEOUT)
        check(profile.status_code == 200, f"profile: {profile.status_code}")
        identities = profile.json()["identities"]
        check(identities == [{"id": "alice-google", "provider_type": "oauth2-google", "provider_id": "oauth2-google"}], f"{identities}")
        check(requests.post(f"{server}{BASE}/auth/session", headers={"Authorization": "Bearer " + refresh}, timeout=TIMEOUT).status_code == 201,
              "refresh")

        # The native login with an id_token of the same provider: the same user.
        native = requests.post(f"{server}{BASE}/app/{APP}/auth/providers/oauth2-google/login",
                               json={"id_token": native_id_token(mock, "alice-google")}, timeout=TIMEOUT)
        check(native.status_code == 200 and native.json()["user_id"] == user, f"native login: {native.status_code} {native.text[:200]}")

        # Linking as realm-web's linkCredentials does it: the start fetched with the access token
        # answers X-BAAS-Location, the confirmation page's button goes to the provider's form.
        anon = requests.post(f"{server}{BASE}/app/{APP}/auth/providers/anon-user/login", json={}, timeout=TIMEOUT).json()
        linked = link(requests.Session(), server, redirect, anon["access_token"], "bob-google")
        check(linked.get("_baas_link") == "ok" and linked.get("_baas_state") == "realmweblink", f"the link's fragment: {linked}")
        lua = linked.get("_baas_ua", "").split("$")
        check(len(lua) == 4 and lua[1] == "" and lua[2] == anon["user_id"], f"the link's _baas_ua: {linked}")
        profile = requests.get(f"{server}{BASE}/auth/profile", headers={"Authorization": "Bearer " + lua[0]}, timeout=TIMEOUT).json()
        check({"id": "bob-google", "provider_type": "oauth2-google", "provider_id": "oauth2-google"} in profile["identities"],
              f"the linked identity: {profile['identities']}")
        taken = link(requests.Session(), server, redirect, anon["access_token"], "alice-google")
        check("AccountNameInUse" in taken.get("_baas_error", "") and "_baas_ua" not in taken, f"another user's identity: {taken}")
        refused = requests.get(start_url(server, redirect, "s") + "&link=true&providerRedirectHeader=true", allow_redirects=False, timeout=TIMEOUT)
        check(refused.status_code == 401 and refused.json()["error_code"] == "InvalidSession", f"a link without a token: {refused.status_code}")

        # The callback again: the state was single-use. A tampered state: the same page.
        replay = requests.get(callback, allow_redirects=False, timeout=TIMEOUT)
        check(replay.status_code == 400 and "Location" not in replay.headers, f"replayed callback: {replay.status_code}")
        tampered = re.sub(r"state=([A-Za-z0-9_-])", lambda m: "state=" + ("B" if m.group(1) == "A" else "A"), callback, count=1)
        check(requests.get(tampered, allow_redirects=False, timeout=TIMEOUT).status_code == 400, "tampered state")

        # The provider's "deny": this provider answers error=access_denied without the state
        # (RFC 6749 §4.1.2.1 wants it back), so the server cannot tell whose sign-in it was: the page.
        page = requests.get(start_url(server, redirect, "denied-state"), timeout=TIMEOUT)
        denied = requests.post(page.url, data={"action": "deny"}, timeout=TIMEOUT)
        check(denied.status_code == 400 and "/oauth/callback/google?error=access_denied" in denied.url, f"deny: {denied.status_code} {denied.url}")
        check("expired or was already used" in denied.text, "deny: the page")

        # A redirect the app did not register: the page, never a redirect there.
        r = requests.get(start_url(server, "https://evil.example/cb", "s"), allow_redirects=False, timeout=TIMEOUT)
        check(r.status_code == 400 and "Location" not in r.headers and r.headers["Content-Type"].startswith("text/html"),
              f"unregistered redirect: {r.status_code}")
        print(f"web sign-in with oidc-provider-mock as Google ({'PostgreSQL' if store.startswith('postgres') else 'SQLite'}): ok")
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
        app_page.shutdown()


def free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    tokentool = sys.argv[1]
    work = tempfile.mkdtemp(prefix="websignin-")
    mock_dir = os.path.join(work, "mock")
    mock = subprocess.run([MOCK, "start", mock_dir, "--issuer", "https://accounts.google.com",
                           "--user-claims", json.dumps({"sub": "alice-google", "email": "alice@example.com", "email_verified": True,
                                                        "name": "Alice"}),
                           "--user-claims", json.dumps({"sub": "bob-google", "email": "bob@example.com", "email_verified": True})],
                          check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1]
    pg_dir = None
    try:
        os.mkdir(os.path.join(work, "sqlite"))
        run(tokentool, os.path.join(work, "sqlite", "sessions.sqlite"), mock, os.path.join(work, "sqlite"))
        started = subprocess.run([os.path.join(ROOT, "scripts", "pg-throwaway.sh"), "start", "--fast"], capture_output=True, text=True)
        if started.returncode == 0:
            env = dict(re.findall(r"export (\w+)=(\S+)", started.stdout))
            pg_dir = env["TOKENTOOL_PG_DIR"]
            os.mkdir(os.path.join(work, "postgres"))
            run(tokentool, env["TOKENTOOL_PG_URL"], mock, os.path.join(work, "postgres"))
        elif os.environ.get("CI") == "1":
            sys.exit("PostgreSQL did not start: " + started.stderr.strip())
        else:
            print("web sign-in on PostgreSQL: skipped (" + started.stderr.strip() + ")")
    finally:
        if pg_dir:
            subprocess.run([os.path.join(ROOT, "scripts", "pg-throwaway.sh"), "stop", pg_dir])
        subprocess.run([MOCK, "stop", mock_dir])
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
