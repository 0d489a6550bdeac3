#!/usr/bin/env python3
"""Browser test of CORS: pages on other origins calling the server (the contract's "The App Services
client protocol", "Browsers on other origins"; "OpenID Connect provider").

Serves its own pages from a small HTTP server here, on `http://localhost:PAGE` (an origin the app
lists in `allowed_request_origins`, and the origin of the public client `spa`'s redirect URI) and
on `http://127.0.0.1:PAGE2` (listed nowhere), and starts `tokentool serve` at
`http://127.0.0.1:PORT` (SQLite, then a throwaway PostgreSQL from scripts/pg-throwaway.sh). Then:
0. over plain HTTP, the headers themselves: a preflight from the allowed origin (204, methods,
   headers, max-age, Vary, no credentials), the same from another origin and `null` (no
   Access-Control-* header), an answer and an error answer (the origin, Vary, the exposed
   headers, never `*`), 415 for a text/plain login, `*` on discovery and the JWKS;
1. realm-web's browser requests replayed with fetch() from the allowed origin, header for header as
   realm-web sends them (location, anonymous login with the device, profile, refresh, an API key
   and a login with it, logout, the 401 after it, readable): every status as expected, tokens
   back, and no CORS error in Chromium's console;
2. the same page on the other origin: its first fetch is `TypeError: Failed to fetch` and the
   console shows the CORS refusal;
3. a single-page app on the allowed origin: discovery fetched cross-origin, a PKCE S256 challenge
   made with crypto.subtle, the browser sent to the authorization endpoint, the hosted login page
   filled in by selenium, the redirect back to the page's /cb, whose script exchanges the code at
   /oauth/token, calls /oauth/userinfo, refreshes and revokes, every answer read cross-origin;
4. realm-web's linkCredentials with a redirect credential from the allowed origin: the link start
   fetched with the access token, `mode: "cors"` and `credentials: "include"` as realm-web's
   Authenticator.authenticate sends it (Chromium refuses the answer unless it allows credentials),
   its X-BAAS-Location opened in a window, the confirmation page naming the user, and its button
   taking Chromium to the (stand-in) provider's authorization URL under the page's form-action.
Each step prints a line; the first failure exits non-zero with what was expected and what came. A
screenshot of each state lands in the output folder.
Usage: cors_test.py PATH/TO/tokentool [OUTPUT_DIR]
"""
import json, os, re, shutil, subprocess, sys, tempfile, threading, time
import urllib.error, urllib.parse, urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from selenium import webdriver
from selenium.common.exceptions import TimeoutException, WebDriverException
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

import chromium  # Tests/Browser/chromium.py, beside this file

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
APP = "cors-app"
BASE = "/api/client/v2.0"
EMAIL, PASSWORD = "cors.user@example.com", "cors password 1"
EXPOSED = "X-BAAS-Location, Retry-After, WWW-Authenticate"


class Failed(Exception):
    pass


def check(condition, expected, got):
    if not condition:
        raise Failed(f"expected {expected}; got {got}")


