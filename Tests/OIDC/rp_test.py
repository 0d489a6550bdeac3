#!/usr/bin/env python3
"""OpenID Connect relying parties nobody here wrote, against a live `tokentool serve` on 127.0.0.1.

    rp_test.py TOKENTOOL OUT_DIR [sqlite|postgres ...]

For each store named (default both): starts the server with a throwaway config (an app with
email/password, a confidential and a public first-party client), registers
a user over the App Services API, then
  - PyPI authlib (scripts/oidc/authlib-rp.py: OAuth2Session, PKCE S256, CodeIDToken validation of
    the id_token with the server's JWKS, userinfo) signs in through the hosted login page, as a
    confidential and as a public client, and again on the OP browser session without a page;
  - Apache with Debian's mod_auth_openidc (scripts/oidc/apache-rp.sh) protects a page: the test
    follows its redirects like a browser, posts the login form, and reads what mod_auth_openidc
    received through its OIDCInfoHook;
  - the refusals one by one: code reuse (and the first use's tokens stop working), an unregistered
    redirect URI, prompt=none without a session, PKCE plain, a public client without PKCE, a wrong
    verifier, a wrong client secret, a tampered upstream state.
The server's log lands in OUT_DIR. Exit 1 at the first check that fails, with what was seen.
"""
import base64
import hashlib
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.parse

import requests

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OIDC = os.path.join(ROOT, "scripts", "oidc")
APP = "rpapp"
SECRET = "portal client secret 0123456789"
AUTHLIB_CB = "http://127.0.0.1:9/cb"  # loopback: the port is not compared (RFC 8252 §7.3); nothing listens
APACHE_CB = "http://127.0.0.1/protected/redirect_uri"
EMAIL, PASSWORD = "rp.user@example.com", "rp password 12345"
TIMEOUT = 30


def check(condition, what, seen=None):
    if not condition:
        sys.exit(f"FAIL {what}" + (f": {seen}" if seen is not None else ""))
    print(f"ok {what}")


def free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """tokentool serve on 127.0.0.1 with the test's config; stopped by stop(), always."""

    def __init__(self, tokentool, out, store, kind):
        self.work = tempfile.mkdtemp(prefix="rp-serve-")
        os.chmod(self.work, 0o755)
        with open(os.path.join(self.work, "portal.secret"), "w") as f:
            f.write(SECRET)
        os.chmod(os.path.join(self.work, "portal.secret"), 0o600)
        port = free_port()
        self.base = f"http://127.0.0.1:{port}"
        # Apache's port, chosen now: its post-logout page is registered here, string for string.
        self.apache_port = free_port()
        self.signed_out = f"http://127.0.0.1:{self.apache_port}/signed-out.html"
        config = {
            "public_url": self.base, "store": store,
            "apps": {APP: {"providers": {"local-userpass": {"auto_confirm": True, "min_password_length": 8}}}},
            "clients": {
                "portal": {"app": APP, "name": "Portal", "secret_file": "portal.secret", "first_party": True,
                           "redirect_uris": [AUTHLIB_CB, APACHE_CB], "post_logout_redirect_uris": [self.base + "/bye", self.signed_out]},
                "spa": {"app": APP, "first_party": True, "redirect_uris": [AUTHLIB_CB]},
            },
        }
        if kind == "postgres":  # every instance on one database seals with the same key
            with open(os.open(os.path.join(self.work, "master.key"), os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
                f.write(os.urandom(32).hex())
            config["master_key_file"] = "master.key"
        with open(os.path.join(self.work, "config.json"), "w") as f:
            json.dump(config, f)
        self.log = open(os.path.join(out, f"server-{kind}.log"), "w")
        self.process = subprocess.Popen(
            [tokentool, "serve", "--config", os.path.join(self.work, "config.json"), "--listen", f"127.0.0.1:{port}"],
            stdout=subprocess.PIPE, stderr=self.log, text=True)
        line = self.process.stdout.readline()
        if not line.startswith("listening on http://"):
            self.stop()
            sys.exit(f"FAIL the server did not start: {line!r} (its log: {self.log.name})")

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()
        shutil.rmtree(self.work, ignore_errors=True)


def register_user(base):
    prefix = f"{base}/api/client/v2.0/app/{APP}/auth/providers/local-userpass"
    r = requests.post(prefix + "/register", json={"email": EMAIL, "password": PASSWORD}, timeout=TIMEOUT)
    check(r.status_code == 201, "the user registers over the App Services API", r.status_code)
    r = requests.post(prefix + "/login", json={"username": EMAIL, "password": PASSWORD}, timeout=TIMEOUT)
    check(r.status_code == 200, "and signs in there", r.text)
    return r.json()["user_id"]


def hosted_login(browser, url, redirect_prefix, email=EMAIL, password=PASSWORD):
    """Follows the authorization URL like a browser; on the hosted login page posts the form.
    Returns the Location that points at the client's redirect URI (never followed)."""
    posted = False
    for _ in range(10):
        r = browser.get(url, allow_redirects=False, timeout=TIMEOUT)
        while r.status_code in (302, 303):
            location = urllib.parse.urljoin(url, r.headers["Location"])
            if location.startswith(redirect_prefix):
                return location
            url = location
            r = browser.get(url, allow_redirects=False, timeout=TIMEOUT)
        check(r.status_code in (200, 401) and "text/html" in r.headers.get("Content-Type", ""), "the hosted login page is shown",
              (r.status_code, r.text[:300]))
        if posted:
            sys.exit(f"FAIL the login page came back after the form was posted: {html_text(r.text)[:300]}")
        form = form_fields(r.text)
        check("email" in r.text and "password" in r.text, "it asks for the email and the password")
        form.update({"email": email, "password": password})
        r = browser.post(r.url, data=form, allow_redirects=False, timeout=TIMEOUT)
        posted = True
        if r.status_code in (302, 303):
            location = urllib.parse.urljoin(url, r.headers["Location"])
            if location.startswith(redirect_prefix):
                return location
            url = location
            continue
        sys.exit(f"FAIL the login form's answer: {r.status_code} {html_text(r.text)[:300]}")
    sys.exit("FAIL too many redirects")


def form_fields(page):
    """The hidden inputs of the page's first form (the CSRF token)."""
    fields = {}
    for tag in re.findall(r"<input[^>]*>", page):
        if 'type="hidden"' in tag:
            name = re.search(r'name="([^"]*)"', tag).group(1)
            value = re.search(r'value="([^"]*)"', tag).group(1)
            fields[html.unescape(name)] = html.unescape(value)
    return fields


def html_text(page):
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page))


