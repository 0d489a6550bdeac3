#!/usr/bin/env python3
"""Writes the fuzz seed corpora in TestVectors/fuzz/{token,jwk,pem,claims}/.

Seeds are made with joserfc and cryptography (independent of TokenTool) from the fixed fuzz
keys in TestVectors/fuzz/keys/, so the token target starts from tokens whose signatures verify.
Run from the repository root: python3 TestVectors/fuzz/make_seeds.py
"""
import base64, json, os, pathlib
from cryptography.hazmat.primitives import serialization
from joserfc import jws, jwt
from joserfc.jwk import ECKey, OKPKey, OctKey, RSAKey, KeySet

root = pathlib.Path("TestVectors/fuzz")
keys_dir = root / "keys"
NOW = 1_790_000_000

def b64(b):
    return base64.urlsafe_b64encode(b).rstrip(b"=").decode()

def write(target, name, data):
    d = root / target
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_bytes(data if isinstance(data, bytes) else data.encode())

pems = {n: (keys_dir / f"{n}.pem").read_bytes() for n in ["rsa", "p256", "p384", "p521", "ed"]}
secret = (keys_dir / "secret.txt").read_bytes().strip()
rsa = RSAKey.import_key(pems["rsa"], {"kid": "rsa"})
ecs = {n: ECKey.import_key(pems[n], {"kid": n}) for n in ["p256", "p384", "p521"]}
ed = OKPKey.import_key(pems["ed"], {"kid": "ed"})
hs = OctKey.import_key(secret, {"kid": "hs"})

claims = {"iss": "https://issuer.example", "sub": "user-42", "aud": ["app", "other"], "exp": NOW + 600,
          "nbf": NOW - 60, "iat": NOW - 60, "jti": "j1", "scope": "read write", "roles": ["admin", "user"],
          "email_verified": True, "amount": 12.5, "small": 7, "count": -3, "picture": "https://example.com/a.png",
          "address": {"street": "Main", "zip": 12345, "country": "NL"}, "extra": {"a": [1, 2, {"b": None}]},
          "matrix": [[1, 2], [3]]}
plan = [("HS256", hs), ("HS384", hs), ("HS512", hs), ("RS256", rsa), ("RS384", rsa), ("RS512", rsa),
        ("PS256", rsa), ("PS384", rsa), ("PS512", rsa), ("ES256", ecs["p256"]), ("ES384", ecs["p384"]),
        ("ES512", ecs["p521"]), ("EdDSA", ed)]
for alg, key in plan:
    header = {"alg": alg, "typ": "JWT", "kid": key.kid}
    write("token", f"valid-{alg}.jwt", jwt.encode(header, claims, key, algorithms=[alg]))
    write("token", f"minimal-{alg}.jwt", jwt.encode({"alg": alg, "kid": key.kid}, {"sub": "x"}, key, algorithms=[alg]))
# Hostile shapes (they must all be refused; the fuzzer mutates from here).
def unsigned(header, payload, sig=b"sig"):
    return f"{b64(json.dumps(header).encode())}.{b64(json.dumps(payload).encode())}.{b64(sig)}"
write("token", "alg-none.jwt", unsigned({"alg": "none"}, {"sub": "x"}, b"").rstrip("."))
write("token", "crit.jwt", unsigned({"alg": "HS256", "crit": ["exp"], "exp": 1}, {"sub": "x"}))
write("token", "b64-false.jwt", unsigned({"alg": "HS256", "b64": False, "crit": ["b64"]}, {"sub": "x"}))
write("token", "jwk-header.jwt", unsigned({"alg": "RS256", "jwk": {"kty": "oct", "k": "AAAA"}}, {"sub": "x"}))
write("token", "kid-traversal.jwt", unsigned({"alg": "HS256", "kid": "../../../../dev/null"}, {"sub": "x"}))
write("token", "bearer.txt", "Bearer " + unsigned({"alg": "HS256"}, {"sub": "x"}))
write("token", "jwe.txt", "eyJhbGciOiJSU0EtT0FFUCJ9.a.b.c.d")