# realm-web's requests, replayed. What realm-web (packages/realm-web in realm/realm-js) sends:
# - every call goes through Fetcher.fetchJSON (src/Fetcher.ts): `Accept: application/json`, and
#   `Content-Type: application/json` only when there is a body (Fetcher.buildJsonHeader), the body
#   as canonical Extended JSON (Fetcher.buildBody: serialize, relaxed false); Fetcher.fetch adds
#   `Authorization: Bearer <access or refresh token>` (Fetcher.buildAuthorizationHeader, by the
#   request's tokenType) and hands it to DefaultNetworkTransport.fetch
#   (packages/realm-network-transport/src/DefaultNetworkTransport.ts): fetch(url, {method,
#   headers, body, signal}), no mode, no credentials (so the defaults: cors, same-origin).
# - `path` requests are prefixed with the location's `hostname` (Fetcher.fetch, App.locationUrl).
REALM_PAGE = r"""<!doctype html><meta charset=utf-8><title>realm-web replay</title>
<h1>realm-web replay</h1><p id=done></p><pre id=log></pre>
<script>
const SERVER = %(server)s, APP = %(app)s, BASE = "/api/client/v2.0";
window.steps = [];
const record = (step) => { window.steps.push(step); document.getElementById("log").textContent = JSON.stringify(window.steps, null, 1); };

// Fetcher.fetchJSON + Fetcher.fetch + DefaultNetworkTransport.fetch, as above.
async function fetchJSON(name, {method, url, body, token}) {
  const headers = {};
  if (token) headers["Authorization"] = `Bearer ${token}`;           // Fetcher.buildAuthorizationHeader
  const serialized = body ? JSON.stringify(body) : undefined;        // Fetcher.buildBody
  headers["Accept"] = "application/json";                            // Fetcher.fetchJSON
  if (serialized && serialized.length > 0) headers["Content-Type"] = "application/json";  // Fetcher.buildJsonHeader
  let response;
  try {
    response = await fetch(url, {method, headers, body: serialized});  // DefaultNetworkTransport.fetch
  } catch (e) {
    record({name, error: String(e)});
    throw e;
  }
  const type = response.headers.get("content-type");
  const json = type && type.startsWith("application/json") ? await response.json() : null;
  record({name, status: response.status, keys: json && typeof json === "object" ? Object.keys(json) : null,
          error_code: json && json.error_code || null});
  return {status: response.status, json};
}

// DeviceInformation (src/DeviceInformation.ts) as App.deviceInformation (src/App.ts) builds it, its
// toJSON(): platform and platformVersion from detect-browser (src/dom/index.ts), the SDK's version,
// and deviceId (a bson ObjectId, so {"$oid": hex} in canonical EJSON) once a login stored one.
const chrome = (navigator.userAgent.match(/Chrome\/([\d.]+)/) || [])[1] || "0.0.0";
const device = (deviceId) => Object.assign({platform: "chrome", platformVersion: chrome, sdkVersion: "2.0.1"},
                                           deviceId && deviceId !== "000000000000000000000000" ? {deviceId: {"$oid": deviceId}} : {});

(async () => {
  // App.locationUrl (src/App.ts): GET baseUrl + routes.api().app(id).location().path, tokenType "none".
  const location = await fetchJSON("location", {method: "GET", url: SERVER + BASE + `/app/${APP}/location`});
  const hostname = location.json.hostname;
  record({name: "hostname", value: hostname});
  // Authenticator.authenticate (src/Authenticator.ts), Credentials.anonymous(): POST
  // getLogInUrl() = locationUrl + /app/{id}/auth/providers/anon-user/login, body
  // {...payload, options: {device: deviceInformation.toJSON()}}, tokenType "none".
  const login = await fetchJSON("login", {method: "POST", url: hostname + BASE + `/app/${APP}/auth/providers/anon-user/login`,
                                          body: {options: {device: device()}}});
  const {access_token: access, refresh_token: refresh, device_id: deviceId} = login.json;
  // App.logIn (src/App.ts) then calls User.refreshProfile (src/User.ts): GET /auth/profile, tokenType "access".
  await fetchJSON("profile", {method: "GET", url: hostname + BASE + "/auth/profile", token: access});
  // User.refreshAccessToken (src/User.ts): POST /auth/session, no body, tokenType "refresh".
  await fetchJSON("refresh", {method: "POST", url: hostname + BASE + "/auth/session", token: refresh});
  // ApiKeyAuth.create (src/auth-providers/ApiKeyAuth.ts): POST /auth/api_keys {name}, tokenType "refresh".
  const key = await fetchJSON("api key", {method: "POST", url: hostname + BASE + "/auth/api_keys", token: refresh,
                                          body: {name: "browser key"}});
  // Authenticator.authenticate, Credentials.apiKey(key): the api-key provider's login, with the
  // device id App.logIn stored from the first login's answer (App.deviceInformation).
  const keyLogin = await fetchJSON("api key login", {method: "POST", url: hostname + BASE + `/app/${APP}/auth/providers/api-key/login`,
                                                     body: {key: key.json.key, options: {device: device(deviceId)}}});
  record({name: "device ids", first: deviceId, second: keyLogin.json.device_id});
  // User.logOut (src/User.ts): DELETE /auth/session, tokenType "refresh".
  await fetchJSON("logout", {method: "DELETE", url: hostname + BASE + "/auth/session", token: refresh});
  // Fetcher.fetch: a 401 with the refresh token means "signed out"; it must be readable (an error
  // answer carries the CORS headers too), else realm-web sees only a network error.
  await fetchJSON("refresh after logout", {method: "POST", url: hostname + BASE + "/auth/session", token: refresh});
  record({name: "tokens", access: typeof access === "string" && access.split(".").length === 3,
          refresh: typeof refresh === "string" && refresh.length > 0, key: typeof key.json.key === "string"});
})().catch((e) => record({name: "stopped", error: String(e)})).finally(() => { document.getElementById("done").textContent = "done"; });
</script>
"""

