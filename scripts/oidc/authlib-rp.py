#!/usr/bin/env python3
"""A real OpenID Connect relying party written by others: PyPI authlib's OAuth2Session with PKCE
S256, its id_token validation (CodeIDToken: signature by the issuer's JWKS, iss, aud, exp, iat,
nonce, at_hash) and a userinfo call. Nothing here is TokenTool's code; the test drives the
browser part (the login page) itself.

    authlib-rp.py start  --issuer URL --client-id ID [--client-secret-file F] --redirect-uri URI --state-file F [--scope "openid email"]
        reads ISSUER/.well-known/openid-configuration, prints the authorization URL (state,
        nonce, code_challenge S256) and keeps state, nonce and verifier in F.
    authlib-rp.py finish --state-file F --callback URL
        checks the callback's state (and iss, RFC 9207, when sent), exchanges the code
        (client_secret_basic, or none for a public client), validates the id_token, calls
        userinfo, and prints one JSON object: {"id_token": claims, "userinfo": {...},
        "token": {the token answer's member names: their values, tokens as "present"}}.
        Exit 1 with the reason on standard error when anything is refused.

scripts/oidc/authlib-rp.sh selftest runs both against oidc-provider-mock.
"""
import argparse
import contextlib
import io
import json
import os
import sys
import urllib.parse

import requests

# authlib.jose announces its successor on import (and forces that warning on): it still validates.
with contextlib.redirect_stderr(io.StringIO()):
    from authlib.common.security import generate_token
    from authlib.integrations.requests_client import OAuth2Session
    from authlib.jose import JsonWebKey, jwt
    from authlib.oidc.core import CodeIDToken


def discover(issuer):
    base = issuer[:-1] if issuer.endswith("/") else issuer
    r = requests.get(base + "/.well-known/openid-configuration", timeout=10)
    r.raise_for_status()
    meta = r.json()
    if meta.get("issuer") != issuer:
        sys.exit(f"discovery issuer {meta.get('issuer')!r} is not {issuer!r}")
    return meta


def session(args_or_state):
    s = args_or_state
    method = "client_secret_basic" if s["client_secret"] else "none"
    return OAuth2Session(
        s["client_id"], s["client_secret"], scope=s["scope"], redirect_uri=s["redirect_uri"],
        code_challenge_method="S256", token_endpoint_auth_method=method)


def start(a):
    meta = discover(a.issuer)
    secret = None
    if a.client_secret_file:  # a file, never a command line
        with open(a.client_secret_file) as f:
            secret = f.read().strip()
    st = {"issuer": a.issuer, "client_id": a.client_id, "client_secret": secret, "redirect_uri": a.redirect_uri,
          "scope": a.scope, "meta": meta, "nonce": generate_token(20), "verifier": generate_token(48)}
    url, state = session(st).create_authorization_url(
        meta["authorization_endpoint"], nonce=st["nonce"], code_verifier=st["verifier"])
    st["state"] = state
    # Owner-only: it holds the verifier (and the client's secret, for the finish step).
    with open(os.open(a.state_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
        json.dump(st, f)
    print(url)


def finish(a):
    with open(a.state_file) as f:
        st = json.load(f)
    meta = st["meta"]
    query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(a.callback).query))
    if "error" in query:
        sys.exit(f"the provider answered {query['error']}: {query.get('error_description', '')}")
    if query.get("state") != st["state"]:
        sys.exit("the callback's state is not ours")
    if "iss" in query and query["iss"] != st["issuer"]:
        sys.exit("the callback's iss is not the issuer (RFC 9207)")
    client = session(st)
    token = client.fetch_token(meta["token_endpoint"], authorization_response=a.callback, code_verifier=st["verifier"],
                               state=st["state"])
    jwks = JsonWebKey.import_key_set(requests.get(meta["jwks_uri"], timeout=10).json())
    claims = jwt.decode(token["id_token"], jwks, claims_cls=CodeIDToken,
                        claims_options={"iss": {"essential": True, "value": st["issuer"]}},
                        claims_params={"nonce": st["nonce"], "client_id": st["client_id"], "access_token": token["access_token"]})
    claims.validate(leeway=5)
    if "at_hash" not in claims:
        sys.exit("the id_token has no at_hash")
    info = client.get(meta["userinfo_endpoint"], timeout=10)
    info.raise_for_status()
    userinfo = info.json()
    if userinfo.get("sub") != claims["sub"]:
        sys.exit("userinfo's sub is not the id_token's")
    shown = {k: ("present" if k.endswith("token") else v) for k, v in token.items()}
    print(json.dumps({"id_token": dict(claims), "userinfo": userinfo, "token": shown}, sort_keys=True))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("start")
    s.add_argument("--issuer", required=True)
    s.add_argument("--client-id", required=True)
    s.add_argument("--client-secret-file", default=None)
    s.add_argument("--redirect-uri", required=True)
    s.add_argument("--scope", default="openid email profile")
    s.add_argument("--state-file", required=True)
    f = sub.add_parser("finish")
    f.add_argument("--state-file", required=True)
    f.add_argument("--callback", required=True)
    a = p.parse_args()
    start(a) if a.command == "start" else finish(a)


if __name__ == "__main__":
    main()