# JWK and JWKS seeds: every key type, public and private, and a set.
jwk_keys = [rsa, ecs["p256"], ecs["p384"], ecs["p521"], ed, hs]
for k in jwk_keys:
    write("jwk", f"{k.kid}-private.json", json.dumps(k.as_dict(private=True)))
    if k is not hs:
        write("jwk", f"{k.kid}-public.json", json.dumps(k.as_dict(private=False)))
write("jwk", "set-public.json", json.dumps({"keys": [k.as_dict(private=False) for k in jwk_keys if k is not hs]}))
write("jwk", "set-secret.json", json.dumps({"keys": [hs.as_dict(private=True)]}))
write("jwk", "set-mixed-bad.json", json.dumps({"keys": [{"kty": "EC", "crv": "P-256", "x": "AA", "y": "AA"}, {"kty": "XX"}, 5]}))

# PEM and DER seeds: every encoding the importer reads.
from cryptography.hazmat.primitives.serialization import load_pem_private_key
from cryptography import x509
from cryptography.x509.oid import NameOID
import datetime
from cryptography.hazmat.primitives import hashes
for n, pem in pems.items():
    k = load_pem_private_key(pem, None)
    pub = k.public_key()
    Enc, Fmt = serialization.Encoding, serialization.PrivateFormat
    write("pem", f"{n}-pkcs8.pem", pem)
    write("pem", f"{n}-spki.pem", pub.public_bytes(Enc.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
    write("pem", f"{n}-spki.der", pub.public_bytes(Enc.DER, serialization.PublicFormat.SubjectPublicKeyInfo))
    write("pem", f"{n}-pkcs8.der", k.private_bytes(Enc.DER, Fmt.PKCS8, serialization.NoEncryption()))
    if n != "ed":
        write("pem", f"{n}-traditional.pem", k.private_bytes(Enc.PEM, Fmt.TraditionalOpenSSL, serialization.NoEncryption()))
    if n == "rsa":
        write("pem", "rsa-pkcs1-public.pem", pub.public_bytes(Enc.PEM, serialization.PublicFormat.PKCS1))
        write("pem", "rsa-pkcs1-public.der", pub.public_bytes(Enc.DER, serialization.PublicFormat.PKCS1))
    if n in ("p256", "rsa"):
        name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "fuzz")])
        t0 = datetime.datetime(2025, 1, 1, tzinfo=datetime.timezone.utc)
        cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(pub)
                .serial_number(1).not_valid_before(t0).not_valid_after(t0 + datetime.timedelta(days=3650))
                .sign(k, hashes.SHA256()))
        write("pem", f"{n}-cert.pem", cert.public_bytes(Enc.PEM))
        write("pem", f"{n}-cert.der", cert.public_bytes(Enc.DER))
write("pem", "trailing-garbage.pem", pems["p256"] + b"garbage\n")

# Claims seeds: payloads as the verifier sees them after the signature check.
write("claims", "full.json", json.dumps(claims))
write("claims", "minimal.json", json.dumps({"sub": "x"}))
write("claims", "types.json", json.dumps({"sub": "x", "exp": 1.5e9, "nbf": "soon", "iat": -1, "aud": "app",
                                          "small": 300, "count": 1e10, "roles": ["root"], "picture": "not a url"}))
write("claims", "huge-dates.json", '{"sub":"x","exp":1e300,"nbf":-1e300,"iat":9223372036854775807}')
write("claims", "nested.json", json.dumps({"sub": "x", "extra": {"a": {"b": {"c": [[[[1]]]]}}}}))
write("claims", "escapes.json", '{"sub":"\\u00e9\\ud83d\\ude00\\n\\"","aud":["app"],"extra":{"\\u0001":1}}')
print("seeds written")