# A single-page app: discovery, PKCE, off to the authorization endpoint on a click.
SPA_PAGE = r"""<!doctype html><meta charset=utf-8><title>spa</title>
<h1>single-page app</h1><p id=ready></p><button id=signin disabled>Sign in</button><pre id=log></pre>
<script>
const SERVER = %(server)s;
window.steps = [];
const record = (step) => { window.steps.push(step); document.getElementById("log").textContent = JSON.stringify(window.steps, null, 1); };
const b64url = (bytes) => btoa(String.fromCharCode(...new Uint8Array(bytes))).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
(async () => {
  const r = await fetch(SERVER + "/.well-known/openid-configuration");
  const d = await r.json();
  record({name: "discovery", status: r.status, issuer: d.issuer});
  const verifier = b64url(crypto.getRandomValues(new Uint8Array(32)));
  const challenge = b64url(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)));
  const state = b64url(crypto.getRandomValues(new Uint8Array(16)));
  const redirect = location.origin + "/cb";
  sessionStorage.setItem("spa", JSON.stringify({verifier, state, redirect, issuer: d.issuer, token: d.token_endpoint,
                                                userinfo: d.userinfo_endpoint, revoke: d.revocation_endpoint}));
  const query = new URLSearchParams({response_type: "code", client_id: "spa", redirect_uri: redirect, scope: "openid email",
                                     state, nonce: "n-" + state, code_challenge: challenge, code_challenge_method: "S256"});
  const button = document.getElementById("signin");
  button.onclick = () => { window.location.href = d.authorization_endpoint + "?" + query; };
  button.disabled = false;
  document.getElementById("ready").textContent = "ready";
})().catch((e) => { record({name: "stopped", error: String(e)}); document.getElementById("ready").textContent = "failed"; });
</script>
"""

# The SPA's redirect URI: the code exchanged, userinfo, a refresh, the revocation; all cross-origin.
CALLBACK_PAGE = r"""<!doctype html><meta charset=utf-8><title>spa callback</title>
<h1>back at the client</h1><p id=done></p><pre id=log></pre>
<script>
window.steps = [];
const record = (step) => { window.steps.push(step); document.getElementById("log").textContent = JSON.stringify(window.steps, null, 1); };
const form = (url, fields) => fetch(url, {method: "POST", headers: {"Content-Type": "application/x-www-form-urlencoded"},
                                          body: new URLSearchParams(fields)});
async function read(name, promise) {
  let r;
  try { r = await promise; } catch (e) { record({name, error: String(e)}); throw e; }
  const type = r.headers.get("content-type") || "";
  const json = type.startsWith("application/json") ? await r.json() : null;
  record({name, status: r.status, keys: json ? Object.keys(json) : null, error: json && json.error || null});
  return json;
}
(async () => {
  const saved = JSON.parse(sessionStorage.getItem("spa"));
  const q = new URLSearchParams(location.search);
  record({name: "arrival", code: !!q.get("code"), state: q.get("state") === saved.state, iss: q.get("iss") === saved.issuer,
          error: q.get("error")});
  const tokens = await read("token", form(saved.token, {grant_type: "authorization_code", code: q.get("code"),
                                                       redirect_uri: saved.redirect, client_id: "spa", code_verifier: saved.verifier}));
  const info = await read("userinfo", fetch(saved.userinfo, {headers: {"Authorization": "Bearer " + tokens.access_token}}));
  record({name: "sub", value: info.sub || null, email: info.email || null});
  const refreshed = await read("refresh", form(saved.token, {grant_type: "refresh_token", refresh_token: tokens.refresh_token,
                                                            client_id: "spa"}));
  await read("revoke", form(saved.revoke, {token: refreshed.refresh_token, token_type_hint: "refresh_token", client_id: "spa"}));
  // The revoked session's access token: 401 with WWW-Authenticate, both readable cross-origin.
  const r = await fetch(saved.userinfo, {headers: {"Authorization": "Bearer " + refreshed.access_token}});
  record({name: "userinfo after revoke", status: r.status, www: r.headers.get("WWW-Authenticate")});
})().catch((e) => record({name: "stopped", error: String(e)})).finally(() => { document.getElementById("done").textContent = "done"; });
</script>
"""


