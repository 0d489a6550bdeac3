#!/usr/bin/env python3
"""Writes the seeds of the `provider` fuzz target in TestVectors/fuzz/provider/.

The byte layout is the one Tests/Fuzz/FuzzProvider.swift documents: one scenario byte, then
responses separated by "\\n--next--\\n", each a status byte, a header byte and the body. The
id_tokens are signed with joserfc (independent of TokenTool) by the fixed RSA fuzz key
(TestVectors/fuzz/keys/rsa.pem, kid "rsa") and valid at the fuzz clock (NOW).
Run from the repository root: python3 TestVectors/fuzz/make_provider_seeds.py
"""
import json, pathlib
from joserfc import jwt
from joserfc.jwk import ECKey, RSAKey

root = pathlib.Path("TestVectors/fuzz")
out = root / "provider"
NOW = 1_790_000_000
SEP = b"\n--next--\n"

JWKS, GOOGLE, APPLE, FACEBOOK, REVOKE = range(5)
STATUS = {200: 0, 304: 8, 400: 9, 401: 10, 403: 11, 404: 12, 429: 13, 500: 14, "throw": 15}
CACHE = {None: 0, "max-age=300": 1, "long": 2, "no-store": 3, "max-age=0": 4, "negative": 5, "quoted": 6, "huge": 7}
ETAG = {None: 0, '"v1"': 1, 'W/"v2"': 2, '""': 3}
AGE = {None: 0, "30": 1, "100000": 2, "-5": 3}

rsa = RSAKey.import_key((root / "keys/rsa.pem").read_bytes(), {"kid": "rsa"})
p256 = ECKey.import_key((root / "keys/p256.pem").read_bytes(), {"kid": "p256"})


def scenario(s, options=0):
    return bytes([s + 5 * options])


def response(body, status=200, cache=None, etag=None, age=None, html=False):
    header = CACHE[cache] | ETAG[etag] << 3 | AGE[age] << 5 | (0x80 if html else 0)
    if not isinstance(body, bytes):
        body = body.encode() if isinstance(body, str) else json.dumps(body, separators=(",", ":")).encode()
    return bytes([0x30 | STATUS[status], header]) + body


def write(name, first, *responses):
    out.mkdir(parents=True, exist_ok=True)
    (out / name).write_bytes(first + SEP.join(responses))


def id_token(claims):
    return jwt.encode({"alg": "RS256", "kid": "rsa", "typ": "JWT"}, claims, rsa, algorithms=["RS256"])


google_claims = {"iss": "https://accounts.google.com", "azp": "fuzz-client.apps.googleusercontent.com",
                 "aud": "fuzz-client.apps.googleusercontent.com", "sub": "110000000000000000001", "email": "fuzz@example.com",
                 "email_verified": True, "hd": "example.com", "at_hash": "HK6E_P6Dh8Y93mRNtsDB1Q", "name": "Fuzz User",
                 "given_name": "Fuzz", "family_name": "User", "picture": "https://lh3.googleusercontent.com/a/fuzz",
                 "locale": "en", "iat": NOW - 60, "exp": NOW + 3540}
apple_claims = {"iss": "https://appleid.apple.com", "aud": "com.example.fuzz", "sub": "001234.fuzz.0042",
                "email": "fuzz@privaterelay.appleid.com", "email_verified": "true", "is_private_email": "true",
                "real_user_status": 2, "auth_time": NOW - 60, "nonce_supported": True,
                "nonce": "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", "iat": NOW - 60, "exp": NOW + 3540}

public_rsa = dict(rsa.as_dict(private=False), alg="RS256", use="sig")
public_ec = dict(p256.as_dict(private=False), alg="ES256", use="sig")

# Scenario 0: JWKS documents (Google's shape: two RSA keys; Apple's; revalidation; failures).
write("jwks-google.bin", scenario(JWKS, 2),
      response({"keys": [public_rsa, dict(public_rsa, kid="rsa-next")]}, cache="long", etag='"v1"', age="30"),
      response(b"", status=304, cache="max-age=300", etag='"v1"'))
write("jwks-mixed.bin", scenario(JWKS), response({"keys": [public_ec, public_rsa, {"kty": "OKP", "crv": "X25519", "x": "AAAA"}]}, cache="max-age=300"))
write("jwks-refetch.bin", scenario(JWKS, 2),
      response({"keys": [dict(public_rsa, kid="old")]}, cache="max-age=0", etag='W/"v2"'),
      response({"keys": [public_rsa]}, cache="quoted", etag='""', age="100000"),
      response({"keys": [public_rsa]}, cache="no-store"))
write("jwks-outage.bin", scenario(JWKS, 2), response({"keys": [public_rsa]}, cache="max-age=300"),
      response({"error": "unavailable"}, status=500), response(b"", status="throw"))
