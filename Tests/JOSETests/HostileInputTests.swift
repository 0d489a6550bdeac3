import Foundation
import Testing
@testable import JOSE

/// Inputs chosen by an attacker. Every case asserts the exact error code; the threat
/// each one stands for is mapped in docs/security.md. Tokens are built here by hand, byte by
/// byte, so that the input is exactly the hostile shape under test.
enum Hostile {
    static let now: Int64 = 1_790_000_000
    static let clock = TokenClock.fixed(unixSeconds: now)

    /// Trusted HMAC secrets "k1" and "k2" (32 bytes each).
    static let secret1: [UInt8] = Array(repeating: 0x41, count: 32)
    static let secret2: [UInt8] = Array(repeating: 0x42, count: 32)
    // Keys live in static lets on purpose: under `make check-memory` LeakSanitizer scans them at
    // exit, which is the regression test for the false leak reports fixed in JWK's storage.
    static let hmacKeys: JWKSet = {
        var k1 = try! JWK(hmacSecret: secret1)
        k1.keyID = "k1"
        var k2 = try! JWK(hmacSecret: secret2)
        k2.keyID = "k2"
        return try! JWKSet(keys: [k1, k2])
    }()
    /// A 64-byte secret, long enough for HS256/384/512.
    static let secret64: JWK = {
        var k = try! JWK(hmacSecret: Array(repeating: 0x43, count: 64)); k.keyID = "k64"; return k
    }()
    static let rsa: JWK = {
        var k = try! JWK.generateRSA(bits: 2048); k.keyID = "rsa"; return k
    }()
    static let ec: [JWK.Curve: JWK] = {
        var out: [JWK.Curve: JWK] = [:]
        for c in [JWK.Curve.p256, .p384, .p521, .ed25519] {
            var k = try! JWK.generate(curve: c)
            k.keyID = c.rawValue
            out[c] = k
        }
        return out
    }()

    static func verifier(_ keys: JWKSet = hmacKeys, limits: TokenLimits = .default) -> JWTVerifier {
        JWTVerifier(keys: keys, options: VerifierOptions(clock: clock, limits: limits))
    }

    static func b64(_ text: String) -> String { Base64URL.encode(Array(text.utf8)) }

    /// An HS256 token over exactly these header and payload texts, MAC'd with `secret`.
    static func hs256(_ header: String, _ payload: String = #"{"sub":"x"}"#, secret: [UInt8] = secret1) -> String {
        let input = b64(header) + "." + b64(payload)
        let mac = try! HMAC.sha256(key: secret, data: Array(input.utf8))
        return input + "." + Base64URL.encode(mac)
    }

    static func key(for alg: JWSAlgorithm) -> JWK {
        switch alg.scheme {
        case .rsaPKCS1, .rsaPSS: return rsa
        case .ecdsa: return ec[alg.curve!]!
        case .eddsa: return ec[.ed25519]!
        case .hmac: return secret64
        }
    }

    static func sign(_ alg: JWSAlgorithm, _ claims: ClaimSet = ["sub": "x"]) -> String {
        try! JWTSigner(key: key(for: alg), algorithm: alg).sign(claims)
    }

    static func publicVerifier(for alg: JWSAlgorithm, limits: TokenLimits = .default) -> JWTVerifier {
        let k = key(for: alg)
        return JWTVerifier(keys: try! JWKSet(keys: [k.keyType == .oct ? k : k.publicKey]), options: VerifierOptions(clock: clock, limits: limits))
    }

    static func replacingSignature(_ token: String, _ signature: [UInt8]) -> String {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        return parts[0] + "." + parts[1] + "." + Base64URL.encode(signature)
    }

    static func signature(_ token: String) -> [UInt8] {
        try! Base64URL.decode(String(token.split(separator: ".", omittingEmptySubsequences: false)[2]), what: "signature")
    }

    static func hex(_ s: String) -> [UInt8] {
        var out: [UInt8] = []
        var it = s.makeIterator()
        while let a = it.next(), let b = it.next() { out.append(UInt8(String([a, b]), radix: 16)!) }
        return out
    }

    /// Curve orders n (SEC 2 / FIPS 186-4), as printed by `openssl ecparam -param_enc explicit -text`.
    static func order(_ curve: JWK.Curve) -> [UInt8] {
        switch curve {
        case .p256: return hex("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551")
        case .p384: return hex("ffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf581a0db248b0a77aecec196accc52973")
        case .p521:
            return hex(
                "01fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffa51868783bf2f966b7fcc0148f709a5d03bb5c9b8899c47aebb6fb71e91386409"
            )
        case .ed25519: return []
        }
    }

