#!/usr/bin/env python3
"""Makes the WebAuthn test vectors of this folder, and checks each with py_webauthn.

    python3 TestVectors/webauthn/make_vectors.py      # in an environment with soft-webauthn and webauthn

soft-webauthn.json: a registration (attestation "none", ES256) and two assertions by PyPI
soft-webauthn's SoftWebauthnDevice, a software authenticator (it never sets UV).
packed-eddsa.json, packed-rs256.json: the same ceremonies for the two other COSE algorithms,
which soft-webauthn lacks, signed with PyPI cryptography and encoded with fido2's CBOR and COSE
classes, with "packed" self attestation and UV set.
Every vector is then verified by PyPI webauthn (py_webauthn); the script fails if it refuses one.
The files are made once and committed (keys and challenges are random).
"""
import json, os, struct, sys
from base64 import urlsafe_b64encode

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ed25519, padding, rsa
from fido2 import cbor
from fido2.cose import EdDSA, RS256
from fido2.utils import sha256
from soft_webauthn import SoftWebauthnDevice
import webauthn

RP_ID = "example.org"
ORIGIN = "https://login.example.org"
HERE = os.path.dirname(os.path.abspath(__file__))


def b64(b):
    return urlsafe_b64encode(b).decode("ascii").rstrip("=")


def soft_webauthn_vector():
    device = SoftWebauthnDevice()
    challenge = os.urandom(32)
    options = {"publicKey": {
        "challenge": challenge, "rp": {"id": RP_ID, "name": "Example"},
        "user": {"id": b"user-4711", "name": "ada@example.org"},
        "pubKeyCredParams": [{"alg": -7, "type": "public-key"}], "attestation": "none"}}
    created = device.create(options, ORIGIN)
    registration = {"challenge": b64(challenge), "credential": {
        "id": b64(created["rawId"]), "rawId": b64(created["rawId"]), "type": "public-key",
        "response": {"clientDataJSON": b64(created["response"]["clientDataJSON"]),
                     "attestationObject": b64(created["response"]["attestationObject"])}}}
    assertions = []
    for stored in (0, 1):
        challenge = os.urandom(32)
        got = device.get({"publicKey": {"challenge": challenge, "rpId": RP_ID}}, ORIGIN)
        assertions.append({"challenge": b64(challenge), "stored_sign_count": stored, "credential": {
            "id": b64(got["rawId"]), "rawId": b64(got["rawId"]), "type": "public-key",
            "response": {"clientDataJSON": b64(got["response"]["clientDataJSON"]),
                         "authenticatorData": b64(got["response"]["authenticatorData"]),
                         "signature": b64(got["response"]["signature"]),
                         "userHandle": b64(got["response"]["userHandle"])}}})
    return {"source": "PyPI soft-webauthn SoftWebauthnDevice", "algorithm": "ES256", "attestation": "none",
            "user_verified": False, "registration": registration, "assertions": assertions}


def packed_vector(name):
    if name == "EdDSA":
        private = ed25519.Ed25519PrivateKey.generate()
        cose = EdDSA.from_cryptography_key(private.public_key())
        sign = lambda data: private.sign(data)
    else:
        private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        cose = RS256.from_cryptography_key(private.public_key())
        sign = lambda data: private.sign(data, padding.PKCS1v15(), hashes.SHA256())
    credential_id = os.urandom(32)
    flags = 0x01 | 0x04 | 0x40  # UP, UV, AT
    challenge = os.urandom(32)
    client_data = json.dumps({"type": "webauthn.create", "challenge": b64(challenge), "origin": ORIGIN,
                              "crossOrigin": False}).encode()
    auth_data = (sha256(RP_ID.encode()) + bytes([flags]) + struct.pack(">I", 0) + b"\0" * 16
                 + struct.pack(">H", len(credential_id)) + credential_id + cbor.encode(cose))
    statement = {"alg": cose.ALGORITHM, "sig": sign(auth_data + sha256(client_data))}
    attestation = cbor.encode({"fmt": "packed", "attStmt": statement, "authData": auth_data})
    registration = {"challenge": b64(challenge), "credential": {
        "id": b64(credential_id), "rawId": b64(credential_id), "type": "public-key",
        "response": {"clientDataJSON": b64(client_data), "attestationObject": b64(attestation)}}}
    assertions = []
    for stored, count in ((0, 7), (7, 8)):
        challenge = os.urandom(32)
        client_data = json.dumps({"type": "webauthn.get", "challenge": b64(challenge), "origin": ORIGIN}).encode()
        auth_data = sha256(RP_ID.encode()) + bytes([0x05]) + struct.pack(">I", count)
        assertions.append({"challenge": b64(challenge), "stored_sign_count": stored, "credential": {
            "id": b64(credential_id), "rawId": b64(credential_id), "type": "public-key",
            "response": {"clientDataJSON": b64(client_data), "authenticatorData": b64(auth_data),
                         "signature": b64(sign(auth_data + sha256(client_data))), "userHandle": b64(b"user-4711")}}})
    return {"source": "PyPI cryptography and fido2 (CBOR, COSE)", "algorithm": "RS256" if name == "RS256" else "EdDSA",
            "attestation": "packed", "user_verified": True, "registration": registration, "assertions": assertions}


def check_with_py_webauthn(vector):
    """py_webauthn must accept the registration and each assertion."""
    reg = vector["registration"]
    verified = webauthn.verify_registration_response(
        credential=reg["credential"], expected_challenge=webauthn.base64url_to_bytes(reg["challenge"]),
        expected_rp_id=RP_ID, expected_origin=ORIGIN, require_user_verification=vector["user_verified"])
    for a in vector["assertions"]:
        webauthn.verify_authentication_response(
            credential=a["credential"], expected_challenge=webauthn.base64url_to_bytes(a["challenge"]),
            expected_rp_id=RP_ID, expected_origin=ORIGIN, credential_public_key=verified.credential_public_key,
            credential_current_sign_count=a["stored_sign_count"], require_user_verification=vector["user_verified"])
    return verified


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--check":
        for name in ("soft-webauthn.json", "packed-eddsa.json", "packed-rs256.json"):
            with open(os.path.join(HERE, name)) as f:
                check_with_py_webauthn(json.load(f))
        print("py_webauthn accepts every vector")
        return
    for name, vector in (("soft-webauthn.json", soft_webauthn_vector()), ("packed-eddsa.json", packed_vector("EdDSA")),
                         ("packed-rs256.json", packed_vector("RS256"))):
        verified = check_with_py_webauthn(vector)
        vector["rp_id"], vector["origin"] = RP_ID, ORIGIN
        vector["credential_public_key_cose"] = b64(verified.credential_public_key)
        with open(os.path.join(HERE, name), "w") as f:
            json.dump(vector, f, indent=1)
            f.write("\n")
    print("wrote 3 vectors; py_webauthn accepts each")


if __name__ == "__main__":
    main()