def authlib(command, *args):
    run = subprocess.run([sys.executable, os.path.join(OIDC, "authlib-rp.py"), command, *args], capture_output=True, text=True,
                         timeout=60)
    return run.returncode, run.stdout.strip(), run.stderr.strip()


def authlib_flow(server, work, browser, client_id, secret, user_id, scope="openid email profile"):
    state_file = os.path.join(work, f"authlib-{client_id}.json")
    args = ["--issuer", server.base, "--client-id", client_id, "--redirect-uri", AUTHLIB_CB, "--state-file", state_file, "--scope", scope]
    if secret:
        args += ["--client-secret-file", secret_file(work)]
    rc, url, err = authlib("start", *args)
    check(rc == 0, f"authlib reads the discovery document ({client_id})", err)
    location = hosted_login(browser, url, AUTHLIB_CB)
    rc, out, err = authlib("finish", "--state-file", state_file, "--callback", location)
    check(rc == 0, f"authlib redeems the code, validates the id_token (CodeIDToken) and calls userinfo ({client_id})", err)
    result = json.loads(out)
    claims = result["id_token"]
    check(claims["sub"] == user_id and result["userinfo"]["sub"] == user_id, "the id_token's and userinfo's sub is the App Services user id",
          (claims.get("sub"), user_id))
    # auto_confirm let the account sign in, but no mail ever proved the address: email_verified is false.
    check(claims.get("email") == EMAIL and claims.get("email_verified") is False, "the email scope's claims (unproven address)", claims)
    check(claims.get("azp") == client_id and claims.get("amr") == ["pwd"] and "sid" in claims and "auth_time" in claims,
          "azp, amr, sid and auth_time", claims)
    check(set(result["token"]) >= {"access_token", "refresh_token", "id_token", "expires_in", "token_type", "scope"},
          "the token answer's members", result["token"])
    return claims


def secret_file(work):
    """The portal's secret in an owner-only file: the relying parties read it there, never from a command line."""
    path = os.path.join(work, "portal-rp.secret")
    with open(path, "w") as f:
        f.write(SECRET)
    os.chmod(path, 0o600)
    return path


def code_from(location):
    return dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(location).query))


def authorize_url(server, **params):
    return server.base + "/oauth/authorize?" + urllib.parse.urlencode(params)


def pkce():
    verifier = base64.urlsafe_b64encode(os.urandom(32)).rstrip(b"=").decode()
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return verifier, challenge


