#!/usr/bin/env python3
"""Browser test of the OpenID Provider's hosted pages (docs/oidc.md, "The authorization step").

Starts `tokentool serve` on 127.0.0.1 with a throwaway config (an app with email/password
sign-in, a first-party client and a third-party one, both redirecting to a loopback listener
served here), registers an account over the API, then in headless Chromium (Debian's chromium +
chromium-driver, driven by selenium): opens /oauth/authorize, is sent to the login page, types a
wrong password (one message for a wrong email or password), then the right one, and lands on the
client's redirect URI with code, state and iss: Chromium enforces the page's CSP form-action on
the redirect that follows the form post, so this checks the sign-in really completes in a
browser. Then a third-party client's consent page (Allow) lands there too, and the signed-in
browser gets the first-party client's code at once. Then the account turns TOTP on (over the
API, codes by PyPI pyotp): a step-up request (acr_values=urn:tokentool:acr:mfa) shows the code page
alone, and a new sign-in (prompt=login) asks the password, then the code (a recovery code here),
each landing at the client without a script on the page. A screenshot of each state lands in the
output folder.
Usage: oidc_test.py PATH/TO/tokentool [OUTPUT_DIR]
"""
import json, os, subprocess, sys, tempfile, time, urllib.parse, urllib.request

from selenium.webdriver.common.by import By

import chromium  # Tests/Browser/chromium.py, beside this file
import pyotp

APP = "oidc-browser"
PASSWORD = "browser password 1"


def main():
    tokentool = sys.argv[1]
    out = sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp(prefix="oidc-test-")
    os.makedirs(out, exist_ok=True)
    client, redirect, arrivals = chromium.redirect_listener()
    work = tempfile.mkdtemp(prefix="oidc-serve-")
    with open(os.path.join(work, "client.secret"), "w") as f:
        f.write("browser-client-secret-0123456789abcdef")
    os.chmod(os.path.join(work, "client.secret"), 0o600)  # secrets are read owner-only
    port = chromium.free_port()
    config = {"public_url": f"http://127.0.0.1:{port}", "store": "s.sqlite",
              "apps": {APP: {"providers": {"local-userpass": {"auto_confirm": True}}}},
              # Registered without a port: a loopback redirect URI matches on any port (RFC 8252 §7.3).
              "clients": {"webapp": {"app": APP, "name": "Web App", "secret_file": "client.secret", "first_party": True,
                                     "redirect_uris": ["http://127.0.0.1/cb"]},
                          "partner": {"app": APP, "name": "Partner <b>Site</b>", "secret_file": "client.secret",
                                      "redirect_uris": ["http://127.0.0.1/cb"]}}}
    with open(os.path.join(work, "config.json"), "w") as f:
        json.dump(config, f)
    server = subprocess.Popen([tokentool, "serve", "--config", os.path.join(work, "config.json"), "--listen", f"127.0.0.1:{port}"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    browser = None
    try:
        line = server.stdout.readline()
        assert line.startswith("listening on http://"), line
        base = line.split()[-1].rstrip("/")
        email = "oidc.user@example.com"
        req = urllib.request.Request(base + f"/api/client/v2.0/app/{APP}/auth/providers/local-userpass/register",
                                     data=json.dumps({"email": email, "password": PASSWORD}).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=30) as r:
            assert r.status == 201, r.status

        browser = chromium.open_browser()

        def shot(name, expect, seconds=15):
            chromium.shot(browser, out, "oidc-" + name, expect, seconds)

        def authorize(client_id, state, **extra):
            query = {"response_type": "code", "client_id": client_id, "redirect_uri": redirect, "scope": "openid email",
                     "state": state, "nonce": "n-" + state, **extra}
            browser.get(base + "/oauth/authorize?" + urllib.parse.urlencode(query))

        def arrived(state):
            got = arrivals.get(timeout=30)
            assert got.get("state") == state and got.get("code") and got.get("iss") == base and "error" not in got, got
            return got

        def sign_in(password):
            browser.find_element(By.ID, "email").clear()
            browser.find_element(By.ID, "email").send_keys(email)
            browser.find_element(By.ID, "password").send_keys(password)
            browser.find_element(By.CSS_SELECTOR, "button[type=submit]").click()

        authorize("webapp", "first", login_hint=email)
        shot("login", "to continue to Web App")
        assert browser.find_element(By.ID, "email").get_attribute("value") == email, "login_hint prefills the email"
        assert "/oauth/login?flow=" in browser.current_url
        sign_in("not the password")
        shot("login-wrong", "The email or password is wrong.")
        sign_in(PASSWORD)
        shot("client-first", "back at the client")
        arrived("first")
        print("ok the login form's post ended at the client's redirect URI with code, state and iss")

        # A third-party client: the consent page, its name escaped, then Allow.
        authorize("partner", "second")
        shot("consent", "Partner <b>Site</b>")
        browser.find_element(By.CSS_SELECTOR, "button[value=allow]").click()
        shot("client-consented", "back at the client")
        arrived("second")

        # Signed in: the first-party client's code at once, without a page.
        authorize("webapp", "third", prompt="none")
        shot("client-at-once", "back at the client")
        arrived("third")
        print("ok consent and the OP session")

        # TOTP on, over the API; then a step-up asks for the code alone, a new sign-in for both.
        def api(path, body, token=None):
            headers = {"Content-Type": "application/json", **({"Authorization": "Bearer " + token} if token else {})}
            req = urllib.request.Request(base + "/api/client/v2.0" + path, data=json.dumps(body).encode(), method="POST", headers=headers)
            with urllib.request.urlopen(req, timeout=30) as r:
                return json.loads(r.read() or b"{}")

        access = api(f"/app/{APP}/auth/providers/local-userpass/login", {"username": email, "password": PASSWORD})["access_token"]
        totp = pyotp.TOTP(api("/auth/mfa/totp", {}, access)["secret"])
        recovery = api("/auth/mfa/totp/confirm", {"code": totp.now()}, access)["recovery_codes"]

        def enter_code(code):
            field = browser.find_element(By.ID, "code")
            assert field.get_attribute("autocomplete") == "one-time-code"
            field.send_keys(code)
            browser.find_element(By.CSS_SELECTOR, "button[type=submit]").click()

        authorize("webapp", "fourth", acr_values="urn:tokentool:acr:mfa")
        shot("step-up", "authenticator app")
        assert not browser.find_elements(By.ID, "password"), "a step-up asks the code alone"
        enter_code(totp.at(time.time() + 30))  # the next step: the confirming code's step is spent
        shot("client-stepped-up", "back at the client")
        arrived("fourth")
        authorize("webapp", "fifth", prompt="login")
        shot("login-again", "to continue to Web App")
        sign_in(PASSWORD)
        shot("second-factor", "authenticator app")
        enter_code(recovery[0])
        shot("client-second-factor", "back at the client")
        arrived("fifth")
        print(f"ok the second factor: a step-up and a sign-in with a recovery code; screenshots in {out}")
    finally:
        if browser:
            browser.quit()
        server.terminate()
        server.wait(timeout=15)
        client.shutdown()


if __name__ == "__main__":
    main()