write("jwks-oct.bin", scenario(JWKS), response({"keys": [{"kty": "oct", "k": "c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0MTI", "kid": "$SECRET"}]}))
write("jwks-not-jwks.bin", scenario(JWKS), response({"keys": "none"}), response(b"<html>502 Bad Gateway</html>", html=True))
write("jwks-empty.bin", scenario(JWKS), response({"keys": []}, cache="negative"))

# Scenario 1: Google's token endpoint (RFC 6749 §5.1 and §5.2).
google_ok = {"access_token": "ya29.a0fuzz-access", "expires_in": 3599, "refresh_token": "1//0fuzz-refresh",
             "scope": "openid https://www.googleapis.com/auth/userinfo.email https://www.googleapis.com/auth/userinfo.profile",
             "token_type": "Bearer", "id_token": id_token(google_claims)}
write("google-token.bin", scenario(GOOGLE, 1), response(google_ok))
write("google-token-placeholder.bin", scenario(GOOGLE), response(dict(google_ok, id_token="$IDTOKEN")))
write("google-token-with-jwks.bin", scenario(GOOGLE), response(google_ok), response({"keys": [public_rsa]}, cache="max-age=300", etag='"v1"'))
write("google-invalid-grant.bin", scenario(GOOGLE), response({"error": "invalid_grant", "error_description": "Bad Request"}, status=400))
write("google-echo-secret.bin", scenario(GOOGLE),
      response({"error": "invalid_client", "error_description": "The OAuth client secret $SECRET was not found."}, status=401))
write("google-echo-request.bin", scenario(GOOGLE), response({"error": "unsupported_grant_type", "error_description": "$ECHO"}, status=400))
write("google-200-error.bin", scenario(GOOGLE), response({"error": "invalid_grant", "error_description": "Malformed auth code."}))
write("google-wrong-types.bin", scenario(GOOGLE), response({"access_token": 1, "expires_in": "3599", "id_token": 42}))

# Scenario 2: Apple's token endpoint.
apple_ok = {"access_token": "a0fuzz.0.access", "token_type": "Bearer", "expires_in": 3600,
            "refresh_token": "r0fuzz.0.refresh", "id_token": id_token(apple_claims)}
write("apple-token.bin", scenario(APPLE, 1), response(apple_ok))
write("apple-token-placeholder.bin", scenario(APPLE), response(dict(apple_ok, id_token="$IDTOKEN")))
write("apple-invalid-client.bin", scenario(APPLE), response({"error": "invalid_client", "error_description": "client secret $SECRET expired"}, status=400))
write("apple-rate-limited.bin", scenario(APPLE), response({"error": "rate_limited"}, status=429))

# Scenario 3: Facebook Graph debug_token, then /me.
debug = {"data": {"app_id": "1000000000000001", "type": "USER", "application": "Fuzz", "data_access_expires_at": NOW + 7776000,
                  "expires_at": NOW + 5183000, "is_valid": True, "issued_at": NOW - 600, "scopes": ["email", "public_profile"],
                  "user_id": "10000000000000042"}}
me = {"id": "10000000000000042", "name": "Fuzz User", "first_name": "Fuzz", "last_name": "User", "email": "fuzz@example.com",
      "picture": {"data": {"height": 50, "is_silhouette": False,
                           "url": "https://platform-lookaside.fbsbx.com/platform/profilepic/?asid=10000000000000042", "width": 50}}}
write("facebook.bin", scenario(FACEBOOK), response(debug), response(me))
write("facebook-invalid.bin", scenario(FACEBOOK),
      response({"data": {"is_valid": False, "error": {"code": 190, "message": "Error validating access token: $SECRET"}, "scopes": []}}))
write("facebook-graph-error.bin", scenario(FACEBOOK),
      response({"error": {"message": "Invalid OAuth access token - Cannot parse access token $ECHO", "type": "OAuthException",
                          "code": 190, "fbtrace_id": "AbCdEfGhIjK"}}, status=400))
write("facebook-foreign-app.bin", scenario(FACEBOOK), response({"data": dict(debug["data"], app_id="$SECRET")}))
write("facebook-me-mismatch.bin", scenario(FACEBOOK), response(debug), response(dict(me, id="$SECRET")))
write("facebook-numeric-ids.bin", scenario(FACEBOOK),
      response({"data": dict(debug["data"], app_id=1000000000000001, user_id=10000000000000042)}), response(dict(me, id=10000000000000042)))

# Scenario 4: Apple's revoke endpoint.
write("apple-revoke.bin", scenario(REVOKE), response(b""))
write("apple-revoke-error.bin", scenario(REVOKE), response({"error": "invalid_client", "error_description": "$ECHO"}, status=400))
