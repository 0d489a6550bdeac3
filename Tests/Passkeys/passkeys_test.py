#!/usr/bin/env python3
"""Passkeys end to end with a software authenticator and a relying party nobody here wrote
(docs/mfa.md, "Passkeys").

PyPI soft-webauthn plays the browser and its authenticator (ES256, attestation `none`, user
presence without user verification), and PyPI webauthn (py_webauthn) is an independent relying
party: every ceremony the server is about to accept, py_webauthn must accept too, and the refused
ones it refuses as well where the refusal is not about the server's own state (a used challenge).
`tokentool serve` runs on 127.0.0.1 (SQLite, then a throwaway PostgreSQL when
scripts/pg-throwaway.sh can start one), twice per store: with `user_verification: "preferred"`
(registration, passkey sign-in, the refusals one by one, the passkey as a second factor,
deletion), then with `"required"` (soft-webauthn's ceremonies refused; an authenticator that does
verify the user signs in with amr hwk user mfa). HTTP through the standard library.

Usage: passkeys_test.py PATH/TO/tokentool
"""
import base64, copy, hashlib, json, os, re, shutil, socket, subprocess, sys, tempfile, traceback, urllib.error, urllib.request

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from fido2 import cbor
from soft_webauthn import SoftWebauthnDevice
import webauthn
from webauthn.helpers import parse_authentication_options_json, parse_registration_options_json
from webauthn.helpers.exceptions import InvalidAuthenticationResponse, InvalidRegistrationResponse

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
APP = "passkeys-test"
BASE = "/api/client/v2.0"
USERPASS = f"{BASE}/app/{APP}/auth/providers/local-userpass"
PASSKEY = f"{BASE}/app/{APP}/auth/providers/passkey"
EXTRA_ORIGIN = "https://app.localhost"  # passkeys.origins: accepted beside public_url's origin
ACR_PWD, ACR_MFA = "urn:tokentool:acr:pwd", "urn:tokentool:acr:mfa"
TIMEOUT = 90


class Failed(Exception):
    pass


def check(condition, expected, got):
    if not condition:
        raise Failed(f"expected {expected}; got {got}")


def b64(data):
    return base64.urlsafe_b64encode(bytes(data)).decode("ascii").rstrip("=")


