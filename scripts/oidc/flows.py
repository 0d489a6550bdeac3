#!/usr/bin/env python3
"""Authorization-code flows against `tokentool serve`, for the benchmarks (`make bench-server`'s
code-flow and userinfo rows, and the code-flow row of the peer benchmark beside Glewlwyd).

    flows.py signin  --url URL --client ID --secret-file F --redirect URI --email E --password-file F
                     [--cookie-out F] [--access-out F] [--refresh-out F] [--count N]
    flows.py flows   --url URL --client ID --secret-file F --redirect URI --cookie-file F
                     [--seconds S] [--connections N]

`signin` registers EMAIL with the app's local-userpass provider (auto_confirm; a 409 for an address
already registered is fine), signs in once through the hosted login page (GET /oauth/authorize ->
302 to /oauth/login?flow= -> its CSRF token -> POST email and password -> 303 with a code, the OP
session cookie set) and writes the cookie (`name=value`). With --access-out/--refresh-out it then
runs --count flows (default 1) and writes the last access token / every refresh token, one a line.

`flows` is the measurement: N threads, each on one keep-alive connection, each doing whole flows
for S seconds: GET /oauth/authorize with the cookie and PKCE S256 (302 with a code), then POST
/oauth/token with the code, its verifier and HTTP Basic (200 with tokens). Prints one JSON object:
{"rps": complete flows per second, "p50_ms", "p99_ms" (of whole flows), "requests": flows, "errors"}.
Only 127.0.0.1 or localhost URLs; the client secret and the password are read from files."""
import argparse
import base64
import hashlib
import html
import http.client
import json
import re
import secrets
import sys
import threading
import time
import urllib.parse


def fail(msg):
    print("flows.py: " + msg, file=sys.stderr)
    sys.exit(1)


def read_secret(path):
    with open(path) as f:
        text = f.read()
    return text[:-1] if text.endswith("\n") else text


def pkce_pair():
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return verifier, challenge


class Connection:
    """One keep-alive HTTP/1.1 connection to the server; reconnects once on a dropped connection."""

    def __init__(self, url):
        u = urllib.parse.urlsplit(url)
        if u.hostname not in ("127.0.0.1", "localhost"):
            fail("only a loopback server: " + url)
        self.host, self.port = u.hostname, u.port
        self.conn = http.client.HTTPConnection(self.host, self.port, timeout=30)

    def call(self, method, path, body=None, headers=None):
        for attempt in (0, 1):
            try:
                self.conn.request(method, path, body=body, headers=headers or {})
                r = self.conn.getresponse()
                data = r.read()
                return r.status, r.getheader("Location"), r.getheader("Set-Cookie"), data
            except (http.client.HTTPException, OSError):
                self.conn.close()
                self.conn = http.client.HTTPConnection(self.host, self.port, timeout=30)
                if attempt:
                    raise


def local_path(location):
    """The path and query of a Location (the server names its public_url, not this address)."""
    u = urllib.parse.urlsplit(location)
    return u.path + ("?" + u.query if u.query else "")


class Flow:
    def __init__(self, a, cookie):
        self.a, self.cookie = a, cookie
        self.conn = Connection(a.url)
        secret = read_secret(a.secret_file)
        self.basic = "Basic " + base64.b64encode(
            ("%s:%s" % (urllib.parse.quote(a.client, safe=""), urllib.parse.quote(secret, safe=""))).encode()).decode()

    def authorize_path(self, challenge):
        return "/oauth/authorize?" + urllib.parse.urlencode({
            "response_type": "code", "client_id": self.a.client, "redirect_uri": self.a.redirect,
            "scope": "openid profile email", "state": secrets.token_urlsafe(12), "nonce": secrets.token_urlsafe(12),
            "code_challenge": challenge, "code_challenge_method": "S256"})

    def exchange(self, location, verifier):
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(location or "").query)
        if "code" not in query:
            raise RuntimeError("no code in %r" % location)
        form = urllib.parse.urlencode({"grant_type": "authorization_code", "code": query["code"][0],
                                       "redirect_uri": self.a.redirect, "code_verifier": verifier})
        status, _, _, body = self.conn.call("POST", "/oauth/token", body=form, headers={
            "Authorization": self.basic, "Content-Type": "application/x-www-form-urlencoded"})
        if status != 200:
            raise RuntimeError("token %s %s" % (status, body[:200]))
        return json.loads(body)

    def one(self):
        """authorize (302 with a code) then token (200 with tokens); returns the tokens or raises."""
        verifier, challenge = pkce_pair()
        status, location, _, body = self.conn.call("GET", self.authorize_path(challenge), headers={"Cookie": self.cookie})
        if status != 302:
            raise RuntimeError("authorize %s %s" % (status, body[:200]))
        return self.exchange(location, verifier)