# realm-web's linkCredentials with a redirect credential (src/Authenticator.ts, authenticate with a
# linking user): getLogInUrl's query {link: "true", state, redirect, providerRedirectHeader: true} in
# that order, then Fetcher.fetch({method: "GET", tokenType: "access", mode: "cors", credentials:
# "include"}): only the Authorization header, no Accept; X-BAAS-Location is what its window opens.
LINK_PAGE = r"""<!doctype html><meta charset=utf-8><title>realm-web link</title>
<h1>realm-web link</h1><button id=open hidden>open</button><p id=done></p><pre id=log></pre>
<script>
const SERVER = %(server)s, APP = %(app)s, BASE = "/api/client/v2.0";
window.steps = [];
const record = (step) => { window.steps.push(step); document.getElementById("log").textContent = JSON.stringify(window.steps, null, 1); };
(async () => {
  const login = await fetch(SERVER + BASE + `/app/${APP}/auth/providers/anon-user/login`, {method: "POST",
    headers: {"Accept": "application/json", "Content-Type": "application/json"}, body: JSON.stringify({options: {device: {}}})});
  const user = await login.json();
  record({name: "login", status: login.status, user_id: user.user_id});
  const qs = "?" + new URLSearchParams({link: "true", state: "linkstatecors", redirect: location.origin + "/linked", providerRedirectHeader: "true"});
  const r = await fetch(SERVER + BASE + `/app/${APP}/auth/providers/oauth2-google/login` + qs,
    {method: "GET", headers: {"Authorization": "Bearer " + user.access_token}, mode: "cors", credentials: "include"});
  const where = r.headers.get("X-BAAS-Location");
  record({name: "link start", status: r.status, location: where});
  const button = document.getElementById("open");
  button.onclick = () => window.open(where, "realm-link");
  button.hidden = false;
})().catch((e) => record({name: "stopped", error: String(e)})).finally(() => { document.getElementById("done").textContent = "done"; });
</script>
"""
STAND_IN_PAGE = "<!doctype html><meta charset=utf-8><title>provider</title><p>the provider's page</p>"


class _Pages(BaseHTTPRequestHandler):
    """The test's own pages; `self.server.target` is the tokentool server they call."""

    def do_GET(self):
        path = urllib.parse.urlsplit(self.path).path
        values = {"server": json.dumps(self.server.target), "app": json.dumps(APP)}
        pages = {"/": SPA_PAGE, "/cb": CALLBACK_PAGE, "/realm.html": REALM_PAGE, "/link.html": LINK_PAGE,
                 "/google-authorize": STAND_IN_PAGE, "/linked": STAND_IN_PAGE}
        if path == "/favicon.ico":  # no console error for a missing icon
            self.send_response(204)
            self.end_headers()
            return
        if path not in pages:
            self.send_error(404)
            return
        body = (pages[path] % values).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def page_server():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Pages)
    server.target = None
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def open_browser():
    """chromium.open_browser(), with Chromium's console kept for get_log("browser")."""
    options = Options()
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=390,844"):
        options.add_argument(arg)
    options.binary_location = "/usr/bin/chromium"
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def http(method, url, headers=None, body=None):
    """(status, headers, body) of one plain request; no redirects followed for OPTIONS either way."""
    req = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


def cors_headers(headers):
    return {k: v for k, v in headers.items() if k.lower().startswith("access-control-")}


def cors_errors(console):
    return [m for m in console if "CORS" in m or "Access-Control" in m or "cross-origin" in m.lower()]