def refusals(server, browser):
    token_url = server.base + "/oauth/token"
    basic = ("portal", SECRET)
    verifier, challenge = pkce()

    # An unregistered redirect URI: the error page, never a redirect.
    r = requests.get(authorize_url(server, response_type="code", client_id="portal", redirect_uri="http://evil.example/cb",
                                   scope="openid", state="s1"), allow_redirects=False, timeout=TIMEOUT)
    check(r.status_code == 400 and "Location" not in r.headers and "text/html" in r.headers.get("Content-Type", ""),
          "an unregistered redirect_uri gets the 400 error page, no redirect", (r.status_code, r.headers.get("Location")))
    r = requests.get(authorize_url(server, response_type="code", client_id="nobody", redirect_uri=AUTHLIB_CB, scope="openid"),
                     allow_redirects=False, timeout=TIMEOUT)
    check(r.status_code == 400 and "Location" not in r.headers, "an unknown client_id gets the 400 error page", r.status_code)

    # prompt=none without a browser session.
    r = requests.get(authorize_url(server, response_type="code", client_id="portal", redirect_uri=AUTHLIB_CB, scope="openid",
                                   state="s2", prompt="none", code_challenge=challenge, code_challenge_method="S256"),
                     allow_redirects=False, timeout=TIMEOUT)
    q = code_from(r.headers.get("Location", ""))
    check(r.status_code == 302 and q.get("error") == "login_required" and q.get("state") == "s2" and q.get("iss") == server.base,
          "prompt=none without a session: login_required at the redirect, with state and iss", (r.status_code, q))

    # PKCE plain, and a public client without PKCE.
    r = requests.get(authorize_url(server, response_type="code", client_id="spa", redirect_uri=AUTHLIB_CB, scope="openid",
                                   state="s3", code_challenge=verifier, code_challenge_method="plain"), allow_redirects=False, timeout=TIMEOUT)
    q = code_from(r.headers.get("Location", ""))
    check(r.status_code == 302 and q.get("error") == "invalid_request", "PKCE plain is refused at the redirect", (r.status_code, q))
    r = requests.get(authorize_url(server, response_type="code", client_id="spa", redirect_uri=AUTHLIB_CB, scope="openid", state="s4"),
                     allow_redirects=False, timeout=TIMEOUT)
    q = code_from(r.headers.get("Location", ""))
    check(r.status_code == 302 and q.get("error") == "invalid_request", "a public client without PKCE is refused at the redirect", (r.status_code, q))

    # A code by hand (the browser has an OP session by now: first-party, no page).
    def new_code():
        location = hosted_login(browser, authorize_url(server, response_type="code", client_id="portal", redirect_uri=AUTHLIB_CB,
                                                       scope="openid email", state="s5", code_challenge=challenge,
                                                       code_challenge_method="S256"), AUTHLIB_CB)
        return code_from(location)["code"]

    form = {"grant_type": "authorization_code", "redirect_uri": AUTHLIB_CB, "code_verifier": verifier}
    r = requests.post(token_url, data=dict(form, code=new_code()), auth=("portal", "wrong secret"), timeout=TIMEOUT)
    check(r.status_code == 401 and r.json().get("error") == "invalid_client", "a wrong client secret: 401 invalid_client", r.text)
    r = requests.post(token_url, data=dict(form, code=new_code(), code_verifier=pkce()[0]), auth=basic, timeout=TIMEOUT)
    check(r.status_code == 400 and r.json().get("error") == "invalid_grant", "a wrong code_verifier: invalid_grant", r.text)

    code = new_code()
    first = requests.post(token_url, data=dict(form, code=code), auth=basic, timeout=TIMEOUT)
    check(first.status_code == 200 and first.headers.get("Cache-Control") == "no-store", "the code is redeemed once", first.text)
    access = first.json()["access_token"]
    r = requests.get(server.base + "/oauth/userinfo", headers={"Authorization": "Bearer " + access}, timeout=TIMEOUT)
    check(r.status_code == 200, "its access token reads userinfo", r.status_code)
    again = requests.post(token_url, data=dict(form, code=code), auth=basic, timeout=TIMEOUT)
    check(again.status_code == 400 and again.json().get("error") == "invalid_grant", "the same code again: invalid_grant", again.text)
    r = requests.get(server.base + "/oauth/userinfo", headers={"Authorization": "Bearer " + access}, timeout=TIMEOUT)
    check(r.status_code == 401 and "invalid_token" in r.headers.get("WWW-Authenticate", ""),
          "and the first use's access token stops working (401 invalid_token)", (r.status_code, r.headers.get("WWW-Authenticate")))
    r = requests.post(token_url, data={"grant_type": "refresh_token", "refresh_token": first.json()["refresh_token"]}, auth=basic,
                      timeout=TIMEOUT)
    check(r.status_code == 400, "and its refresh token too", r.text)

    # A tampered upstream state at the web sign-in callback.
    r = requests.get(server.base + "/oauth/callback/google", params={"state": "tampered", "code": "x"}, allow_redirects=False, timeout=TIMEOUT)
    check(r.status_code == 400 and "Location" not in r.headers, "a tampered upstream state: the 400 error page", r.status_code)