def unb64(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def claims(jwt):
    return json.loads(unb64(jwt.split(".")[1]))


class Answer:
    def __init__(self, status, body, headers):
        self.status, self.body, self.headers = status, body, headers

    def __repr__(self):
        text = json.dumps(self.body) if not isinstance(self.body, str) else self.body
        return f"{self.status} {text[:300]}"


def call(server, method, path, body=None, token=None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(server + path, data=data, method=method)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", "Bearer " + token)
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as r:
            status, raw, headers = r.status, r.read(), r.headers
    except urllib.error.HTTPError as e:
        status, raw, headers = e.code, e.read(), e.headers
    try:
        payload = json.loads(raw) if raw else None
    except ValueError:
        payload = raw.decode(errors="replace")
    return Answer(status, payload, headers)


def expect(answer, status, error_code=None):
    """`answer` has `status` (and, for an error, `error_code`), else the test fails."""
    ok = answer.status == status and (error_code is None or (isinstance(answer.body, dict) and answer.body.get("error_code") == error_code))
    check(ok, f"{status}" + (f" {error_code}" if error_code else ""), answer)
    return answer.body


# The browser's half: WebAuthn JSON <-> what soft-webauthn takes and gives.

def creation_options(public_key):
    """navigator.credentials.create()'s argument, parsed from PublicKeyCredentialCreationOptionsJSON."""
    o = copy.deepcopy(public_key)
    o["challenge"] = unb64(o["challenge"])
    o["user"]["id"] = unb64(o["user"]["id"])
    # A browser reads only alg and type of each entry; soft-webauthn compares whole dicts.
    o["pubKeyCredParams"] = [{"alg": p["alg"], "type": p["type"]} for p in o["pubKeyCredParams"]]
    return {"publicKey": o}


def request_options(public_key, rp_id):
    o = copy.deepcopy(public_key)
    o["challenge"] = unb64(o["challenge"])
    o.setdefault("rpId", rp_id)  # a browser's default: the origin's effective domain
    return {"publicKey": o}


def registration_json(credential):
    """RegistrationResponseJSON (WebAuthn Level 3 toJSON()) of soft-webauthn's create()."""
    return {"id": b64(credential["rawId"]), "rawId": b64(credential["rawId"]), "type": "public-key",
            "response": {"clientDataJSON": b64(credential["response"]["clientDataJSON"]),
                         "attestationObject": b64(credential["response"]["attestationObject"]), "transports": []},
            "clientExtensionResults": {}}


def authentication_json(assertion):
    r = assertion["response"]
    return {"id": b64(assertion["rawId"]), "rawId": b64(assertion["rawId"]), "type": "public-key",
            "response": {"clientDataJSON": b64(r["clientDataJSON"]), "authenticatorData": b64(r["authenticatorData"]),
                         "signature": b64(r["signature"]), "userHandle": b64(r["userHandle"])},
            "clientExtensionResults": {}}


class VerifyingDevice(SoftWebauthnDevice):
    """soft-webauthn's authenticator that also verifies the user (a PIN or a fingerprint): UV set
    in the authenticator data of both ceremonies, the assertion signed again over it."""

    def create(self, options, origin):
        credential = super().create(options, origin)
        attestation = cbor.decode(credential["response"]["attestationObject"])
        data = bytearray(attestation["authData"])
        data[32] |= 0x04
        attestation["authData"] = bytes(data)
        credential["response"]["attestationObject"] = cbor.encode(attestation)
        return credential

    def get(self, options, origin):
        assertion = super().get(options, origin)
        r = assertion["response"]
        data = bytearray(r["authenticatorData"])
        data[32] |= 0x04
        r["authenticatorData"] = bytes(data)
        r["signature"] = self.private_key.sign(bytes(data) + hashlib.sha256(r["clientDataJSON"]).digest(), ec.ECDSA(hashes.SHA256()))
        return assertion


class Run:
    """One `tokentool serve` on `store` with `user_verification`, and the checks' shared state."""

    def __init__(self, tokentool, store, work, label, user_verification):
        self.label, self.uv = label, user_verification
        port = free_port()
        self.origin = f"http://localhost:{port}"
        self.rp_id = "localhost"  # public_url's host: the default
        self.server = f"http://127.0.0.1:{port}"
        config = {"public_url": self.origin, "store": store, "master_key_file": "master.key",
                  "passkeys": {"origins": [EXTRA_ORIGIN], "user_verification": user_verification},
                  "apps": {APP: {"providers": {"local-userpass": {"auto_confirm": True, "min_password_length": 8}, "passkey": {}}}}}
        path = os.path.join(work, f"config-{user_verification}.json")
        with open(path, "w") as f:
            json.dump(config, f)
        self.log_path = os.path.join(work, f"serve-{user_verification}.log")
        self.log = open(self.log_path, "w")
        self.process = subprocess.Popen([tokentool, "serve", "--config", path, "--listen", f"127.0.0.1:{port}"],
                                        stdout=subprocess.PIPE, stderr=self.log, text=True)
        line = self.process.stdout.readline()
        if not line.startswith("listening on http://"):
            self.stop()
            with open(self.log_path) as f:
                raise Failed(f"tokentool serve to start; got {line!r} and on stderr:\n{f.read()[-2000:]}")

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()

    def say(self, text):
        print(f"passkeys ({self.label}, user_verification {self.uv}): {text}", flush=True)

    def call(self, method, path, body=None, token=None):
        return call(self.server, method, path, body, token)

    # Accounts and sessions.

    def register_user(self, email, password):
        expect(self.call("POST", USERPASS + "/register", {"email": email, "password": password}), 201)

    def password_login(self, email, password):
        return self.call("POST", USERPASS + "/login", {"username": email, "password": password})

    def login(self, email, password):
        body = expect(self.password_login(email, password), 200)
        check(claims(body["access_token"]).get("amr") == ["pwd"], "amr [pwd] after a password alone", claims(body["access_token"]))
        return body

    def passkeys(self, token):
        return expect(self.call("GET", BASE + "/auth/passkeys", token=token), 200)

    # Registration.

    def registration_options(self, token, user_id, exclude=()):
        public_key = expect(self.call("POST", BASE + "/auth/passkeys/registration/options", {}, token), 200)["publicKey"]
        parse_registration_options_json(public_key)  # py_webauthn reads it as WebAuthn JSON
        check(public_key["rp"].get("id") == self.rp_id, f"rp.id {self.rp_id}", public_key["rp"])
        check(unb64(public_key["user"]["id"]) == user_id.encode(), f"user.id base64url of {user_id!r}", public_key["user"])
        check(len(unb64(public_key["challenge"])) >= 16, "a challenge of at least 16 bytes", public_key["challenge"])
        algs = sorted(p["alg"] for p in public_key["pubKeyCredParams"])
        check(algs == [-257, -8, -7] and all(p["type"] == "public-key" for p in public_key["pubKeyCredParams"]),
              "pubKeyCredParams ES256, EdDSA, RS256", public_key["pubKeyCredParams"])
        check(public_key.get("attestation", "none") == "none", "attestation none", public_key.get("attestation"))
        selection = public_key.get("authenticatorSelection", {})
        check(selection.get("residentKey") == "preferred", "authenticatorSelection.residentKey preferred", selection)
        check(selection.get("userVerification") == self.uv, f"authenticatorSelection.userVerification {self.uv}", selection)
        excluded = sorted(c["id"] for c in public_key.get("excludeCredentials", []))
        check(excluded == sorted(exclude), f"excludeCredentials {sorted(exclude)}", excluded)
        return public_key

    def create(self, device, public_key, origin=None):
        """The browser's create(), then py_webauthn's verdict on it: (RegistrationResponseJSON, its result or the refusal)."""
        origin = origin or self.origin
        credential = registration_json(device.create(creation_options(public_key), origin))
        try:
            verdict = webauthn.verify_registration_response(
                credential=credential, expected_challenge=unb64(public_key["challenge"]), expected_rp_id=self.rp_id,
                expected_origin=[self.origin, EXTRA_ORIGIN], require_user_verification=self.uv == "required")
        except InvalidRegistrationResponse as e:
            verdict = e
        return credential, verdict

    def register_passkey(self, token, user_id, device, name, exclude=()):
        public_key = self.registration_options(token, user_id, exclude)
        credential, verdict = self.create(device, public_key)
        check(not isinstance(verdict, Exception), "py_webauthn accepts the registration", verdict)
        body = {"credential": credential, "name": name}
        created = expect(self.call("POST", BASE + "/auth/passkeys/registration", body, token), 201)
        check(set(created) >= {"id", "name", "created_at"} and created["name"] == name, f"{{id, name {name!r}, created_at}}", created)
        device.public_key, device.server_count = verdict.credential_public_key, verdict.sign_count
        return created, body

    # Assertions.

    def get(self, device, public_key, origin=None, user_verified=False, allowed=True):
        """The browser's get(), then py_webauthn's verdict on it against the device's stored key and counter."""
        origin = origin or self.origin
        if allowed and public_key.get("allowCredentials"):
            ids = [c["id"] for c in public_key["allowCredentials"]]
            check(b64(device.credential_id) in ids, f"the device's credential among allowCredentials", ids)
        assertion = authentication_json(device.get(request_options(public_key, self.rp_id), origin))
        try:
            verdict = webauthn.verify_authentication_response(
                credential=assertion, expected_challenge=unb64(public_key["challenge"]), expected_rp_id=self.rp_id,
                expected_origin=[self.origin, EXTRA_ORIGIN], credential_public_key=device.public_key,
                credential_current_sign_count=device.server_count, require_user_verification=self.uv == "required")
        except InvalidAuthenticationResponse as e:
            verdict = e
        return assertion, verdict

    def login_options(self):
        body = expect(self.call("POST", PASSKEY + "/login/options", {}), 200)
        public_key = body["publicKey"]
        parse_authentication_options_json(public_key)
        check(not public_key.get("allowCredentials"), "empty allowCredentials (discoverable credentials)", public_key.get("allowCredentials"))
        self.check_request_options(public_key)
        check(isinstance(body.get("challenge_id"), str) and body["challenge_id"], "a challenge_id", body)
        return public_key, body["challenge_id"]

    def check_request_options(self, public_key):
        check(public_key.get("rpId", self.rp_id) == self.rp_id, f"rpId {self.rp_id}", public_key.get("rpId"))
        check(public_key.get("userVerification") == self.uv, f"userVerification {self.uv}", public_key.get("userVerification"))
        check(len(unb64(public_key["challenge"])) >= 16, "a challenge of at least 16 bytes", public_key["challenge"])

    def passkey_login(self, device, **get_args):
        """A whole passkey sign-in that must succeed: options, get(), py_webauthn's yes, the login."""
        public_key, challenge_id = self.login_options()
        assertion, verdict = self.get(device, public_key, **get_args)
        check(not isinstance(verdict, Exception), "py_webauthn accepts the assertion", verdict)
        body = expect(self.call("POST", PASSKEY + "/login", {"challenge_id": challenge_id, "credential": assertion}), 200)
        check(all(isinstance(body.get(k), str) and body[k] for k in ("access_token", "refresh_token", "user_id", "device_id")),
              "a login's access_token, refresh_token, user_id, device_id", body)
        device.server_count = verdict.new_sign_count
        return body, {"challenge_id": challenge_id, "credential": assertion}, (public_key, challenge_id)

    def refused_login(self, what, body, token, listed, py_webauthn_refuses=None):
        """`body` at the passkey login: 401 AuthError, the passkeys as they were, the server still serving."""
        if py_webauthn_refuses is not None:
            check(isinstance(py_webauthn_refuses, Exception), f"py_webauthn refuses {what} too", py_webauthn_refuses)
        expect(self.call("POST", PASSKEY + "/login", body), 401, "AuthError")
        check(self.passkeys(token) == listed, "the passkeys unchanged by a refused sign-in", self.passkeys(token))
        self.say(f"refused: {what} (401 AuthError, nothing stored)")

    def mfa_required(self, email, password):
        r = self.password_login(email, password)
        body = expect(r, 401, "MFARequired")
        check(isinstance(body.get("mfa_token"), str) and body["mfa_token"], "an mfa_token", body)
        check(r.headers.get("Cache-Control") == "no-store", "Cache-Control no-store", r.headers.get("Cache-Control"))
        return body["mfa_token"]

    def mfa_options(self, mfa_token, allowed_ids):
        public_key = expect(self.call("POST", USERPASS + "/mfa/passkey/options", {"mfa_token": mfa_token}), 200)["publicKey"]
        parse_authentication_options_json(public_key)
        self.check_request_options(public_key)
        listed = sorted(c["id"] for c in public_key.get("allowCredentials", []))
        check(listed == sorted(allowed_ids), f"allowCredentials {sorted(allowed_ids)} (the user's passkeys)", listed)
        return public_key


def check_amr(login, amr, user_id=None):
    c = claims(login["access_token"])
    acr = ACR_MFA if "mfa" in amr else ACR_PWD
    check(c.get("amr") == amr and c.get("acr") == acr, f"amr {amr} and acr {acr}", {"amr": c.get("amr"), "acr": c.get("acr")})
    if user_id is not None:
        check(login["user_id"] == user_id and c.get("sub") == user_id, f"the user {user_id}", {"user_id": login["user_id"], "sub": c.get("sub")})


def preferred_run(run):
    """Everything that works without user verification, and the refusals."""
    alice, bob = ("alice@example.com", "alice's password 1"), ("bob@example.com", "bob's password 2")
    run.register_user(*alice)
    run.register_user(*bob)
    a = run.login(*alice)
    b = run.login(*bob)
    run.say("two email/password users signed in (amr [pwd])")

    # 2. Registration, checked by py_webauthn before the server sees it.
    device_a, device_b = SoftWebauthnDevice(), SoftWebauthnDevice()
    created, registration = run.register_passkey(a["access_token"], a["user_id"], device_a, "alice's laptop")
    listed = run.passkeys(a["access_token"])
    check(len(listed) == 1 and listed[0]["id"] == created["id"] and listed[0]["name"] == "alice's laptop"
          and listed[0]["created_at"] == created["created_at"] and listed[0].get("last_used_at") is None,
          "one passkey, as created, never used", listed)
    mfa = expect(run.call("GET", BASE + "/auth/mfa", token=a["access_token"]), 200)
    check(mfa.get("passkeys") == 1 and mfa.get("totp") is False, "GET /auth/mfa: totp false, passkeys 1", mfa)
    run.registration_options(a["access_token"], a["user_id"], exclude=[b64(device_a.credential_id)])
    run.say("registration: py_webauthn accepts soft-webauthn's ceremony, the server answers 201; listed; /auth/mfa passkeys 1; "
            "the next options exclude it")
    run.register_passkey(b["access_token"], b["user_id"], device_b, "bob's key")

    # 3. Passkey sign-in without user verification: amr hwk, one factor.
    login, replay, _ = run.passkey_login(device_a)
    check_amr(login, ["hwk"], a["user_id"])
    listed = run.passkeys(a["access_token"])
    check(listed[0].get("last_used_at") is not None, "last_used_at set by the sign-in", listed)
    refreshed = expect(run.call("POST", BASE + "/auth/session", token=login["refresh_token"]), 201)
    check_amr(refreshed, ["hwk"])
    run.say("passkey sign-in: 200, amr [hwk], acr pwd (also after a refresh); last_used_at set")

    # 4. Refusals. Five failed assertions in a row lock the user: a success after every two.
    token = a["access_token"]
    run.refused_login("the same assertion replayed", replay, token, listed)
    public_key, _ = run.login_options()
    _, other_id = run.login_options()
    assertion, verdict = run.get(device_a, public_key)
    check(not isinstance(verdict, Exception), "py_webauthn accepts the assertion over its own challenge", verdict)
    run.refused_login("an assertion sent with another challenge_id", {"challenge_id": other_id, "credential": assertion}, token, listed)
    _, _, (used_public_key, used_id) = run.passkey_login(device_a)
    listed = run.passkeys(token)
    assertion, verdict = run.get(device_a, used_public_key)
    run.refused_login("a fresh assertion over a challenge already used", {"challenge_id": used_id, "credential": assertion}, token, listed)
    public_key, challenge_id = run.login_options()
    assertion, verdict = run.get(device_a, public_key, origin="https://evil.example")
    run.refused_login("an assertion from another origin", {"challenge_id": challenge_id, "credential": assertion}, token, listed, verdict)
    run.passkey_login(device_a, origin=EXTRA_ORIGIN)
    listed = run.passkeys(token)
    run.say(f"passkey sign-in from passkeys.origins ({EXTRA_ORIGIN}): 200")

    public_key, challenge_id = run.login_options()
    assertion, _ = run.get(device_a, public_key)
    signature = bytearray(unb64(assertion["response"]["signature"]))
    signature[-1] ^= 0x01
    assertion["response"]["signature"] = b64(signature)
    verdict = py_verdict(run, device_a, assertion, public_key)
    run.refused_login("a tampered signature", {"challenge_id": challenge_id, "credential": assertion}, token, listed, verdict)
    public_key, challenge_id = run.login_options()
    now = device_a.sign_count
    device_a.sign_count = device_a.server_count - 2  # a copy of the key made two sign-ins ago
    assertion, verdict = run.get(device_a, public_key)
    device_a.sign_count = now
    run.refused_login("a cloned authenticator (its counter did not grow)", {"challenge_id": challenge_id, "credential": assertion}, token,
                      listed, verdict)
    run.passkey_login(device_a)
    listed = run.passkeys(token)
    public_key, challenge_id = run.login_options()
    assertion, verdict = run.get(device_a, public_key)
    check(not isinstance(verdict, Exception), "py_webauthn accepts it (the signature does not cover userHandle)", verdict)
    assertion["response"]["userHandle"] = b64(b["user_id"].encode())
    run.refused_login("an assertion whose userHandle names another user", {"challenge_id": challenge_id, "credential": assertion}, token, listed)
    run.passkey_login(device_a)
    listed = run.passkeys(token)

    public_key = run.registration_options(token, a["user_id"], exclude=[b64(device_a.credential_id)])
    spare = SoftWebauthnDevice()
    credential, _ = run.create(spare, public_key)
    credential["response"]["attestationObject"] = b64(b"\xa3\x63fmt\x64none\x67attStmt\xbf\x61")  # cut short in a map
    expect(run.call("POST", BASE + "/auth/passkeys/registration", {"credential": credential, "name": "garbage"}, token), 400, "BadRequest")
    check(run.passkeys(token) == listed, "the passkeys unchanged", run.passkeys(token))
    run.say("refused: garbage CBOR as attestationObject (400 BadRequest, nothing stored)")
    expect(run.call("POST", BASE + "/auth/passkeys/registration", registration, token), 400, "InvalidParameter")
    check(run.passkeys(token) == listed, "the passkeys unchanged", run.passkeys(token))
    run.say("refused: the registration response replayed (400 InvalidParameter, nothing stored)")

    # Alice's passkey as Bob's second factor; then Bob's own on the same mfa_token.
    mfa_token = run.mfa_required(*bob)
    public_key = run.mfa_options(mfa_token, [b64(device_b.credential_id)])
    assertion, _ = run.get(device_a, public_key, allowed=False)
    expect(run.call("POST", USERPASS + "/mfa", {"mfa_token": mfa_token, "passkey": assertion}), 401, "AuthError")
    check(run.passkeys(token) == listed, "alice's passkeys unchanged", run.passkeys(token))
    run.say("refused: another user's passkey as the second factor (401 AuthError, nothing stored)")
    public_key = run.mfa_options(mfa_token, [b64(device_b.credential_id)])
    assertion, verdict = run.get(device_b, public_key)
    check(not isinstance(verdict, Exception), "py_webauthn accepts bob's assertion", verdict)
    login = expect(run.call("POST", USERPASS + "/mfa", {"mfa_token": mfa_token, "passkey": assertion}), 200)
    device_b.server_count = verdict.new_sign_count
    check_amr(login, ["pwd", "hwk", "mfa"], b["user_id"])
    run.say("the same mfa_token then takes bob's own passkey: 200, amr [pwd, hwk, mfa]")

    # 5. The passkey as a second factor after the password.
    mfa_token = run.mfa_required(*alice)
    public_key = run.mfa_options(mfa_token, [b64(device_a.credential_id)])
    assertion, verdict = run.get(device_a, public_key, origin=EXTRA_ORIGIN)
    check(not isinstance(verdict, Exception), "py_webauthn accepts the assertion", verdict)
    login = expect(run.call("POST", USERPASS + "/mfa", {"mfa_token": mfa_token, "passkey": assertion}), 200)
    device_a.server_count = verdict.new_sign_count
    check_amr(login, ["pwd", "hwk", "mfa"], a["user_id"])
    expect(run.call("POST", USERPASS + "/mfa", {"mfa_token": mfa_token, "passkey": assertion}), 401, "AuthError")
    run.say("second factor: password -> 401 MFARequired -> mfa/passkey/options -> /mfa 200, amr [pwd, hwk, mfa], acr mfa; "
            "the mfa_token then dead (401)")

    # 7. Deletion.
    token = login["access_token"]
    passkey_id = run.passkeys(token)[0]["id"]
    expect(run.call("DELETE", f"{BASE}/auth/passkeys/{passkey_id}", token=token), 204)
    check(run.passkeys(token) == [], "no passkey listed", run.passkeys(token))
    mfa = expect(run.call("GET", BASE + "/auth/mfa", token=token), 200)
    check(mfa.get("passkeys") == 0, "GET /auth/mfa: passkeys 0", mfa)
    run.login(*alice)
    public_key, challenge_id = run.login_options()
    assertion, _ = run.get(device_a, public_key)
    expect(run.call("POST", PASSKEY + "/login", {"challenge_id": challenge_id, "credential": assertion}), 401, "AuthError")
    run.say("deleted: 204; none listed; /auth/mfa passkeys 0; the password alone signs in again; the deleted passkey's sign-in 401")
    return alice, device_b


def py_verdict(run, device, assertion, public_key):
    try:
        return webauthn.verify_authentication_response(
            credential=assertion, expected_challenge=unb64(public_key["challenge"]), expected_rp_id=run.rp_id,
            expected_origin=[run.origin, EXTRA_ORIGIN], credential_public_key=device.public_key,
            credential_current_sign_count=device.server_count)
    except InvalidAuthenticationResponse as e:
        return e


def required_run(run, alice, device_b):
    """user_verification required: soft-webauthn's ceremonies refused, a verifying authenticator's accepted."""
    a = run.login(*alice)
    token = a["access_token"]
    public_key = run.registration_options(token, a["user_id"])
    credential, verdict = run.create(SoftWebauthnDevice(), public_key)
    check(isinstance(verdict, Exception), "py_webauthn refuses a registration without UV too", verdict)
    expect(run.call("POST", BASE + "/auth/passkeys/registration", {"credential": credential, "name": "no uv"}, token), 400, "InvalidParameter")
    check(run.passkeys(token) == [], "no passkey stored", run.passkeys(token))
    run.say("refused: soft-webauthn's registration without user verification (400 InvalidParameter, nothing stored)")

    public_key, challenge_id = run.login_options()
    assertion, verdict = run.get(device_b, public_key)
    check(isinstance(verdict, Exception), "py_webauthn refuses an assertion without UV too", verdict)
    expect(run.call("POST", PASSKEY + "/login", {"challenge_id": challenge_id, "credential": assertion}), 401, "AuthError")
    run.say("refused: bob's passkey (registered without UV) signing in without user verification (401 AuthError)")

    device = VerifyingDevice()
    run.register_passkey(token, a["user_id"], device, "alice's phone")
    login, _, _ = run.passkey_login(device)
    check_amr(login, ["hwk", "user", "mfa"], a["user_id"])
    run.say("an authenticator that verifies the user: registered 201, signs in with amr [hwk, user, mfa], acr mfa")


def run_store(tokentool, store, work, label):
    with open(os.open(os.path.join(work, "master.key"), os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
        f.write(os.urandom(32).hex())
    run = Run(tokentool, store, work, label, "preferred")
    try:
        alice, device_b = preferred_run(run)
    except Exception:
        show_log(run)
        raise
    finally:
        run.stop()
    run = Run(tokentool, store, work, label, "required")
    try:
        required_run(run, alice, device_b)
    except Exception:
        show_log(run)
        raise
    finally:
        run.stop()
    print(f"passkeys with soft-webauthn and py_webauthn ({label}): ok", flush=True)


def show_log(run):
    with open(run.log_path) as f:
        tail = f.readlines()[-30:]
    print(f"the server's log ({run.label}, user_verification {run.uv}), its end:", file=sys.stderr)
    sys.stderr.writelines(tail)


def failure(e):
    """The failed check's line in this file, beside what was expected and what came."""
    frames = [f for f in traceback.extract_tb(e.__traceback__) if os.path.basename(f.filename) == os.path.basename(__file__)
              and f.name not in ("check", "expect")]
    steps = [f for f in frames if f.name in ("preferred_run", "required_run")]
    shown = ([steps[-1]] if steps and steps[-1] is not frames[-1] else []) + frames[-1:]
    return f"FAIL {e}" + "".join(f"\n  at line {f.lineno}: {f.line}" for f in shown)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    tokentool = os.path.abspath(sys.argv[1])
    work = tempfile.mkdtemp(prefix="passkeys-")
    pg_dir = None
    try:
        os.mkdir(os.path.join(work, "sqlite"))
        run_store(tokentool, os.path.join(work, "sqlite", "sessions.sqlite"), os.path.join(work, "sqlite"), "SQLite")
        started = subprocess.run([os.path.join(ROOT, "scripts", "pg-throwaway.sh"), "start", "--fast"], capture_output=True, text=True)
        if started.returncode == 0:
            env = dict(re.findall(r"export (\w+)=(\S+)", started.stdout))
            pg_dir = env["TOKENTOOL_PG_DIR"]
            os.mkdir(os.path.join(work, "postgres"))
            run_store(tokentool, env["TOKENTOOL_PG_URL"], os.path.join(work, "postgres"), "PostgreSQL")
        elif os.environ.get("CI") == "1":
            sys.exit("PostgreSQL did not start: " + started.stderr.strip())
        else:
            print("passkeys on PostgreSQL: skipped (" + started.stderr.strip() + ")")
    except Failed as e:
        sys.exit(failure(e))
    finally:
        if pg_dir:
            subprocess.run([os.path.join(ROOT, "scripts", "pg-throwaway.sh"), "stop", pg_dir])
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
