#!/bin/bash
# Made the key fixtures in this folder ONCE (their output is committed; do not re-run in tests).
# Needs: openssl (3.x) and python3 with joserfc (for the expected JWKs and RFC 7638 thumbprints).
set -euo pipefail
cd "$(dirname "$0")"
O=openssl

# RSA 2048: traditional (PKCS#1) and PKCS#8 private keys, SPKI and PKCS#1 public keys, a certificate.
$O genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out rsa2048.pkcs8.pem
$O pkey -in rsa2048.pkcs8.pem -traditional -out rsa2048.traditional.pem
$O pkey -in rsa2048.pkcs8.pem -pubout -out rsa2048.spki.pem
$O rsa -in rsa2048.pkcs8.pem -RSAPublicKey_out -out rsa2048.pkcs1-public.pem
$O req -x509 -new -key rsa2048.pkcs8.pem -subj /CN=tokentool-test-rsa -days 36500 -sha256 -out rsa2048.cert.pem
$O pkcs8 -topk8 -nocrypt -in rsa2048.pkcs8.pem -outform DER -out rsa2048.pkcs8.der
$O rsa -in rsa2048.pkcs8.pem -traditional -outform DER -out rsa2048.traditional.der
$O pkey -in rsa2048.pkcs8.pem -pubout -outform DER -out rsa2048.spki.der
$O rsa -in rsa2048.pkcs8.pem -RSAPublicKey_out -outform DER -out rsa2048.pkcs1-public.der
$O x509 -in rsa2048.cert.pem -outform DER -out rsa2048.cert.der
# The same key, encrypted (must be refused: decrypt first).
$O pkcs8 -topk8 -in rsa2048.pkcs8.pem -v2 aes-256-cbc -passout pass:test -out rsa2048.encrypted.pem

# EC P-256/P-384/P-521: traditional ("EC PRIVATE KEY", with an EC PARAMETERS block for P-256), PKCS#8, SPKI, certificate.
for c in P-256 P-384 P-521; do
  n=$(echo "$c" | tr -d - | tr P p)
  $O genpkey -algorithm EC -pkeyopt ec_paramgen_curve:$c -pkeyopt ec_param_enc:named_curve -out ec$n.pkcs8.pem
  $O ec -in ec$n.pkcs8.pem -out ec$n.traditional.pem
  $O pkey -in ec$n.pkcs8.pem -pubout -out ec$n.spki.pem
  $O pkey -in ec$n.pkcs8.pem -pubout -outform DER -out ec$n.spki.der
  $O ec -in ec$n.pkcs8.pem -outform DER -out ec$n.traditional.der
  $O req -x509 -new -key ec$n.pkcs8.pem -subj /CN=tokentool-test-$n -days 36500 -sha256 -out ec$n.cert.pem
done
$O ecparam -name prime256v1 -genkey -out ec-p256.with-params.pem

# Ed25519: PKCS#8 and SPKI.
$O genpkey -algorithm ED25519 -out ed25519.pkcs8.pem
$O pkey -in ed25519.pkcs8.pem -pubout -out ed25519.spki.pem
$O pkey -in ed25519.pkcs8.pem -pubout -outform DER -out ed25519.spki.der

# Weak and broken keys, all of which must be refused.
$O genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:1024 -out weak-rsa1024.pkcs8.pem
$O pkey -in weak-rsa1024.pkcs8.pem -pubout -out weak-rsa1024.spki.pem
# RSA public key with e = 1: the 2048-bit modulus above with the exponent replaced (ASN.1 built by openssl asn1parse).
mod=$($O rsa -in rsa2048.pkcs8.pem -noout -modulus | sed 's/^Modulus=//')
printf 'asn1=SEQUENCE:k\n[k]\nn=INTEGER:0x%s\ne=INTEGER:1\n' "$mod" > /tmp/e1.cnf
$O asn1parse -genconf /tmp/e1.cnf -noout -out weak-rsa-e1.pkcs1-public.der
$O rsa -RSAPublicKey_in -inform DER -in weak-rsa-e1.pkcs1-public.der -RSAPublicKey_out -out weak-rsa-e1.pkcs1-public.pem 2>/dev/null \
  || { echo "-----BEGIN RSA PUBLIC KEY-----"; base64 -w 64 weak-rsa-e1.pkcs1-public.der; echo "-----END RSA PUBLIC KEY-----"; } > weak-rsa-e1.pkcs1-public.pem
# P-256 SPKI whose point (x, y+1) is not on the curve.
xy=$($O pkey -pubin -in ecp256.spki.pem -noout -text | sed -n '/^pub:/,/^ASN1/p' | grep '^ ' | tr -d ' :\n')
x=${xy:2:64}; y=${xy:66:64}
ybad=$(python3 -c "print(format((int('$y',16)+1) % 2**256, '064x'))")
printf 'asn1=SEQUENCE:spki\n[spki]\nalg=SEQUENCE:alg\nkey=FORMAT:HEX,BITSTRING:04%s%s\n[alg]\nid=OID:id-ecPublicKey\ncurve=OID:prime256v1\n' "$x" "$ybad" > /tmp/offcurve.cnf
$O asn1parse -genconf /tmp/offcurve.cnf -noout -out weak-p256-off-curve.spki.der
{ echo "-----BEGIN PUBLIC KEY-----"; base64 -w 64 weak-p256-off-curve.spki.der; echo "-----END PUBLIC KEY-----"; } > weak-p256-off-curve.spki.pem
rm -f /tmp/e1.cnf /tmp/offcurve.cnf

# Expected public JWKs and RFC 7638 thumbprints, computed by joserfc (an independent implementation).
python3 - <<'PY'
import json
from joserfc.jwk import import_key
out = {}
for name, kty in [("rsa2048", "RSA"), ("ecp256", "EC"), ("ecp384", "EC"), ("ecp521", "EC"), ("ed25519", "OKP")]:
    key = import_key(open(f"{name}.pkcs8.pem", "rb").read(), kty)
    pub = key.as_dict(private=False)
    out[name] = {"jwk": {k: pub[k] for k in sorted(pub) if k in ("kty", "crv", "x", "y", "n", "e")}, "thumbprint": key.thumbprint()}
json.dump(out, open("expected.json", "w"), indent=2, sort_keys=True)
open("expected.json", "a").write("\n")
PY
