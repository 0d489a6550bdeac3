#!/usr/bin/env python3
"""Browser test of login CSRF in web sign-in (docs/oidc.md, "The browser session and the hosted
pages": flows are bound to the browser that starts them), in headless Chromium.

`tokentool serve` runs on 127.0.0.1 with the stand-in providers (`provider-standin`, built beside
tokentool) as Google and Apple, an app with email/password, Google and Apple, and a first-party
client whose redirect URI is served here. The victim is a Chromium profile of its own: it signs in
on the hosted login page (its OP session). The attacker is another cookie jar (PyPI requests) that
runs its own sign-ins up to the provider's answer and hands that answer to the victim:
1. first the victim's own flows in Chromium sign in (realm-web's Google flow ends at the app's
   redirect URL with `#_baas_ua`; Apple's form post from the provider's page too), which leaves
   the victim's own binding cookie in its profile;
2. Google from the attacker's hosted login page: its callback URL opened in the victim's Chromium
   is the 400 page; the victim's OP session is untouched (prompt=none still gives a code);
3. realm-web's redirect flow: the attacker's callback URL opened by the victim is the 400 page and
   Chromium never reaches the app's redirect URL (no `#_baas_ua`);
4. Apple's form_post: the attacker's answer posted by the victim's Chromium from a page on another
   site (`http://localhost:PAGE`, auto-submitted) is the 400 page.
On SQLite, then a throwaway PostgreSQL. Each step prints a line; the first failure exits non-zero.
Usage: login_csrf_test.py PATH/TO/tokentool [OUTPUT_DIR]
"""
import base64, hashlib, html, json, os, re, shutil, subprocess, sys, tempfile, threading, time, urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import requests
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

import chromium  # Tests/Browser/chromium.py, beside this file

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
APP = "csrf-app"
BASE = "/api/client/v2.0"
EMAIL, PASSWORD = "victim@example.com", "victim password 1"
SECRET = "portal-client-secret-0123456789abcdef"
TIMEOUT = 30


class Failed(Exception):
    pass


def check(condition, what, seen=None):
    if not condition:
        raise Failed(what + (f": {seen}" if seen is not None else ""))


class _Pages(BaseHTTPRequestHandler):
    """The relying party's redirect URI, the app's redirect URL, and the attacker's page."""

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        if url.path == "/attack":
            fields = self.server.attack
            inputs = "".join(f'<input type="hidden" name="{html.escape(k)}" value="{html.escape(v)}">' for k, v in fields["fields"])
            body = (f'<!doctype html><title>attacker</title><body onload="document.forms[0].submit()">'
                    f'<form method="post" action="{html.escape(fields["action"])}">{inputs}</form></body>')
        else:
            body = "<!doctype html><title>app</title><p id=arrived>back at the app</p>"
        data = body.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


def pkce():
    verifier = base64.urlsafe_b64encode(os.urandom(32)).decode().rstrip("=")
    return verifier, base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")


