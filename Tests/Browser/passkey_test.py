#!/usr/bin/env python3
"""Browser test of passkeys on the OpenID Provider's hosted login (docs/mfa.md, "Passkeys";
docs/oidc.md, "The authorization step"), with Chromium's own WebAuthn and a virtual authenticator.

Starts `tokentool serve` (SQLite, then a throwaway PostgreSQL from scripts/pg-throwaway.sh) with
`public_url` `http://localhost:PORT` (a secure context, so the page's origin is the relying
party's), an app with email/password and passkey sign-in and a first-party client redirecting to
a loopback listener served here; registers an account and signs it in over the API. Then in
headless Chromium (Debian's chromium + chromium-driver, driven by selenium) with WebDriver's
virtual authenticator (CTAP2, internal, resident keys, user verification): registers a passkey
from a page of the server's origin with navigator.credentials.create() and the bearer token (201,
one resident credential in the authenticator); opens /oauth/authorize and clicks "Sign in with a
passkey" (/oauth/passkey.js: the options, navigator.credentials.get(), the assertion posted with
the page's form) and lands at the client with a code whose id_token says amr hwk user mfa; signs
in again (prompt=login) with the password, then "Use a passkey" on the second page: amr pwd hwk
mfa; with the authenticator's credential removed, the button shows the problem on a page whose
password form still works. Last, the login page's Content-Security-Policy allows the server's own
script and no inline one, the HTML has no inline script, and Chromium logged no CSP violation.
One line per step; the first failure exits non-zero with what was expected and what came. A
screenshot of each state lands in the output folder.
Usage: passkey_test.py PATH/TO/tokentool [OUTPUT_DIR]
"""
import base64, hashlib, json, os, queue, re, secrets, shutil, subprocess, sys, tempfile, time
import http.cookiejar, urllib.error, urllib.parse, urllib.request

from selenium.common.exceptions import TimeoutException, WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.virtual_authenticator import VirtualAuthenticatorOptions
from selenium.webdriver.support.ui import WebDriverWait

import chromium  # Tests/Browser/chromium.py, beside this file

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
APP = "passkey-browser"
EMAIL, PASSWORD = "passkey.user@example.com", "passkey password 1"
SECRET = "passkey-client-secret-0123456789abcdef"
ACR_MFA = "urn:tokentool:acr:mfa"


class Failed(Exception):
    pass


def check(condition, expected, got):
    if not condition:
        raise Failed(f"expected {expected}; got {got}")