def apache_flow(server, work, user_id):
    dir = os.path.join(work, "apache")
    run = subprocess.run([os.path.join(OIDC, "apache-rp.sh"), "start", dir, server.base, "portal", secret_file(work)], capture_output=True,
                         text=True, timeout=120, env={**os.environ, "APACHE_RP_PORT": str(server.apache_port)})
    check(run.returncode == 0, "Apache with mod_auth_openidc starts", run.stderr[-800:])
    page = run.stdout.strip().splitlines()[-1]
    try:
        browser = requests.Session()
        r = browser.get(page, allow_redirects=False, timeout=TIMEOUT)
        check(r.status_code == 302 and r.headers["Location"].startswith(server.base + "/oauth/authorize?"),
              "mod_auth_openidc sends the browser to the authorization endpoint", (r.status_code, r.headers.get("Location")))
        authz = code_from(r.headers["Location"])
        check(authz.get("code_challenge_method") == "S256" and "nonce" in authz and "state" in authz, "with PKCE S256, nonce and state", authz)
        location = hosted_login(browser, r.headers["Location"], f"http://127.0.0.1:{urllib.parse.urlsplit(page).port}/protected/redirect_uri")
        r = browser.get(location, allow_redirects=True, timeout=TIMEOUT)
        check(r.status_code == 200 and "the protected page" in r.text, "mod_auth_openidc redeems the code and serves the page",
              (r.status_code, r.text[:300]))
        info = browser.get(page + "redirect_uri?info=json", timeout=TIMEOUT)
        check(info.status_code == 200, "its OIDCInfoHook answers", info.status_code)
        claims = info.json().get("id_token", {})
        check(claims.get("sub") == user_id and claims.get("email") == EMAIL, "and names the user the server signed in", claims)
        # docs/oidc.md's logout link: mod_auth_openidc ends its session and sends the browser to the
        # end-session endpoint with the ID token it kept; the server ends the OP session and sends it on.
        r = browser.get(page + "redirect_uri?logout=" + urllib.parse.quote(server.signed_out, safe=""), allow_redirects=False, timeout=TIMEOUT)
        end = r.headers.get("Location", "")
        check(r.status_code == 302 and end.startswith(server.base + "/oauth/logout?"), "the logout link goes to the end-session endpoint",
              (r.status_code, end[:200]))
        ask = code_from(end)
        check(ask.get("id_token_hint") and ask.get("post_logout_redirect_uri") == server.signed_out,
              "with the ID token and the registered page", sorted(ask))
        r = browser.get(end, allow_redirects=True, timeout=TIMEOUT)
        check(r.status_code == 200 and r.url == server.signed_out and "signed out" in r.text, "the server sends the browser to the page",
              (r.status_code, r.url))
        r = browser.get(page, allow_redirects=True, timeout=TIMEOUT)
        check(r.status_code == 200 and "/oauth/login?flow=" in r.url and 'name="password"' in r.text,
              "the next visit shows the login page (no silent sign-in from the ended OP session)", (r.status_code, r.url))
    finally:
        subprocess.run([os.path.join(OIDC, "apache-rp.sh"), "stop", dir], capture_output=True, timeout=60)


def run_store(tokentool, out, kind):
    work = tempfile.mkdtemp(prefix="rp-test-")
    os.chmod(work, 0o755)  # Apache's workers (www-data) read its folder
    pg_dir = None
    try:
        if kind == "postgres":
            started = subprocess.run([os.path.join(ROOT, "scripts", "pg-throwaway.sh"), "start", "--fast"], capture_output=True, text=True,
                                     timeout=120, check=True).stdout
            env = dict(re.findall(r"export (\w+)=(\S+)", started))
            pg_dir, store = env["TOKENTOOL_PG_DIR"], env["TOKENTOOL_PG_URL"]
        else:
            store = os.path.join(work, "s.sqlite")
        print(f"# {kind}")
        server = Server(tokentool, out, store, kind)
        try:
            user_id = register_user(server.base)
            browser = requests.Session()
            first = authlib_flow(server, work, browser, "portal", SECRET, user_id)
            again = authlib_flow(server, work, browser, "spa", None, user_id)
            check(again["sid"] == first["sid"] and again["auth_time"] == first["auth_time"],
                  "the second client signs in on the same OP session, without a page", (first["sid"], again["sid"]))
            refusals(server, browser)
            apache_flow(server, work, user_id)
        finally:
            server.stop()
    finally:
        if pg_dir:
            subprocess.run([os.path.join(ROOT, "scripts", "pg-throwaway.sh"), "stop", pg_dir], capture_output=True, timeout=120)
        shutil.rmtree(work, ignore_errors=True)


def main():
    tokentool, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    for kind in sys.argv[3:] or ["sqlite", "postgres"]:
        run_store(tokentool, out, kind)
    print("ok the OpenID Connect relying parties")


if __name__ == "__main__":
    main()