    /// ASN.1 DER Ecdsa-Sig-Value (X9.62) for raw r ‖ s, written here independently of JOSE.
    static func derSignature(raw: [UInt8]) -> [UInt8] {
        func integer(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
            var v = Array(bytes.drop(while: { $0 == 0 }))
            if v.isEmpty || v[0] & 0x80 != 0 { v.insert(0, at: 0) }
            return [0x02] + length(v.count) + v
        }
        func length(_ n: Int) -> [UInt8] { n < 128 ? [UInt8(n)] : [0x81, UInt8(n)] }
        let half = raw.count / 2
        let body = integer(raw[0..<half]) + integer(raw[half...])
        return [0x30] + length(body.count) + body
    }

    /// Runs `body`, which must throw a TokenError, and returns its code.
    static func code(_ body: () throws -> Void) -> TokenError.Code? {
        do { try body() } catch let e as TokenError { return e.code } catch { return TokenError.Code("non-token error: \(error)", .infrastructure) }
        return nil
    }
}

@Suite struct HostileInputTests {
    // MARK: alg none

    @Test(arguments: ["none", "None", "NONE", "nOnE", "NoNe"])
    func algNoneInEverySpellingIsUnsupported(spelling: String) {
        let header = Hostile.b64(#"{"alg":"\#(spelling)","typ":"JWT"}"#)
        let payload = Hostile.b64(#"{"sub":"admin"}"#)
        for token in ["\(header).\(payload).", "\(header).\(payload).c2ln"] {
            for verifier in [Hostile.verifier(), Hostile.publicVerifier(for: .rs256)] {
                #expect(Hostile.code { _ = try verifier.verify(token) } == .unsupportedAlgorithm)
                #expect(Hostile.code { _ = try verifier.verifySignature(token) } == .unsupportedAlgorithm)
            }
            // decode shows such a token (people debug them) but says every verifier refuses it.
            let shown = try? UnverifiedToken(token)
            #expect(shown?.refusal?.code == .unsupportedAlgorithm)
            #expect(shown != nil && shown?.header == nil)
        }
        #expect(Hostile.code { _ = try JWSAlgorithm.parse(spelling) } == .unsupportedAlgorithm)
    }

    // MARK: key confusion (RFC 8725 §2.1): the key decides the algorithm

    /// The classic attack: sign HS256 with the verifier's public key bytes as the HMAC secret.
    @Test(arguments: [JWSAlgorithm.rs256, .es256, .es384, .es512, .edDSA])
    func hs256WithPublicKeyBytesAsSecretIsRefused(keyAlg: JWSAlgorithm) throws {
        let pub = Hostile.key(for: keyAlg).publicKey
        let secrets: [[UInt8]] = [
            Array(try pub.pem().utf8),
            Array(try pub.pem().utf8.dropLast()),  // without the final newline
            try pub.publicKeyDER(),
            Array(try pub.jsonString().utf8),
        ]
        // The verifier trusts the public key as read from PEM, as a server configured with a PEM file would.
        let fromPEM = try JWK(pem: try pub.pem())
        for secret in secrets {
            for header in [#"{"alg":"HS256"}"#, #"{"alg":"HS256","kid":"\#(pub.keyID!)"}"#] {
                let token = Hostile.hs256(header, secret: secret)
                for key in [pub, fromPEM] {
                    let verifier = try JWTVerifier(key: key, options: VerifierOptions(clock: Hostile.clock))
                    let code = Hostile.code { _ = try verifier.verify(token) }
                    // A key without a kid cannot match a token's kid: key_not_found; otherwise the key refuses HS256.
                    #expect(code == (key.keyID == nil && header.contains("kid") ? .keyNotFound : .algorithmNotAllowed))
                }
                // Even when the caller lists HS256 among the accepted algorithms.
                let lax = try JWTVerifier(key: pub, options: VerifierOptions(algorithms: [.hs256, keyAlg], clock: Hostile.clock))
                #expect(Hostile.code { _ = try lax.verify(token) } == .algorithmNotAllowed)
            }
        }
        // In a set of several public keys, no key allows HS256: key_not_found.
        let set = try JWKSet(keys: [Hostile.rsa.publicKey, Hostile.ec[.p256]!.publicKey])
        let token = Hostile.hs256(#"{"alg":"HS256"}"#, secret: secrets[0])
        #expect(Hostile.code { _ = try Hostile.verifier(set).verify(token) } == .keyNotFound)
    }

    /// A set holding a secret beside a public key: HS256 "signed" with the public key's bytes
    /// is never verified by the public key (sets may mix them).
    @Test func aSetMixingSecretsAndPublicKeysKeepsTheKeyDeciding() throws {
        let set = try JWKSet(keys: [Hostile.hmacKeys.keys[0], Hostile.rsa.publicKey])
        let pem = Array(try Hostile.rsa.publicKey.pem().utf8)
        for header in [#"{"alg":"HS256"}"#, #"{"alg":"HS256","kid":"rsa"}"#] {
            let code = Hostile.code { _ = try Hostile.verifier(set).verify(Hostile.hs256(header, secret: pem)) }
            #expect(code == (header.contains("kid") ? .algorithmNotAllowed : .invalidSignature))
        }
        #expect(Hostile.code { _ = try set.jsonString() } == .invalidKey)
    }

    // MARK: header-supplied keys

    @Test(arguments: ["jwk", "jku", "x5u", "x5c"])
    func headerSuppliedKeysAreRefusedEvenWithAValidSignature(member: String) throws {
        let attacker = try JWK.generate(curve: .p256)
        let values: [String: String] = [
            "jwk": try attacker.publicKey.jsonString(),
            "jku": #""https://attacker.example/jwks.json""#,
            "x5u": #""https://attacker.example/cert.pem""#,
            "x5c": #"["MIIBszCCAVmgAwIBAgIUQ=="]"#,
        ]
        // MAC'd with the trusted secret: only the header member is wrong.
        let token = Hostile.hs256(#"{"alg":"HS256","kid":"k1","\#(member)":\#(values[member]!)}"#)
        #expect(Hostile.code { _ = try Hostile.verifier().verify(token) } == .malformed)
        #expect(Hostile.code { _ = try Hostile.verifier().verifySignature(token) } == .malformed)
        // Signed by the attacker's own key, whose public half (or its location) the header offers.
        let input = Hostile.b64(#"{"alg":"ES256","\#(member)":\#(values[member]!)}"#) + "." + Hostile.b64(#"{"sub":"admin"}"#)
        let signature = try Array(input.utf8).withUnsafeBytes { try attacker.material.sign(.es256, data: $0) }
        let withKey = input + "." + Base64URL.encode(signature)
        #expect(Hostile.code { _ = try Hostile.verifier(try JWKSet(keys: [Hostile.ec[.p256]!.publicKey])).verify(withKey) } == .malformed)
        // Positive control: the same token without the member verifies.
        #expect(Hostile.code { _ = try Hostile.verifier().verify(Hostile.hs256(#"{"alg":"HS256","kid":"k1"}"#)) } == nil)
    }

    // MARK: kid

    @Test(arguments: [
        "../../../../dev/null", "/etc/passwd", "..\\..\\windows\\win.ini", "%2e%2e%2f%2e%2e%2fetc%2fpasswd",
        "' OR '1'='1", "k1' --", "1; DROP TABLE keys; --", "k1\" OR \"\"=\"", "", " k1", "k1 ", "K1",
        "file:///etc/passwd", "http://169.254.169.254/latest/meta-data/", "*", "k%",
    ])
    func hostileKidIsKeyNotFoundNeverAFallback(kid: String) throws {
        let escaped = kid.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        // MAC'd with the trusted secret of "k1": a fallback to any key would accept it.
        let token = Hostile.hs256(#"{"alg":"HS256","kid":"\#(escaped)"}"#)
        #expect(Hostile.code { _ = try Hostile.verifier().verify(token) } == .keyNotFound)
        // Also with a single trusted key.
        let single = try JWTVerifier(key: Hostile.hmacKeys.keys[0], options: VerifierOptions(clock: Hostile.clock))
        #expect(Hostile.code { _ = try single.verify(token) } == .keyNotFound)
    }

    @Test func kidOfAnotherTrustedKeyDoesNotFallBack() {
        // MAC'd with k1's secret, but naming k2: only k2 is tried.
        let token = Hostile.hs256(#"{"alg":"HS256","kid":"k2"}"#)
        #expect(Hostile.code { _ = try Hostile.verifier().verify(token) } == .invalidSignature)
    }

    @Test(arguments: [#"1"#, #"null"#, #"["k1"]"#, #"{"k":"k1"}"#, #"true"#])
    func nonStringKidIsMalformed(kid: String) {
        #expect(Hostile.code { _ = try Hostile.verifier().verify(Hostile.hs256(#"{"alg":"HS256","kid":\#(kid)}"#)) } == .malformed)
    }

    // MARK: crit and b64

    @Test(arguments: [
        #""crit":["exp"],"exp":1"#, #""crit":["b64"],"b64":true"#, #""crit":["urn:example:x"]"#,
        #""crit":[]"#, #""crit":[1]"#, #""crit":"exp""#, #""crit":null"#,
    ])
    func unknownOrInvalidCritIsMalformed(members: String) {
        let token = Hostile.hs256(#"{"alg":"HS256","kid":"k1",\#(members)}"#)
        #expect(Hostile.code { _ = try Hostile.verifier().verify(token) } == .malformed)
        #expect(Hostile.code { _ = try Hostile.verifier().verifySignature(token) } == .malformed)
    }

    @Test(arguments: [#""b64":false,"crit":["b64"]"#, #""b64":false"#, #""b64":"false""#, #""b64":0"#, #""b64":null"#])
    func unencodedPayloadIsMalformed(members: String) {
        let token = Hostile.hs256(#"{"alg":"HS256","kid":"k1",\#(members)}"#)
        #expect(Hostile.code { _ = try Hostile.verifier().verifySignature(token) } == .malformed)
    }

    @Test func b64TrueWithoutCritIsTheDefaultAndVerifies() {
        #expect(Hostile.code { _ = try Hostile.verifier().verify(Hostile.hs256(#"{"alg":"HS256","kid":"k1","b64":true}"#)) } == nil)
    }

    // MARK: duplicate names (RFC 7515 §5.2: reject, or use only the last; we reject)

    @Test(arguments: [
        #"{"alg":"HS256","alg":"none"}"#, #"{"alg":"none","alg":"HS256"}"#,
        #"{"alg":"HS256","kid":"k2","kid":"k1"}"#, #"{"alg":"HS256","\u0061lg":"none"}"#,
        #"{"alg":"HS256","x":{"a":1,"a":2}}"#,
    ])
    func duplicateHeaderNamesAreMalformed(header: String) {
        #expect(Hostile.code { _ = try Hostile.verifier().verify(Hostile.hs256(header)) } == .malformed)
        #expect(Hostile.code { _ = try UnverifiedToken(Hostile.hs256(header)) } == .malformed)
    }

    @Test(arguments: [
        #"{"sub":"user","sub":"admin"}"#, #"{"exp":1,"exp":4102444800}"#, #"{"sub":"x","s\u0075b":"y"}"#,
        #"{"sub":"x","roles":{"admin":false,"admin":true}}"#,
    ])
    func duplicateClaimNamesAreMalformedAfterAValidMAC(payload: String) {
        let token = Hostile.hs256(#"{"alg":"HS256","kid":"k1"}"#, payload)
        #expect(Hostile.code { _ = try Hostile.verifier().verify(token) } == .malformed)
    }

    // MARK: signatures

    @Test(arguments: [JWSAlgorithm.es256, .es384, .es512])
    func ecdsaSignatureInDERIsRefused(alg: JWSAlgorithm) {
        let token = Hostile.sign(alg)
        let verifier = Hostile.publicVerifier(for: alg)
        #expect(Hostile.code { _ = try verifier.verify(token) } == nil)  // control
        let der = Hostile.derSignature(raw: Hostile.signature(token))
        #expect(der.count != 2 * alg.curve!.coordinateSize)
        #expect(Hostile.code { _ = try verifier.verify(Hostile.replacingSignature(token, der)) } == .invalidSignature)
    }

    @Test(arguments: [JWSAlgorithm.es256, .es384, .es512])
    func ecdsaRorSZeroOrAtLeastNIsInvalid(alg: JWSAlgorithm) {
        let token = Hostile.sign(alg)
        let verifier = Hostile.publicVerifier(for: alg)
        let size = alg.curve!.coordinateSize
        let sig = Hostile.signature(token)
        let r = Array(sig[0..<size]), s = Array(sig[size...])
        let zero = [UInt8](repeating: 0, count: size)
        let n = [UInt8](repeating: 0, count: size - Hostile.order(alg.curve!).count) + Hostile.order(alg.curve!)
        let ones = [UInt8](repeating: 0xFF, count: size)
        for (r2, s2) in [(zero, s), (r, zero), (zero, zero), (n, s), (r, n), (n, n), (ones, s), (r, ones)] {
            #expect(Hostile.code { _ = try verifier.verify(Hostile.replacingSignature(token, r2 + s2)) } == .invalidSignature)
        }
    }

    /// RFC 8032 §5.1.7: S must be below L; S + L is the classic malleated signature.
    @Test func ed25519NonCanonicalSIsInvalid() {
        let token = Hostile.sign(.edDSA)
        var sig = Hostile.signature(token)
        // L = 2^252 + 27742317777372353535851937790883648493, little-endian (RFC 8032 §5.1).
        let l = Hostile.hex("edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010")
        var carry = 0
        for i in 0..<32 {
            let v = Int(sig[32 + i]) + Int(l[i]) + carry
            sig[32 + i] = UInt8(v & 0xFF)
            carry = v >> 8
        }
        #expect(carry == 0)
        #expect(Hostile.code { _ = try Hostile.publicVerifier(for: .edDSA).verify(Hostile.replacingSignature(token, sig)) } == .invalidSignature)
    }

    @Test(arguments: JWSAlgorithm.allCases)
    func wrongLengthSignaturesAreInvalid(alg: JWSAlgorithm) {
        let token = Hostile.sign(alg)
        let verifier = Hostile.publicVerifier(for: alg)
        let sig = Hostile.signature(token)
        for candidate in [[0x00], Array(sig.dropLast()), sig + [0x00], [0x00] + sig, sig + sig, Array(sig.prefix(16))] {
            #expect(Hostile.code { _ = try verifier.verify(Hostile.replacingSignature(token, candidate)) } == .invalidSignature)
        }
        // An empty signature is not a signature at all.
        let unsigned = String(token[..<token.lastIndex(of: ".")!]) + "."
        #expect(Hostile.code { _ = try verifier.verify(unsigned) } == .malformed)
    }

    // MARK: size and depth bombs, refused before decoding work

    /// A token whose header says `alg: none`: if any decoding happened before the size check,
    /// the error would be unsupported_algorithm, not malformed.
    static func oversizedToken(bytes: Int) -> String {
        let head = Hostile.b64(#"{"alg":"none"}"#) + "."
        return head + String(repeating: "A", count: bytes - head.utf8.count - 1) + "."
    }

    @Test(arguments: [1 << 20, 10 << 20])
    func megabyteTokensAreRefusedBeforeDecodingInBoundedTime(size: Int) {
        let token = Self.oversizedToken(bytes: size)
        #expect(token.utf8.count == size)
        let verifier = Hostile.verifier()
        var error: TokenError?
        let elapsed = ContinuousClock().measure {
            do { _ = try verifier.verify(token) } catch let e as TokenError { error = e } catch {}
        }
        // Refused by the size check, the first thing done: before splitting, base64url or JSON.
        #expect(error?.code == .malformed)
        #expect(error?.message == "token is \(size) bytes; the limit is \(TokenLimits.default.maxTokenBytes)")
        #expect(Hostile.code { _ = try UnverifiedToken(token) } == .malformed)
        // O(1): the size is known without reading the token (microseconds, even under ASan and
        // valgrind). The bound leaves room for a loaded machine's scheduling; decoding 10 MB
        // would take far longer.
        #expect(elapsed < .milliseconds(100), "took \(elapsed)")
    }

    @Test func sizeLimitIsCheckedFirstAtTheExactBoundary() {
        let token = Self.oversizedToken(bytes: 4096)
        var limits = TokenLimits.default
        limits.maxTokenBytes = 4095
        #expect(Hostile.code { _ = try Hostile.verifier(limits: limits).verify(token) } == .malformed)
        limits.maxTokenBytes = 4096  // now the header is read, and alg none refused
        #expect(Hostile.code { _ = try Hostile.verifier(limits: limits).verify(token) } == .unsupportedAlgorithm)
    }

    static func nested(_ depth: Int) -> String { String(repeating: "[", count: depth) + String(repeating: "]", count: depth) }

    @Test func jsonNestedTenThousandDeepIsRefusedEverywhere() throws {
        let deep = Self.nested(10_000)
        let roomy = JSONLimits(maxBytes: 1 << 20, maxDepth: 32, maxTopLevelMembers: 256)
        let limits = TokenLimits(maxTokenBytes: 1 << 20, header: roomy, claims: roomy)
        // In the header (room enough in bytes, so the depth bound is what refuses it).
        #expect(Hostile.code { _ = try Hostile.verifier(limits: limits).verify(Hostile.hs256(#"{"alg":"HS256","x":\#(deep)}"#)) } == .malformed)
        // In the claims, behind a valid MAC.
        #expect(
            Hostile.code { _ = try Hostile.verifier(limits: limits).verify(Hostile.hs256(#"{"alg":"HS256"}"#, #"{"sub":\#(deep)}"#)) } == .malformed)
        // With the default limits too (size or depth, whichever comes first).
        #expect(Hostile.code { _ = try Hostile.verifier().verify(Hostile.hs256(#"{"alg":"HS256"}"#, #"{"sub":\#(deep)}"#)) } == .malformed)
        #expect(Hostile.code { _ = try JWK(json: #"{"kty":"oct","k":\#(deep)}"#) } == .invalidKey)
        #expect(Hostile.code { _ = try JWKSet(json: #"{"keys":\#(deep)}"#) } == .invalidKey)
        #expect(Hostile.code { _ = try JSONValue(parsing: deep) } == .malformed)
        // Even a caller who lifts our depth bound gets an error, not a stack overflow (jansson stops at 2048).
        #expect(Hostile.code { _ = try JSONValue(parsing: deep, limits: JSONLimits(maxBytes: 1 << 20, maxDepth: 1_000_000)) } == .malformed)
        // Brackets inside strings are not nesting.
        let inString = #"{"sub":"\#(String(repeating: "[", count: 10_000))\"{"}"#
        #expect(Hostile.code { _ = try JSONValue(parsing: inString) } == nil)
    }

    // MARK: dates

    @Test(arguments: ["exp", "nbf", "iat"])
    func nonNumericDatesAreInvalidClaims(claim: String) {
        for value in [#""1790000600""#, "null", "true", "[]", "{}", #""2026-11-22T03:12:00Z""#] {
            let token = Hostile.hs256(#"{"alg":"HS256"}"#, #"{"sub":"x","\#(claim)":\#(value)}"#)
            #expect(Hostile.code { _ = try Hostile.verifier().verify(token) } == .invalidClaim)
        }
    }

    @Test(arguments: ["exp", "nbf", "iat"])
    func hugeIntegersAreMalformed(claim: String) {
        // Outside jansson's int64 and double ranges: the JSON number itself is refused.
        for value in ["99999999999999999999999", "-99999999999999999999999", "1e400", "-1e400"] {
            let token = Hostile.hs256(#"{"alg":"HS256"}"#, #"{"sub":"x","\#(claim)":\#(value)}"#)
            #expect(Hostile.code { _ = try Hostile.verifier().verify(token) } == .malformed)
        }
    }

    @Test func extremeButRepresentableDatesAreJudgedNotTrapped() {
        func verify(_ payload: String) -> TokenError.Code? {
            Hostile.code { _ = try Hostile.verifier().verify(Hostile.hs256(#"{"alg":"HS256"}"#, payload)) }
        }
        #expect(verify(#"{"exp":1e300}"#) == nil)
        #expect(verify(#"{"exp":9223372036854775807}"#) == nil)
        #expect(verify(#"{"exp":-1e300}"#) == .expired)
        #expect(verify(#"{"exp":-9223372036854775808}"#) == .expired)
        #expect(verify(#"{"nbf":1e300}"#) == .notYetValid)
        #expect(verify(#"{"nbf":-1e300}"#) == nil)
        #expect(verify(#"{"iat":1e300}"#) == .invalidClaim)
        #expect(verify(#"{"iat":-1e300}"#) == nil)
        // Fuzz regression (claims target): the display helpers trapped on such values.
        #expect(!UTCTime.relative(1e300, now: 0).isEmpty)
        #expect(!UTCTime.relative(-1e300, now: 0).isEmpty)
        #expect(!UTCTime.format(1e300).isEmpty)
        #expect(!UTCTime.relative(.infinity, now: 0).isEmpty)
        #expect(!UTCTime.relative(.nan, now: 0).isEmpty)
    }

    // MARK: JWKS bombs

    @Test func jwksWithAHundredThousandKeysIsRefusedQuickly() {
        // 100,000 empty objects fit in the 512 KiB byte limit, so the key-count limit must refuse it.
        let json = #"{"keys":["# + Array(repeating: "{}", count: 100_000).joined(separator: ",") + "]}"
        #expect(json.utf8.count < JWKSet.Limits.default.maxBytes)
        let elapsed = ContinuousClock().measure {
            #expect(Hostile.code { _ = try JWKSet(json: json) } == .invalidKey)
        }
        #expect(elapsed < .seconds(10), "took \(elapsed)")
        // 100,000 real-looking keys exceed the byte limit first.
        let key = try! Hostile.ec[.p256]!.publicKey.jsonString()
        let big = #"{"keys":["# + Array(repeating: key, count: 100_000).joined(separator: ",") + "]}"
        #expect(Hostile.code { _ = try JWKSet(json: big) } == .invalidKey)
    }

    // MARK: PEM and DER

    @Test func pemWithTrailingGarbageIsRefused() throws {
        let pem = try Hostile.ec[.p256]!.publicKey.pem()
        #expect(Hostile.code { _ = try JWK(pem: pem) } == nil)  // control
        let der = try Hostile.ec[.p256]!.publicKeyDER()
        let derWithTail = Data(der + [0x00]).base64EncodedString(options: .lineLength64Characters)
        for text in [
            pem + "garbage", pem + "garbage\n", pem + "\n\nx", pem + "-----BEGIN FOO-----\n", "junk\n" + pem,
            pem + (try Hostile.ec[.p384]!.publicKey.pem()),
            "-----BEGIN PUBLIC KEY-----\n\(derWithTail)\n-----END PUBLIC KEY-----\n",
            pem.replacingOccurrences(of: "-----END PUBLIC KEY-----", with: "-----END PRIVATE KEY-----"),
            pem.replacingOccurrences(of: "\n-----END", with: "!\n-----END"),
        ] {
            #expect(Hostile.code { _ = try JWK(pem: text) } == .invalidKey)
        }
        #expect(Hostile.code { _ = try JWK(der: der + [0x00]) } == .invalidKey)
        #expect(Hostile.code { _ = try JWK(der: der + der) } == .invalidKey)
    }

    // MARK: NUL bytes

    @Test func nulBytesAnywhereAreRefused() throws {
        let good = Hostile.hs256(#"{"alg":"HS256","kid":"k1"}"#)
        #expect(Hostile.code { _ = try Hostile.verifier().verify(good) } == nil)  // control
        let utf8 = Array(good.utf8)
        let firstDot = utf8.firstIndex(of: UInt8(ascii: "."))!
        for position in [0, 5, firstDot, firstDot + 1, utf8.count - 1, utf8.count] {
            var bytes = utf8
            bytes.insert(0, at: position)
            let token = String(decoding: bytes, as: UTF8.self)
            #expect(Hostile.code { _ = try Hostile.verifier().verify(token) } == .malformed, "NUL at \(position)")
        }
        // Escaped NUL in header values, names and claims; a raw NUL after the header JSON.
        for (header, payload) in [
            (#"{"alg":"HS256","kid":"k1\u0000"}"#, #"{"sub":"x"}"#),
            (#"{"alg":"HS256\u0000"}"#, #"{"sub":"x"}"#),
            (#"{"alg":"HS256","k\u0000id":"k1"}"#, #"{"sub":"x"}"#),
            ("{\"alg\":\"HS256\"}\u{0}", #"{"sub":"x"}"#),
            (#"{"alg":"HS256"}"#, #"{"sub":"admin\u0000user"}"#),
            (#"{"alg":"HS256"}"#, "{\"sub\":\"x\"}\u{0}"),
        ] {
            #expect(Hostile.code { _ = try Hostile.verifier().verify(Hostile.hs256(header, payload)) } == .malformed, "\(header) \(payload)")
        }
        let jwk = try Hostile.ec[.p256]!.publicKey.jsonString()
        #expect(Hostile.code { _ = try JWK(json: jwk.replacingOccurrences(of: #""kty""#, with: #""kty\u0000""#)) } == .invalidKey)
        #expect(Hostile.code { _ = try JWK(json: jwk + "\u{0}") } == .invalidKey)
        #expect(Hostile.code { _ = try JWKSet(json: #"{"keys":[\#(jwk)]}"# + "\u{0}") } == .invalidKey)
        let pem = try Hostile.ec[.p256]!.publicKey.pem()
        #expect(Hostile.code { _ = try JWK(pem: pem.replacingOccurrences(of: "\n-----END", with: "\u{0}\n-----END")) } == .invalidKey)
        #expect(Hostile.code { _ = try JWK(hmacSecret: [UInt8](repeating: 0, count: 32)) } == nil)  // a secret may hold any byte
    }

    // MARK: what people paste

    @Test(arguments: ["Bearer ", "bearer ", "BEARER ", "Bearer\t"])
    func bearerPrefixIsRefusedWithAHint(prefix: String) {
        let token = prefix + Hostile.hs256(#"{"alg":"HS256","kid":"k1"}"#)
        do {
            _ = try Hostile.verifier().verify(token)
            Issue.record("a Bearer-prefixed token was accepted")
        } catch let error as TokenError {
            #expect(error.code == .malformed)
            // A hint is promised; only its presence is checked, not its wording.
            #expect(error.message.localizedCaseInsensitiveContains("bearer"))
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test(arguments: [" ", "\n", "\"", "\r\n"])
    func surroundingWhiteSpaceAndQuotesAreMalformed(wrap: String) {
        let token = Hostile.hs256(#"{"alg":"HS256","kid":"k1"}"#)
        #expect(Hostile.code { _ = try Hostile.verifier().verify(wrap + token + wrap) } == .malformed)
    }

    @Test(arguments: ["", ".", "..", "...", "a.b", "a.b.c.d", "a.b.c.d.e", "a.b.c.d.e.f.g", "=.=.="])
    func wrongSegmentCountsAreMalformed(token: String) {
        #expect(Hostile.code { _ = try Hostile.verifier().verify(token) } == .malformed)
    }

    // MARK: fuzz regressions (TestVectors/fuzz/regressions)

    static func regression(_ name: String) throws -> [UInt8] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("TestVectors/fuzz/regressions/\(name)")
        return Array(try Data(contentsOf: url))
    }

    /// An RSA private key whose d/CRT members do not match n and e signed tokens that never verify.
    @Test func mismatchedRSAPrivateKeysAreRefused() throws {
        let json = String(decoding: try Self.regression("jwk-rsa-private-mismatched.json"), as: UTF8.self)
        #expect(Hostile.code { _ = try JWK(json: json) } == .invalidKey)
        #expect(Hostile.code { _ = try JWK(der: try Self.regression("pem-rsa-private-mismatched.der")) } == .invalidKey)
        // Built by hand: a valid key whose d, dp and dq come from another key (OpenSSL signs with
        // the CRT members and falls back to d when the result does not check, so all three differ).
        let a = try JWKTestSupport.object(Hostile.rsa.jsonString(includePrivate: true))
        let other = try JWKTestSupport.object(JWK.generateRSA(bits: 2048).jsonString(includePrivate: true))
        var mixed = a
        for name in ["d", "dp", "dq"] { mixed[name] = other[name] }
        #expect(Hostile.code { _ = try JWK(jsonObject: mixed) } == .invalidKey)
        #expect(Hostile.code { _ = try JWK(jsonObject: a) } == nil)  // control
    }

    /// Heap use-after-free in EVPBuilder (parameter names freed before EVP_PKEY_fromdata), seen
    /// only under AddressSanitizer: `make check-memory` runs this.
    @Test func ecJWKImportIsMemorySafe() throws {
        let json = String(decoding: try Self.regression("jwk-ec-public-asan-use-after-free.json"), as: UTF8.self)
        let key = try JWK(json: json)
        #expect(key.curve == .p256)
        for c in [JWK.Curve.p256, .p384, .p521] {
            let k = Hostile.ec[c]!
            #expect(try JWK(json: try k.jsonString(includePrivate: true)).thumbprint() == (try k.thumbprint()))
        }
        #expect(try JWK(json: try Hostile.rsa.jsonString(includePrivate: true)).thumbprint() == (try Hostile.rsa.thumbprint()))
    }

    /// Found by this suite: HMACKey cleansed the caller's array (shared copy-on-write storage)
    /// when it was released, so a secret kept by the caller turned into 32 zero bytes.
    @Test func callersSecretIsNeverModified() throws {
        let secret = [UInt8](repeating: 0x41, count: 32)
        _ = try HMAC.sha256(key: secret, data: [1, 2, 3])
        #expect(secret == [UInt8](repeating: 0x41, count: 32))
        do { _ = try JWK(hmacSecret: secret) }
        #expect(secret == [UInt8](repeating: 0x41, count: 32))
        // RFC 4231 test case 2 (key "Jefe"): the MAC is still the right one on a second call.
        let jefe = Array("Jefe".utf8), data = Array("what do ya want for nothing?".utf8)
        for _ in 0..<2 {
            #expect(try HMAC.sha256(key: jefe, data: data) == Hostile.hex("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"))
        }
    }

    @Test func hugeDatesInClaimsDoNotTrapTheDecoder() throws {
        let payload = String(decoding: try Self.regression("claims-huge-dates.json"), as: UTF8.self)
        let token = Hostile.hs256(#"{"alg":"HS256"}"#, payload)
        // iat is Int64.max: issued in the future.
        #expect(Hostile.code { _ = try Hostile.verifier().verify(token) } == .invalidClaim)
        let decoded = try UnverifiedToken(token)
        for (_, value) in decoded.claims!.object {
            if let n = value.numberValue { _ = UTCTime.relative(n, now: Double(Hostile.now)); _ = UTCTime.format(n) }
        }
    }
}

enum JWKTestSupport {
    static func object(_ json: String) throws -> JSONObject {
        guard case .object(let o) = try JSONValue(parsing: json) else { throw TokenError(.invalidInput, "not an object") }
        return o
    }
}