def unb64(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def claims(jwt):
    return json.loads(unb64(jwt.split(".")[1]))


# In the page (execute_async_script): the registration options with the bearer token, create(),
# the answer as RegistrationResponseJSON, its post; the callback gets the registration's status.
REGISTER = r"""
const [token, name, done] = arguments;
const bytes = (s) => Uint8Array.from(atob(s.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((s.length + 3) % 4)), (c) => c.charCodeAt(0));
const text = (b) => btoa(String.fromCharCode(...new Uint8Array(b))).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
const api = (path, body) => fetch("/api/client/v2.0/auth/passkeys/" + path, {method: "POST",
  headers: {"Authorization": "Bearer " + token, "Content-Type": "application/json"}, body: JSON.stringify(body)});
(async () => {
  const answer = await api("registration/options", {});
  if (answer.status !== 200) return done({step: "options", status: answer.status, body: await answer.text()});
  const o = (await answer.json()).publicKey;
  o.challenge = bytes(o.challenge);
  o.user.id = bytes(o.user.id);
  o.excludeCredentials = (o.excludeCredentials || []).map((c) => ({type: c.type, id: bytes(c.id)}));
  const c = await navigator.credentials.create({publicKey: o});
  const credential = {id: c.id, rawId: text(c.rawId), type: c.type, authenticatorAttachment: c.authenticatorAttachment,
    response: {clientDataJSON: text(c.response.clientDataJSON), attestationObject: text(c.response.attestationObject),
               transports: c.response.getTransports ? c.response.getTransports() : []},
    clientExtensionResults: c.getClientExtensionResults()};
  const posted = await api("registration", {credential, name});
  done({step: "registration", status: posted.status, body: await posted.text()});
})().catch((e) => done({step: "browser", status: 0, body: String(e)}));
"""


class Run:
    """One `tokentool serve` on `store`, its browser, and the steps against them."""

    def __init__(self, tokentool, store, work, label, out, listener):
        self.label, self.out = label, out
        self.redirect, self.arrivals = listener  # the client's redirect URI, the queries it got
        port = chromium.free_port()
        self.base = f"http://localhost:{port}"  # public_url: the issuer, the relying party's origin
        with open(os.path.join(work, "client.secret"), "w") as f:
            f.write(SECRET)
        os.chmod(os.path.join(work, "client.secret"), 0o600)  # secrets are read owner-only
        with open(os.open(os.path.join(work, "master.key"), os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
            f.write(os.urandom(32).hex())
        config = {"public_url": self.base, "store": store, "master_key_file": "master.key",
                  "passkeys": {"user_verification": "required"},
                  "apps": {APP: {"providers": {"local-userpass": {"auto_confirm": True}, "passkey": {}}}},
                  # Registered without a port: a loopback redirect URI matches on any port (RFC 8252 §7.3).
                  "clients": {"webapp": {"app": APP, "name": "Web App", "secret_file": "client.secret", "first_party": True,
                                         "redirect_uris": ["http://127.0.0.1/cb"]}}}
        with open(os.path.join(work, "config.json"), "w") as f:
            json.dump(config, f)
        self.log_path = os.path.join(work, "serve.log")
        self.log = open(self.log_path, "w")
        self.server = subprocess.Popen([tokentool, "serve", "--config", os.path.join(work, "config.json"), "--listen", f"127.0.0.1:{port}"],
                                       stdout=subprocess.PIPE, stderr=self.log, text=True)
        self.browser = None
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
        print(f"passkey browser ({self.label}): {text}", flush=True)

    def shot(self, name, expect, seconds=15):
        try:
            chromium.shot(self.browser, self.out, f"passkey-{self.label.lower()}-{name}", expect, seconds)
        except AssertionError as e:
            raise Failed(f"{expect!r} on the page ({name}); got {self.browser.current_url}: {str(e)[-400:]}")

    def api(self, path, body, token=None):
        headers = {"Content-Type": "application/json", **({"Authorization": "Bearer " + token} if token else {})}
        req = urllib.request.Request(self.base + "/api/client/v2.0" + path, data=json.dumps(body).encode(), method="POST", headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                return r.status, json.loads(r.read() or b"{}")
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode(errors="replace")

    # The flow's two ends: the authorize URL with PKCE, the code's exchange.

    def authorize_url(self, state, **extra):
        verifier = secrets.token_urlsafe(48)
        challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
        query = {"response_type": "code", "client_id": "webapp", "redirect_uri": self.redirect, "scope": "openid email",
                 "state": state, "nonce": "n-" + state, "code_challenge": challenge, "code_challenge_method": "S256", **extra}
        return self.base + "/oauth/authorize?" + urllib.parse.urlencode(query), verifier

    def arrived(self, state, verifier):
        """The code the client's redirect URI got for `state`, exchanged: the id_token's claims."""
        try:
            got = self.arrivals.get(timeout=20)
        except queue.Empty:
            raise Failed(f"arrival at the redirect URI with state {state}; got nothing, the browser at {self.browser.current_url}")
        check(got.get("state") == state and got.get("code") and got.get("iss") == self.base and "error" not in got,
              f"code, state {state} and iss {self.base} at the redirect URI", got)
        form = urllib.parse.urlencode({"grant_type": "authorization_code", "code": got["code"], "redirect_uri": self.redirect,
                                       "code_verifier": verifier}).encode()
        basic = base64.b64encode(f"webapp:{SECRET}".encode()).decode()
        req = urllib.request.Request(self.base + "/oauth/token", data=form, method="POST",
                                     headers={"Authorization": "Basic " + basic, "Content-Type": "application/x-www-form-urlencoded"})
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                status, body = r.status, json.loads(r.read())
        except urllib.error.HTTPError as e:
            status, body = e.code, e.read().decode(errors="replace")
        check(status == 200 and isinstance(body, dict) and body.get("id_token"), "200 with an id_token at /oauth/token", f"{status} {body}")
        c = claims(body["id_token"])
        check(c.get("sub") == self.user_id and c.get("aud") in ("webapp", ["webapp"]) and c.get("nonce") == "n-" + state,
              f"sub {self.user_id}, aud webapp, nonce n-{state}", c)
        return c, claims(body["access_token"])

    def check_amr(self, what, tokens, amr):
        for name, c in zip(("id_token", "access token"), tokens):
            check(c.get("amr") == amr and c.get("acr") == ACR_MFA, f"{what}: the {name}'s amr {amr} and acr {ACR_MFA}",
                  {"amr": c.get("amr"), "acr": c.get("acr")})

    def click_passkey(self, label):
        button = WebDriverWait(self.browser, 10).until(lambda b: b.find_element(By.ID, "passkey"))
        try:
            WebDriverWait(self.browser, 10).until(lambda b: button.is_displayed())
        except TimeoutException:
            raise Failed(f"the #passkey button shown by /oauth/passkey.js; it stayed hidden (console: {self.console()})")
        check(button.text == label, f"the button labelled {label!r}", button.text)
        button.click()

    def sign_in(self):
        """The login page's own form: email and password, submitted."""
        self.browser.find_element(By.ID, "email").clear()
        self.browser.find_element(By.ID, "email").send_keys(EMAIL)
        self.browser.find_element(By.ID, "password").send_keys(PASSWORD)
        self.browser.find_element(By.CSS_SELECTOR, "button[type=submit]").click()

    def console(self):
        """Chromium's console since the last call (CSP violations come with source `security`)."""
        try:
            return [f"{entry['source']}: {entry['message']}" for entry in self.browser.get_log("browser")]
        except WebDriverException as e:
            return [f"(no log: {e})"]

    # The steps.

    def run(self):
        status, body = self.api(f"/app/{APP}/auth/providers/local-userpass/register", {"email": EMAIL, "password": PASSWORD})
        check(status == 201, "201 at register", f"{status} {body}")
        status, login = self.api(f"/app/{APP}/auth/providers/local-userpass/login", {"username": EMAIL, "password": PASSWORD})
        check(status == 200 and isinstance(login, dict) and login.get("access_token"), "200 with an access token at login", f"{status} {login}")
        token, self.user_id = login["access_token"], login["user_id"]
        self.say("1. serve started; an account registered and signed in over the API")

        self.browser = chromium.open_browser()
        self.browser.set_script_timeout(20)
        self.browser.add_virtual_authenticator(VirtualAuthenticatorOptions(
            protocol=VirtualAuthenticatorOptions.Protocol.CTAP2, transport=VirtualAuthenticatorOptions.Transport.INTERNAL,
            has_resident_key=True, has_user_verification=True, is_user_verified=True, is_user_consenting=True))
        self.browser.get(self.base + "/.well-known/openid-configuration")  # any page of the origin
        result = self.browser.execute_async_script(REGISTER, token, "Chromium's virtual authenticator")
        check(result.get("step") == "registration" and result.get("status") == 201, "201 at the registration route", result)
        credentials = self.browser.get_credentials()
        check(len(credentials) == 1 and credentials[0].is_resident_credential and credentials[0].rp_id == "localhost"
              and credentials[0].user_handle and unb64(credentials[0].user_handle).decode() == self.user_id,
              f"one resident credential for {self.user_id} in the authenticator",
              [(c.is_resident_credential, c.user_handle, c.rp_id) for c in credentials])
        self.say("2. navigator.credentials.create() with the server's options: 201; one resident credential in the authenticator")

        url, verifier = self.authorize_url("passkey")
        self.browser.get(url)
        self.shot("login", "to continue to Web App")
        self.click_passkey("Sign in with a passkey")
        self.shot("client-passkey", "back at the client")
        self.check_amr("a passkey sign-in", self.arrived("passkey", verifier), ["hwk", "user", "mfa"])
        self.say("3. 'Sign in with a passkey' on the login page: at the client with a code; amr [hwk, user, mfa], acr mfa")

        url, verifier = self.authorize_url("second", prompt="login")
        self.browser.get(url)
        self.shot("login-again", "to continue to Web App")
        self.sign_in()
        # A user with a passkey alone: the second page asks for the passkey, with no code field to fill.
        WebDriverWait(self.browser, 15).until(lambda b: "use your passkey." in b.page_source)
        check(not self.browser.find_elements(By.ID, "code"), "no code field on a passkey-only user's second page", "a code field")
        self.shot("second-page", "Use a passkey")
        self.click_passkey("Use a passkey")
        self.shot("client-second-factor", "back at the client")
        self.check_amr("password then passkey", self.arrived("second", verifier), ["pwd", "hwk", "mfa"])
        self.say("4. password, then 'Use a passkey' on the second page: at the client with a code; amr [pwd, hwk, mfa]")

        self.browser.remove_all_credentials()
        check(self.browser.get_credentials() == [], "no credential left in the authenticator", self.browser.get_credentials())
        url, _ = self.authorize_url("refused", prompt="login")
        self.browser.get(url)
        self.shot("login-refused", "to continue to Web App")
        login_url = self.browser.current_url
        self.click_passkey("Sign in with a passkey")
        problem = self.browser.find_element(By.ID, "passkey-problem")
        try:
            WebDriverWait(self.browser, 15).until(lambda b: problem.is_displayed() and problem.text)
            outcome = f"#passkey-problem {problem.text!r}"
        except TimeoutException:
            outcome = "get() still waiting after 15 s"
        self.shot("passkey-problem", "to continue to Web App")
        check(self.browser.current_url == login_url and self.arrivals.empty(), "no navigation after a get() that found nothing",
              self.browser.current_url)
        check(self.browser.find_element(By.ID, "passkey").is_enabled(), "the passkey button enabled again", "disabled")
        self.sign_in()
        WebDriverWait(self.browser, 15).until(lambda b: "use your passkey." in b.page_source)
        self.shot("second-page-after-problem", "Use a passkey")
        self.say(f"5. no credential in the authenticator: {outcome}; still on the login page, whose password then "
                 "leads to the second page")

        # The login page over plain HTTP: its headers and HTML.
        url, _ = self.authorize_url("csp")
        # Follows the redirect to /oauth/login?flow= with the flow's binding cookie, as a browser does.
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        with opener.open(url, timeout=30) as r:
            csp, html, landed = r.headers.get("Content-Security-Policy", ""), r.read().decode(), r.url
        check("/oauth/login?flow=" in landed, "the authorize URL's redirect to the login page", landed)
        directives = {d.split()[0]: d.split()[1:] for d in (p.strip() for p in csp.split(";")) if d}
        check(directives.get("script-src") == ["'self'"] and "'unsafe-inline'" not in csp and "'unsafe-eval'" not in csp,
              "script-src 'self' and no unsafe-inline or unsafe-eval in the Content-Security-Policy", csp)
        scripts = re.findall(r"<script\b[^>]*>(.*?)</script\s*>", html, re.S | re.I)
        tags = re.findall(r"<script\b[^>]*>", html, re.I)
        check(tags and all(re.search(r"\bsrc=\"/oauth/passkey\.js\"", t) for t in tags) and not any(s.strip() for s in scripts),
              "only <script src=\"/oauth/passkey.js\"></script>, no inline script", tags)
        check(not re.search(r"\son[a-z]+\s*=", html, re.I) and "javascript:" not in html.lower(),
              "no inline event handler or javascript: URL", html[:600])
        violations = [m for m in self.console() if m.startswith("security:") or "Content Security Policy" in m]
        check(not violations, "no CSP violation in Chromium's console", violations)
        self.say("6. the login page's CSP: script-src 'self', no unsafe-inline; one external script, none inline; "
                 "no violation in the console")


def run_store(tokentool, store, work, label, out, listener):
    started = time.monotonic()
    run = Run(tokentool, store, work, label, out, listener)
    try:
        run.run()
    except BaseException:
        if run.browser:
            try:
                run.browser.save_screenshot(os.path.join(out, f"passkey-{label.lower()}-failed.png"))
                print(f"at {run.browser.current_url}; Chromium's console:", *run.console(), sep="\n  ", file=sys.stderr)
            except WebDriverException:
                pass
        print(f"the server's log ({label}), its end:\n{run.log_tail()}", file=sys.stderr)
        raise
    finally:
        run.stop()
    run.say(f"ok in {time.monotonic() - started:.0f} s")


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    tokentool = os.path.abspath(sys.argv[1])
    out = sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp(prefix="passkey-test-")
    os.makedirs(out, exist_ok=True)
    client, redirect, arrivals = chromium.redirect_listener()
    work = tempfile.mkdtemp(prefix="passkey-serve-")
    pg_dir = None
    try:
        os.mkdir(os.path.join(work, "sqlite"))
        run_store(tokentool, "s.sqlite", os.path.join(work, "sqlite"), "SQLite", out, (redirect, arrivals))
        started = subprocess.run([os.path.join(ROOT, "scripts", "pg-throwaway.sh"), "start", "--fast"], capture_output=True, text=True)
        if started.returncode == 0:
            env = dict(re.findall(r"export (\w+)=(\S+)", started.stdout))
            pg_dir = env["TOKENTOOL_PG_DIR"]
            os.mkdir(os.path.join(work, "postgres"))
            run_store(tokentool, env["TOKENTOOL_PG_URL"], os.path.join(work, "postgres"), "PostgreSQL", out, (redirect, arrivals))
        elif os.environ.get("CI") == "1":
            sys.exit("PostgreSQL did not start: " + started.stderr.strip())
        else:
            print("passkey browser on PostgreSQL: skipped (" + started.stderr.strip() + ")")
        print(f"passkey browser: ok; screenshots in {out}")
    except Failed as e:
        sys.exit(f"FAIL {e}")
    finally:
        if pg_dir:
            subprocess.run([os.path.join(ROOT, "scripts", "pg-throwaway.sh"), "stop", pg_dir])
        client.shutdown()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