class Run:
    def __init__(self, tokentool, standin, store, work, label, out, pages):
        self.label, self.out, self.pages = label, out, pages
        self.page_origin = f"http://127.0.0.1:{pages.server_port}"
        self.attacker_origin = f"http://localhost:{pages.server_port}"  # another site than 127.0.0.1
        self.rp_cb, self.app_done = self.page_origin + "/cb", self.page_origin + "/app-done"
        port = chromium.free_port()
        self.base = f"http://127.0.0.1:{port}"
        st = standin
        for name, text in (("portal.secret", SECRET), ("google.secret", st["google"]["client_secret"] + "\n"),
                           ("master.key", os.urandom(32).hex())):
            with open(os.open(os.path.join(work, name), os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
                f.write(text)
        shutil.copy(st["apple_key_file"], os.path.join(work, "apple.p8"))
        os.chmod(os.path.join(work, "apple.p8"), 0o600)
        b = st["base_url"]
        config = {
            "public_url": self.base, "store": store, "master_key_file": "master.key", "provider_timeout": "5s",
            "provider_urls": {"google": b, "google_jwks": st["google"]["jwks"], "google_authorize": b + "/o/oauth2/v2/auth",
                              "apple": b, "facebook_graph": b, "facebook_dialog": b},
            "apps": {APP: {"redirect_uris": [self.app_done], "providers": {
                "local-userpass": {"auto_confirm": True},
                "oauth2-google": {"client_ids": [st["google"]["client_id"]], "client_secret_file": "google.secret"},
                "oauth2-apple": {"client_ids": [st["apple"]["client_id"]], "team_id": st["apple"]["team_id"],
                                 "key_id": st["apple"]["key_id"], "private_key_file": "apple.p8",
                                 "web_client_id": st["apple"]["web_client_id"]}}}},
            "clients": {"portal": {"app": APP, "name": "Portal", "first_party": True, "secret_file": "portal.secret",
                                   "redirect_uris": [self.rp_cb]}},
        }
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
            raise Failed(f"tokentool serve to start; got {line!r}:\n{self.log_tail()}")

    def stop(self):
        if self.browser:
            self.browser.quit()
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
        print(f"ok login csrf ({self.label}): {text}", flush=True)

    def shot(self, name, expect):
        try:
            chromium.shot(self.browser, self.out, f"csrf-{self.label.lower()}-{name}", expect, 20)
        except AssertionError as e:
            raise Failed(f"{expect!r} on the page ({name}); the browser at {self.browser.current_url}: {str(e)[-400:]}")

    def authorize_url(self, prompt=None):
        _, challenge = pkce()
        q = {"response_type": "code", "client_id": "portal", "redirect_uri": self.rp_cb, "scope": "openid email",
             "state": os.urandom(8).hex(), "nonce": os.urandom(8).hex(), "code_challenge": challenge, "code_challenge_method": "S256"}
        if prompt:
            q["prompt"] = prompt
        return self.base + "/oauth/authorize?" + urllib.parse.urlencode(q), q

    def wait_url(self, prefix, what):
        try:
            WebDriverWait(self.browser, 20).until(lambda b: b.current_url.startswith(prefix))
        except TimeoutException:
            raise Failed(f"{what}; the browser at {self.browser.current_url}")

    def start(self, provider, state):
        return self.base + BASE + f"/app/{APP}/auth/providers/{provider}/login?" + urllib.parse.urlencode({"redirect": self.app_done, "state": state})

    @staticmethod
    def attacker_answer(session, url):
        """The attacker's own sign-in up to the provider's answer: the callback URL, never opened."""
        for _ in range(6):
            r = session.get(url, allow_redirects=False, timeout=TIMEOUT)
            check(r.status_code == 302, "the attacker's flow to redirect", (r.status_code, r.text[:200]))
            url = r.headers["Location"]
            if "/oauth/callback/" in url:
                return url
        raise Failed(f"the attacker's flow to reach the callback; at {url}")

    def run(self):
        requests.post(self.base + BASE + f"/app/{APP}/auth/providers/local-userpass/register",
                      json={"email": EMAIL, "password": PASSWORD}, timeout=TIMEOUT).raise_for_status()
        self.browser = chromium.open_browser()
        # The victim signs in on the hosted login page: its OP session.
        url, _ = self.authorize_url()
        self.browser.get(url)
        self.shot("victim-login", "Portal")
        self.browser.find_element(By.ID, "email").send_keys(EMAIL)
        self.browser.find_element(By.ID, "password").send_keys(PASSWORD)
        self.browser.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        self.wait_url(self.rp_cb + "?", "the victim's own sign-in to reach the client")
        self.say("the victim signs in on the hosted login page in Chromium")

        # 1. The victim's own flows sign in (and leave its own binding cookie in Chromium).
        self.browser.get(self.start("oauth2-google", "victimsstate"))
        self.wait_url(self.app_done + "#", "the victim's own redirect flow to reach the app")
        f = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(self.browser.current_url).fragment))
        check(f.get("_baas_ua", "").count("$") == 3 and f.get("_baas_state") == "victimsstate", "#_baas_ua with the victim's state", f)
        self.browser.get(self.start("oauth2-apple", "victimsappl1"))
        self.wait_url(self.app_done + "#", "the victim's own Apple sign-in (the provider's form post) to reach the app")
        f = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(self.browser.current_url).fragment))
        check(f.get("_baas_ua", "").count("$") == 3 and f.get("_baas_state") == "victimsappl1", "#_baas_ua after Apple's form post", f)
        self.say("1. the victim's own Google and Apple flows in Chromium end at the app with #_baas_ua")


        # 2. Google from the attacker's own login page, its callback URL opened by the victim.
        attacker = requests.Session()
        url, _ = self.authorize_url()
        page = attacker.get(url, timeout=TIMEOUT)
        link = re.search(r'href="([^"]*/oauth/login/google\?[^"]*)"', page.text)
        check(page.status_code == 200 and link, "the attacker's login page with a Google button", page.text[:300])
        callback = self.attacker_answer(attacker, urllib.parse.urljoin(page.url, html.unescape(link.group(1))))
        self.browser.get(callback)
        self.shot("google-callback", "started in another browser")
        url, q = self.authorize_url(prompt="none")
        self.browser.get(url)
        self.wait_url(self.rp_cb + "?", "prompt=none to come back to the client")
        arrived = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(self.browser.current_url).query))
        check(arrived.get("code") and "error" not in arrived, "prompt=none to give the victim a code: its OP session untouched", arrived)
        self.say("2. Google: the attacker's callback in the victim's Chromium is the 400 page; prompt=none still answers a code")

        # 3. realm-web's redirect flow: the attacker's callback never reaches the app with #_baas_ua.
        callback = self.attacker_answer(requests.Session(), self.start("oauth2-google", "attackerstat"))
        self.browser.get(callback)
        self.shot("redirect-callback", "started in another browser")
        check(not self.browser.current_url.startswith(self.app_done), "the victim's Chromium to stay off the app's URL", self.browser.current_url)
        self.say("3. realm-web's flow: the attacker's callback is the 400 page, the app's URL is never reached")

        # 4. Apple's form_post: the attacker's answer posted by the victim from another site.
        attacker = requests.Session()
        r = attacker.get(self.start("oauth2-apple", "attackerappl"), allow_redirects=False, timeout=TIMEOUT)
        apple = attacker.get(r.headers["Location"], timeout=TIMEOUT)
        action = re.search(r'action="([^"]*)"', apple.text)
        fields = re.findall(r'<input type="hidden" name="([^"]*)" value="([^"]*)">', apple.text)
        check(action and fields, "Apple's form_post page for the attacker", apple.text[:300])
        self.pages.attack = {"action": html.unescape(action.group(1)), "fields": [(html.unescape(k), html.unescape(v)) for k, v in fields]}
        self.browser.get(self.attacker_origin + "/attack")
        self.shot("apple-post", "started in another browser")
        self.say(f"4. Apple: the attacker's form_post, auto-posted by the victim from {self.attacker_origin}, is the 400 page")


