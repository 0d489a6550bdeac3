#!/usr/bin/env python3
"""Browser test of the hosted confirm and reset pages (docs/accounts.md, "The pages").

Starts `tokentool serve` on 127.0.0.1 port 0 with a throwaway config whose mail goes to a
webhook served here, registers an account over the API, opens the mailed links in headless
Chromium (Debian's chromium + chromium-driver, driven by selenium), fills the reset form,
checks each state's text, keeps a screenshot of each state, and signs in with the new password
over the API. A second app with one-second confirm and five-second reset lifetimes
(`confirm_token_ttl`, `reset_token_ttl`) shows the expired states of both links.
Usage: pages_test.py PATH/TO/tokentool [OUTPUT_DIR]
"""
import hashlib, hmac, json, os, queue, re, subprocess, sys, tempfile, threading, time, urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from selenium.webdriver.common.by import By

import chromium  # Tests/Browser/chromium.py, beside this file

APP = "pages-test"
EXPIRY_APP = "pages-expiry"
SECRET = b"browser-test-mail-secret"
mails = queue.Queue()


class MailHook(BaseHTTPRequestHandler):
    """The delivery webhook: checks the signature, keeps the mail."""

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        sig = dict(p.split("=", 1) for p in self.headers.get("X-TokenTool-Signature", "").split(","))
        expected = hmac.new(SECRET, sig.get("t", "").encode() + b".mail." + body, hashlib.sha256).hexdigest()
        ok = sig.get("p") == "mail" and hmac.compare_digest(expected, sig.get("v1", ""))
        self.send_response(204 if ok else 401)
        self.end_headers()
        if ok:
            mails.put(json.loads(body))

    def log_message(self, *args):
        pass


def api(base, path, body):
    req = urllib.request.Request(base + path, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def next_mail(kind, app=APP):
    while True:
        mail = mails.get(timeout=30)
        if mail["type"] == kind and mail["app"] == app:
            return mail


def main():
    tokentool = sys.argv[1]
    out = sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp(prefix="pages-test-")
    os.makedirs(out, exist_ok=True)
    hook = ThreadingHTTPServer(("127.0.0.1", 0), MailHook)
    threading.Thread(target=hook.serve_forever, daemon=True).start()
    work = tempfile.mkdtemp(prefix="pages-serve-")
    with open(os.path.join(work, "mail.secret"), "wb") as f:
        f.write(SECRET)
    os.chmod(os.path.join(work, "mail.secret"), 0o600)  # secrets are read owner-only
    # public_url is fixed up once the server says its port; the pages' links use it.
    delivery = {"webhook": f"http://127.0.0.1:{hook.server_port}/mail", "secret_file": "mail.secret"}
    config = {"public_url": "http://127.0.0.1:1", "store": "s.sqlite",
              "apps": {APP: {"providers": {"local-userpass": {
                           "auto_confirm": False, "min_password_length": 8, "delivery": delivery}}},
                       EXPIRY_APP: {"providers": {"local-userpass": {
                           "min_password_length": 8, "confirm_token_ttl": "1s", "reset_token_ttl": "5s", "delivery": delivery}}}}}
    port = chromium.free_port()
    config["public_url"] = f"http://127.0.0.1:{port}"
    with open(os.path.join(work, "config.json"), "w") as f:
        json.dump(config, f)
    server = subprocess.Popen([tokentool, "serve", "--config", os.path.join(work, "config.json"), "--listen", f"127.0.0.1:{port}"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    browser = None
    try:
        line = server.stdout.readline()
        assert line.startswith("listening on http://"), line
        base = line.split()[-1].rstrip("/")
        prefix = f"/api/client/v2.0/app/{APP}/auth/providers/local-userpass"
        email, first, second = "Browser.User@example.com", "first password 1", "new pässword 2"
        status, _ = api(base, prefix + "/register", {"email": email, "password": first})
        assert status == 201, status

        browser = chromium.open_browser()

        def shot(name, expect, seconds=15):
            chromium.shot(browser, out, name, expect, seconds)

        confirm = next_mail("confirm")
        browser.get(confirm["url"])
        shot("confirm-done", "Your email address is confirmed")
        browser.get(confirm["url"])
        shot("confirm-used", "This link was already used.")
        browser.get(f"{base}/app/{APP}/confirm?token=nonsense&tokenId=nonsense")
        shot("confirm-invalid", "This link is not valid.")

        status, _ = api(base, prefix + "/reset/send", {"email": email.lower()})
        assert status == 204, status
        reset = next_mail("reset")
        browser.get(reset["url"])
        shot("reset-form", "Choose a new password")
        fill(browser, "short", "short")
        shot("reset-too-short", "The password is too short")
        fill(browser, second, second + "x")
        shot("reset-mismatch", "The two passwords are not the same.")
        fill(browser, second, second)
        shot("reset-done", "Your password was changed")
        browser.get(reset["url"])
        shot("reset-used", "This link was already used.")
        assert not browser.find_elements(By.ID, "password"), "a used link shows no form"
        notice = next_mail("notice")
        assert notice["reason"] == "reset" and "token" not in notice

        status, body = api(base, prefix + "/login", {"username": email, "password": second})
        assert status == 200 and "refresh_token" in json.loads(body), (status, body)
        status, _ = api(base, prefix + "/login", {"username": email, "password": first})
        assert status == 401, status
        print("ok login with the new password")

        # Expired links (the second app's lifetimes): a confirm link opened after it expired; a
        # reset form opened in time but sent late; the same reset link opened again.
        expiry = f"/api/client/v2.0/app/{EXPIRY_APP}/auth/providers/local-userpass"
        late = "Late.User@example.com"
        status, _ = api(base, expiry + "/register", {"email": late, "password": first})
        assert status == 201, status
        confirm = next_mail("confirm", EXPIRY_APP)
        time.sleep(2.1)
        browser.get(confirm["url"])
        shot("confirm-expired", "This link has expired.")
        sent = time.monotonic()
        status, _ = api(base, expiry + "/reset/send", {"email": late})
        assert status == 204, status
        reset = next_mail("reset", EXPIRY_APP)
        browser.get(reset["url"])
        shot("reset-form-in-time", "Choose a new password")
        time.sleep(max(0.0, sent + 6.1 - time.monotonic()))
        fill(browser, second, second)
        shot("reset-expired", "This link has expired.")
        browser.get(reset["url"])
        shot("reset-expired-open", "This link has expired.")
        assert not browser.find_elements(By.ID, "password"), "an expired link shows no form"
        status, _ = api(base, expiry + "/login", {"username": late, "password": second})
        assert status == 401, status
        print(f"ok expired links; screenshots in {out}")
    finally:
        if browser:
            browser.quit()
        server.terminate()
        server.wait(timeout=15)
        hook.shutdown()


def fill(browser, password, repeated):
    browser.find_element(By.ID, "password").send_keys(password)
    browser.find_element(By.ID, "confirm").send_keys(repeated)
    browser.find_element(By.CSS_SELECTOR, "button[type=submit]").click()


if __name__ == "__main__":
    main()