def cmd_signin(a):
    conn = Connection(a.url)
    password = read_secret(a.password_file)
    status, _, _, body = conn.call(
        "POST", "/api/client/v2.0/app/%s/auth/providers/local-userpass/register" % a.app,
        body=json.dumps({"email": a.email, "password": password}), headers={"Content-Type": "application/json"})
    if status not in (201, 200, 409):
        fail("register %s %s" % (status, body[:200]))
    flow = Flow(a, "")
    verifier, challenge = pkce_pair()
    status, location, _, body = conn.call("GET", flow.authorize_path(challenge))
    if status != 302 or "/oauth/login?flow=" not in (location or ""):
        fail("authorize without a session: %s %s" % (status, location))
    page = local_path(location)
    status, _, _, body = conn.call("GET", page)
    m = re.search(r'name="csrf" value="([^"]+)"', body.decode())
    if status != 200 or not m:
        fail("login page %s" % status)
    form = urllib.parse.urlencode({"csrf": html.unescape(m.group(1)), "email": a.email, "password": password})
    status, location, set_cookie, body = conn.call("POST", page, body=form, headers={"Content-Type": "application/x-www-form-urlencoded"})
    if status != 303 or not set_cookie:
        fail("login post %s %s" % (status, body[:200]))
    cookie = set_cookie.split(";", 1)[0]
    flow.exchange(location, verifier)
    if a.cookie_out:
        with open(a.cookie_out, "w") as out:
            out.write(cookie)
    if a.access_out or a.refresh_out:
        flow = Flow(a, cookie)
        refresh = open(a.refresh_out, "w") if a.refresh_out else None
        tokens = None
        for _ in range(a.count):
            tokens = flow.one()
            if refresh:
                refresh.write(tokens["refresh_token"] + "\n")
        if refresh:
            refresh.close()
        if a.access_out:
            with open(a.access_out, "w") as out:
                out.write(tokens["access_token"])


def cmd_flows(a):
    with open(a.cookie_file) as f:
        cookie = f.read().strip()
    lat, errors, lock = [], [0], threading.Lock()
    stop_at = [0.0]

    def worker():
        f = Flow(a, cookie)
        mine, bad = [], 0
        while time.monotonic() < stop_at[0]:
            t0 = time.monotonic()
            try:
                f.one()
                mine.append(time.monotonic() - t0)
            except Exception:
                bad += 1
        with lock:
            lat.extend(mine)
            errors[0] += bad

    Flow(a, cookie).one()  # fail early when the flow does not work
    threads = [threading.Thread(target=worker) for _ in range(a.connections)]
    t0 = time.monotonic()
    stop_at[0] = t0 + a.seconds
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    took = time.monotonic() - t0
    lat.sort()
    pct = lambda p: round(lat[min(len(lat) - 1, int(p / 100.0 * len(lat)))] * 1000, 3) if lat else None
    print(json.dumps({"rps": round(len(lat) / took, 1), "p50_ms": pct(50), "p99_ms": pct(99),
                      "requests": len(lat), "errors": errors[0]}))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("signin", "flows"):
        p = sub.add_parser(name)
        p.add_argument("--url", required=True)
        p.add_argument("--client", required=True)
        p.add_argument("--secret-file", required=True)
        p.add_argument("--redirect", required=True)
    p = sub.choices["signin"]
    p.add_argument("--app", required=True)
    p.add_argument("--email", required=True)
    p.add_argument("--password-file", required=True)
    p.add_argument("--cookie-out")
    p.add_argument("--access-out")
    p.add_argument("--refresh-out")
    p.add_argument("--count", type=int, default=1)
    p = sub.choices["flows"]
    p.add_argument("--cookie-file", required=True)
    p.add_argument("--seconds", type=float, default=5)
    p.add_argument("--connections", type=int, default=8)
    a = ap.parse_args()
    {"signin": cmd_signin, "flows": cmd_flows}[a.cmd](a)


if __name__ == "__main__":
    main()
