#!/usr/bin/env python3
"""A real upstream OpenID provider for the web sign-in tests: PyPI's oidc-provider-mock (an
authlib-based provider), on 127.0.0.1 and a port the system picks, standing in for Google.

    upstream-mock.py ISSUER_FILE [--user-claims JSON]... [--issuer URL]

writes the issuer (http://127.0.0.1:PORT) to ISSUER_FILE once it listens, and serves until
SIGTERM or SIGINT. Its login form asks for a subject: POST `sub=…` to the authorization URL
(any client id and redirect URI are accepted; it signs RS256 and publishes its JWKS).
scripts/oidc/upstream-mock.sh starts and stops it.

With --issuer, the id_tokens its token endpoint signs name that issuer (the mock names whatever
host it was asked at): to play Google, whose tokens a relying party accepts only from
https://accounts.google.com, the token requests are answered as if made at that origin.
"""
import argparse
import json
import os
import signal
import sys
import warnings

warnings.filterwarnings("ignore")  # authlib's deprecation notices of the modules the mock imports

import werkzeug.serving  # noqa: E402
from oidc_provider_mock import User, app  # noqa: E402


def as_issuer(wsgi_app, issuer):
    """Answers token requests as if made at ISSUER's origin: the mock signs its host URL as iss."""
    scheme, _, host = issuer.partition("://")

    def wrapped(environ, start_response):
        if environ.get("PATH_INFO") == "/oauth2/token":
            environ = dict(environ, HTTP_HOST=host.rstrip("/"))
            environ["wsgi.url_scheme"] = scheme
        return wsgi_app(environ, start_response)

    return wrapped


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("issuer_file")
    p.add_argument("--user-claims", action="append", default=[], help='a user as JSON: {"sub": "…", "email": "…"}')
    p.add_argument("--issuer", help="the iss of the id_tokens (https://accounts.google.com to play Google)")
    a = p.parse_args()
    users = []
    for text in a.user_claims:
        claims = json.loads(text)
        users.append(User(sub=claims.pop("sub"), claims=claims))
    provider = app(user_claims=users, require_nonce=True)
    if a.issuer:
        provider.wsgi_app = as_issuer(provider.wsgi_app, a.issuer)
    server = werkzeug.serving.make_server("127.0.0.1", 0, provider, threaded=True)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    tmp = a.issuer_file + ".tmp"
    with open(tmp, "w") as f:
        f.write(f"http://127.0.0.1:{server.server_port}\n")
    os.replace(tmp, a.issuer_file)
    try:
        server.serve_forever(0.1)
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