def run_store(tokentool, standin, store, work, label, out, pages):
    started = time.monotonic()
    run = Run(tokentool, standin, store, work, label, out, pages)
    try:
        run.run()
    except BaseException:
        if run.browser:
            run.browser.save_screenshot(os.path.join(out, f"csrf-{label.lower()}-failed.png"))
        print(f"the server's log ({label}), its end:\n{run.log_tail()}", file=sys.stderr)
        raise
    finally:
        run.stop()
    print(f"ok login csrf ({label}): all in {time.monotonic() - started:.1f} s", flush=True)


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    tokentool = os.path.abspath(sys.argv[1])
    out = sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp(prefix="csrf-test-")
    os.makedirs(out, exist_ok=True)
    work = tempfile.mkdtemp(prefix="csrf-serve-")
    standin_bin = os.path.join(os.path.dirname(tokentool), "provider-standin")
    if not os.access(standin_bin, os.X_OK):
        sys.exit(f"FAIL {standin_bin} is not built (swift build --build-tests builds it beside tokentool)")
    key_file = os.path.join(work, "apple-standin.p8")
    standin = subprocess.Popen([standin_bin, "--port", "0", "--write-apple-key", key_file], stdout=subprocess.PIPE, text=True)
    pages = ThreadingHTTPServer(("127.0.0.1", 0), _Pages)
    threading.Thread(target=pages.serve_forever, daemon=True).start()
    pg_dir, stores = None, []
    try:
        info = json.loads(standin.stdout.readline())
        info["apple_key_file"] = key_file
        os.mkdir(os.path.join(work, "sqlite"))
        run_store(tokentool, info, "s.sqlite", os.path.join(work, "sqlite"), "SQLite", out, pages)
        stores.append("SQLite")
        pg = subprocess.run([os.path.join(ROOT, "scripts", "pg-throwaway.sh"), "start", "--fast"], capture_output=True, text=True)
        if pg.returncode == 0:
            env = dict(re.findall(r"export (\w+)=(\S+)", pg.stdout))
            pg_dir = env["TOKENTOOL_PG_DIR"]
            os.mkdir(os.path.join(work, "postgres"))
            run_store(tokentool, info, env["TOKENTOOL_PG_URL"], os.path.join(work, "postgres"), "PostgreSQL", out, pages)
            stores.append("PostgreSQL")
        elif os.environ.get("CI") == "1":
            sys.exit("PostgreSQL did not start: " + pg.stderr.strip())
        else:
            print("login csrf on PostgreSQL: skipped (" + pg.stderr.strip() + ")")
        print(f"login csrf: ok on {' and '.join(stores)}; screenshots in {out}")
    except Failed as e:
        sys.exit(f"FAIL {e}")
    finally:
        if pg_dir:
            subprocess.run([os.path.join(ROOT, "scripts", "pg-throwaway.sh"), "stop", pg_dir])
        standin.terminate()
        standin.wait(timeout=15)
        pages.shutdown()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