class Run:
    """One `tokentool serve` on `store`, its browser, and the steps against them."""

    def __init__(self, tokentool, store, work, label, out, pages):
        self.label, self.out = label, out
        self.allowed, self.other = pages  # (server, origin) each
        self.origin, self.other_origin = self.allowed[1], self.other[1]
        port = chromium.free_port()
        self.base = f"http://127.0.0.1:{port}"
        with open(os.open(os.path.join(work, "master.key"), os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
            f.write(os.urandom(32).hex())
        with open(os.open(os.path.join(work, "google.secret"), os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
            f.write("cors-google-secret\n")
        config = {"public_url": self.base, "store": store, "master_key_file": "master.key",
                  # Google's URLs are the page server's: the link test ends at its authorization URL.
                  "provider_urls": {"google": self.origin, "google_jwks": self.origin + "/jwks",
                                    "google_authorize": self.origin + "/google-authorize"},
                  "apps": {APP: {"providers": {"anon-user": {}, "api-key": {}, "local-userpass": {"auto_confirm": True},
                                               "oauth2-google": {"client_ids": ["cors.apps.googleusercontent.com"],
                                                                 "client_secret_file": "google.secret"}},
                                 "redirect_uris": [self.origin + "/linked"],
                                 "allowed_request_origins": [self.origin]}},
                  # A public client (no secret_file: PKCE required), its redirect URI on the page's origin.
                  "clients": {"spa": {"app": APP, "name": "Single-page app", "first_party": True,
                                      "redirect_uris": [self.origin + "/cb"]}}}
        with open(os.path.join(work, "config.json"), "w") as f:
            json.dump(config, f)
        for server, _ in pages:
            server.target = self.base
        self.log_path = os.path.join(work, "serve.log")
        self.log = open(self.log_path, "w")
        self.server = subprocess.Popen([tokentool, "serve", "--config", os.path.join(work, "config.json"), "--listen", f"127.0.0.1:{port}"],
                                       stdout=subprocess.PIPE, stderr=self.log, text=True)
        self.browser = None
        self.seen = []  # every console entry read so far, for the failure's report
        line = self.server.stdout.readline()
        if not line.startswith("listening on http://"):
            self.stop()
            raise Failed(f"tokentool serve to start; got {line!r} and on stderr:\n{self.log_tail()}")

    def stop(self):
        if self.browser:
            try:
                self.browser.quit()
            except WebDriverException:
                pass
            self.browser = None
        self.server.terminate()
        try:
            self.server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.server.kill()
            self.server.wait()
        self.log.close()

    def log_tail(self):
        with open(self.log_path) as f:
            return "".join(f.readlines()[-30:])

    def say(self, text):
        print(f"ok cors browser ({self.label}): {text}", flush=True)

    def shot(self, name, expect, seconds=20):
        try:
            chromium.shot(self.browser, self.out, f"cors-{self.label.lower()}-{name}", expect, seconds)
        except AssertionError as e:
            raise Failed(f"{expect!r} on the page ({name}); got {self.browser.current_url}: {str(e)[-600:]}")

    def console(self):
        """Chromium's console since the last call."""
        try:
            entries = [f"{entry['level']} {entry['source']}: {entry['message']}" for entry in self.browser.get_log("browser")]
        except WebDriverException as e:
            entries = [f"(no log: {e})"]
        self.seen += entries
        return entries

    def steps(self):
        return {s["name"]: s for s in self.browser.execute_script("return window.steps || []")}

    # 0. The headers, over plain HTTP.

    def headers(self):
        login = self.base + BASE + f"/app/{APP}/auth/providers/anon-user/login"
        preflight = {"Origin": self.origin, "Access-Control-Request-Method": "POST",
                     "Access-Control-Request-Headers": "content-type"}
        status, h, _ = http("OPTIONS", login, preflight)
        got = f"{status} {dict(h)}"
        check(status == 204 and h.get("Access-Control-Allow-Origin") == self.origin
              and h.get("Access-Control-Allow-Methods") == "GET, POST, PUT, DELETE"
              and h.get("Access-Control-Allow-Headers") == "Authorization, Content-Type, Accept, DPoP"
              and h.get("Access-Control-Max-Age") == "600" and "Origin" in (h.get("Vary") or "")
              and "Access-Control-Allow-Credentials" not in h,
              f"204 with the origin, methods, headers, max-age 600 and Vary: Origin to a preflight from {self.origin}", got)
        # Routes without an app in the path: the preflight passes for an origin any app lists.
        status, h, _ = http("OPTIONS", self.base + BASE + "/auth/session",
                            {"Origin": self.origin, "Access-Control-Request-Method": "DELETE",
                             "Access-Control-Request-Headers": "authorization"})
        check(status == 204 and h.get("Access-Control-Allow-Origin") == self.origin,
              "204 with the origin to a preflight of /auth/session", f"{status} {dict(h)}")
        for origin in (self.other_origin, "null", "http://localhost"):
            status, h, _ = http("OPTIONS", login, {**preflight, "Origin": origin})
            check(not cors_headers(h), f"no Access-Control-* header to a preflight from {origin}", f"{status} {dict(h)}")

        status, h, body = http("GET", self.base + BASE + f"/app/{APP}/location", {"Origin": self.origin})
        check(status == 200 and h.get("Access-Control-Allow-Origin") == self.origin
              and h.get("Access-Control-Expose-Headers") == EXPOSED and "Origin" in (h.get("Vary") or "")
              and "Access-Control-Allow-Credentials" not in h,
              "200 with the origin, the exposed headers and Vary: Origin at location", f"{status} {dict(h)}")
        status, h, body = http("GET", self.base + BASE + f"/app/{APP}/location", {"Origin": self.other_origin})
        check(status == 200 and not cors_headers(h), f"no Access-Control-* header at location for {self.other_origin}",
              f"{status} {dict(h)}")
        status, h, _ = http("GET", self.base + BASE + f"/app/{APP}/location")
        check(not cors_headers(h), "no Access-Control-* header without Origin", dict(h))

        # An error answer carries them too: a disabled provider (404), a bad refresh token (401).
        status, h, body = http("POST", self.base + BASE + f"/app/{APP}/auth/providers/custom-token/login",
                               {"Origin": self.origin, "Content-Type": "application/json"}, b"{}")
        check(status == 404 and h.get("Access-Control-Allow-Origin") == self.origin and h.get("Access-Control-Expose-Headers") == EXPOSED,
              "404 with the origin and the exposed headers for a disabled provider", f"{status} {dict(h)} {body[:200]!r}")
        status, h, body = http("POST", self.base + BASE + "/auth/session", {"Origin": self.origin, "Authorization": "Bearer not.a.token"})
        check(status == 401 and h.get("Access-Control-Allow-Origin") == self.origin,
              "401 with the origin for a bad refresh token", f"{status} {dict(h)} {body[:200]!r}")

        # A body a cross-site form could send is refused before it is read.
        for kind in ("text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"):
            status, h, body = http("POST", login, {"Origin": self.origin, "Content-Type": kind}, b"{}")
            check(status == 415, f"415 for a {kind} login", f"{status} {body[:200]!r}")

        for path in ("/.well-known/openid-configuration", "/.well-known/jwks.json"):
            status, h, _ = http("GET", self.base + path, {"Origin": self.other_origin})
            check(status == 200 and h.get("Access-Control-Allow-Origin") == "*" and "Access-Control-Allow-Credentials" not in h,
                  f"200 with Access-Control-Allow-Origin * at {path}", f"{status} {dict(h)}")
        # The token endpoint: the public client's redirect origin (a loopback one on any port), no other.
        form = {"Content-Type": "application/x-www-form-urlencoded"}
        for origin, allowed in ((self.origin, True), ("http://localhost:1", True), (self.other_origin, False), ("https://localhost", False)):
            status, h, _ = http("POST", self.base + "/oauth/token", {**form, "Origin": origin}, b"grant_type=refresh_token&refresh_token=x&client_id=spa")
            want = origin if allowed else None
            check(h.get("Access-Control-Allow-Origin") == want and (allowed or not cors_headers(h)),
                  f"Access-Control-Allow-Origin {want} at /oauth/token for {origin}", f"{status} {dict(h)}")
        self.say("0. over HTTP: preflights, answers and errors carry the origin's headers; other origins none; 415 for "
                 "cross-site body types; * on discovery and the JWKS; the token endpoint for the client's loopback origin")

    # 1. realm-web's requests from the allowed origin.

    def realm_web(self):
        self.browser.get(self.origin + "/realm.html")
        self.shot("realm-web", "done")
        steps, console = self.steps(), self.console()
        got = json.dumps(steps)
        check("stopped" not in steps, "the replay to run to its end", got)
        check(steps["location"]["status"] == 200 and steps["hostname"]["value"] == self.base, f"location 200, hostname {self.base}", got)
        check(steps["login"]["status"] == 200 and {"access_token", "refresh_token", "user_id", "device_id"} <= set(steps["login"]["keys"]),
              "login 200 with access_token, refresh_token, user_id and device_id", got)
        check(steps["profile"]["status"] == 200 and "identities" in steps["profile"]["keys"], "profile 200", got)
        check(steps["refresh"]["status"] == 201 and "access_token" in steps["refresh"]["keys"], "refresh 201 with an access_token", got)
        check(steps["api key"]["status"] == 201 and "key" in steps["api key"]["keys"], "API key 201 with its key", got)
        check(steps["api key login"]["status"] == 200 and "access_token" in steps["api key login"]["keys"], "API key login 200", got)
        check(steps["device ids"]["first"] and steps["device ids"]["second"] == steps["device ids"]["first"],
              "the second login's device_id echoing the first's (sent as {\"$oid\": ...})", got)
        check(steps["logout"]["status"] == 204, "logout 204", got)
        check(steps["refresh after logout"]["status"] == 401 and steps["refresh after logout"]["error_code"] == "InvalidSession",
              "401 InvalidSession after logout, readable by the page", got)
        check(all(steps["tokens"][k] for k in ("access", "refresh", "key")), "an access JWT, a refresh token and a key", got)
        check(not cors_errors(console), "no CORS error in Chromium's console", console)
        self.say("1. realm-web replay from " + self.origin + ": location 200, login 200 with tokens, profile 200, refresh 201, "
                 "API key 201, key login 200 (same device), logout 204, then a readable 401; no CORS error in the console")

    # 2. The same page on an origin no app lists.

    def disallowed(self):
        self.browser.get(self.other_origin + "/realm.html")
        self.shot("disallowed", "done")
        steps = self.steps()
        got = json.dumps(steps)
        check(steps.get("location", {}).get("error") == "TypeError: Failed to fetch" and "login" not in steps,
              "the first fetch to fail with TypeError: Failed to fetch, and nothing after it", got)
        console = []
        deadline = time.monotonic() + 5  # the console entry may trail the rejected promise
        while time.monotonic() < deadline and not cors_errors(console):
            console += self.console()
            time.sleep(0.1)
        check(any("blocked by CORS policy" in m and self.other_origin in m for m in console),
              f"a CORS refusal for {self.other_origin} in Chromium's console", console)
        self.say(f"2. the same page on {self.other_origin}: TypeError: Failed to fetch; the console: "
                 + next(m for m in cors_errors(console))[:160])

    # 3. A single-page app, the authorization code flow with PKCE.

    def spa(self):
        req = urllib.request.Request(self.base + BASE + f"/app/{APP}/auth/providers/local-userpass/register",
                                     data=json.dumps({"email": EMAIL, "password": PASSWORD}).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=30) as r:
            check(r.status == 201, "201 at register", r.status)
        self.browser.get(self.origin + "/")
        self.shot("spa", "ready")
        steps = self.steps()
        check(steps.get("discovery", {}).get("status") == 200 and steps["discovery"].get("issuer") == self.base,
              f"discovery 200 with issuer {self.base}, read cross-origin", json.dumps(steps))
        self.browser.find_element(By.ID, "signin").click()
        try:
            WebDriverWait(self.browser, 20).until(lambda b: "/oauth/login?flow=" in b.current_url)
        except TimeoutException:
            raise Failed(f"the hosted login page; the browser at {self.browser.current_url}")
        self.shot("spa-login", "to continue to Single-page app")
        self.browser.find_element(By.ID, "email").send_keys(EMAIL)
        self.browser.find_element(By.ID, "password").send_keys(PASSWORD)
        self.browser.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        try:
            WebDriverWait(self.browser, 20).until(lambda b: b.current_url.startswith(self.origin + "/cb?"))
        except TimeoutException:
            raise Failed(f"the redirect to {self.origin}/cb; the browser at {self.browser.current_url}")
        self.shot("spa-callback", "done")
        steps, console = self.steps(), self.console()
        got = json.dumps(steps)
        check("stopped" not in steps, "the callback page to run to its end", got)
        a = steps["arrival"]
        check(a["code"] and a["state"] and a["iss"] and not a["error"], "code, state and iss at /cb", got)
        check(steps["token"]["status"] == 200 and {"access_token", "refresh_token", "id_token"} <= set(steps["token"]["keys"]),
              "200 at /oauth/token with access, refresh and id tokens", got)
        check(steps["userinfo"]["status"] == 200 and steps["sub"]["value"] and steps["sub"]["email"] == EMAIL,
              f"200 at /oauth/userinfo with a sub and {EMAIL}", got)
        check(steps["refresh"]["status"] == 200 and "refresh_token" in steps["refresh"]["keys"], "200 at the refresh grant", got)
        check(steps["revoke"]["status"] == 200, "200 at /oauth/revoke", got)
        after = steps["userinfo after revoke"]
        check(after["status"] == 401 and after["www"] and "invalid_token" in after["www"],
              "401 with a readable WWW-Authenticate: Bearer error=\"invalid_token\" after the revocation", got)
        check(not cors_errors(console), "no CORS error in Chromium's console", console)
        self.say(f"3. single-page app on {self.origin}: discovery 200, PKCE S256, hosted login, code at /cb, token 200, "
                 f"userinfo 200 (sub {steps['sub']['value']}), refresh 200, revoke 200, then a readable 401; no CORS error")

    # 4. realm-web's linkCredentials with a redirect credential.

    def link(self):
        self.browser.get(self.origin + "/link.html")
        self.shot("link", "done")
        steps, console = self.steps(), self.console()
        got = json.dumps(steps)
        check("stopped" not in steps and steps["login"]["status"] == 200, "the anonymous login", got)
        start = steps["link start"]
        check(start["status"] == 200 and (start["location"] or "").startswith(self.base + "/oauth/link?flow="),
              "200 with X-BAAS-Location naming the confirmation page, read by a credentialed fetch", got)
        check(not cors_errors(console), "no CORS error in Chromium's console", console)
        opener = self.browser.current_window_handle
        self.browser.find_element(By.ID, "open").click()
        try:
            WebDriverWait(self.browser, 20).until(lambda b: len(b.window_handles) == 2)
        except TimeoutException:
            raise Failed("realm-web's window to open")
        self.browser.switch_to.window(next(h for h in self.browser.window_handles if h != opener))
        self.shot("link-page", "Link your Google account?")
        account = self.browser.find_element(By.ID, "account").text
        check(account == steps["login"]["user_id"], f"the page naming the user {steps['login']['user_id']}", account)
        self.browser.find_element(By.ID, "continue").click()
        try:
            WebDriverWait(self.browser, 20).until(lambda b: b.current_url.startswith(self.origin + "/google-authorize?"))
        except TimeoutException:
            raise Failed(f"the provider's authorization URL after the button; the browser at {self.browser.current_url}")
        query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(self.browser.current_url).query))
        check(query.get("client_id") == "cors.apps.googleusercontent.com" and query.get("redirect_uri") == self.base + "/oauth/callback/google"
              and query.get("state", "").endswith("." + APP) and query.get("code_challenge_method") == "S256",
              "Google's authorization request with the server's own state and PKCE", query)
        console = self.console()
        check(not [m for m in console if "Content Security Policy" in m], "no CSP refusal of the form's redirect", console)
        self.browser.close()
        self.browser.switch_to.window(opener)
        self.say(f"4. realm-web link from {self.origin}: a credentialed fetch read X-BAAS-Location, the window showed the "
                 f"confirmation page naming {account}, its button went to the provider's authorization URL")

    def run(self):
        self.headers()
        self.browser = open_browser()
        self.browser.set_script_timeout(20)
        self.realm_web()
        self.disallowed()
        self.spa()
        self.link()


def run_store(tokentool, store, work, label, out, pages):
    started = time.monotonic()
    run = Run(tokentool, store, work, label, out, pages)
    try:
        run.run()
    except BaseException:
        if run.browser:
            try:
                run.browser.save_screenshot(os.path.join(out, f"cors-{label.lower()}-failed.png"))
                run.console()
                print(f"at {run.browser.current_url}; Chromium's console:", *run.seen, sep="\n  ", file=sys.stderr)
            except WebDriverException:
                pass
        print(f"the server's log ({label}), its end:\n{run.log_tail()}", file=sys.stderr)
        raise
    finally:
        run.stop()
    print(f"ok cors browser ({label}): all in {time.monotonic() - started:.1f} s", flush=True)


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    tokentool = os.path.abspath(sys.argv[1])
    out = sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp(prefix="cors-test-")
    os.makedirs(out, exist_ok=True)
    started = time.monotonic()
    allowed, other = page_server(), page_server()
    # localhost and 127.0.0.1 are different origins: the allowed one, and one listed nowhere.
    pages = ((allowed, f"http://localhost:{allowed.server_port}"), (other, f"http://127.0.0.1:{other.server_port}"))
    work = tempfile.mkdtemp(prefix="cors-serve-")
    pg_dir, stores = None, []
    try:
        os.mkdir(os.path.join(work, "sqlite"))
        run_store(tokentool, "s.sqlite", os.path.join(work, "sqlite"), "SQLite", out, pages)
        stores.append("SQLite")
        pg = subprocess.run([os.path.join(ROOT, "scripts", "pg-throwaway.sh"), "start", "--fast"], capture_output=True, text=True)
        if pg.returncode == 0:
            env = dict(re.findall(r"export (\w+)=(\S+)", pg.stdout))
            pg_dir = env["TOKENTOOL_PG_DIR"]
            os.mkdir(os.path.join(work, "postgres"))
            run_store(tokentool, env["TOKENTOOL_PG_URL"], os.path.join(work, "postgres"), "PostgreSQL", out, pages)
            stores.append("PostgreSQL")
        elif os.environ.get("CI") == "1":
            sys.exit("PostgreSQL did not start: " + pg.stderr.strip())
        else:
            print("cors browser on PostgreSQL: skipped (" + pg.stderr.strip() + ")")
        print(f"cors browser: ok on {' and '.join(stores)} in {time.monotonic() - started:.0f} s; screenshots in {out}")
    except Failed as e:
        sys.exit(f"FAIL {e}")
    finally:
        if pg_dir:
            subprocess.run([os.path.join(ROOT, "scripts", "pg-throwaway.sh"), "stop", pg_dir])
        allowed.shutdown()
        other.shutdown()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
