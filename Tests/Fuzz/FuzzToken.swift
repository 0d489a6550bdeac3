import Foundation
@testable import JOSE

// libFuzzer target "token": compact JWS/JWT parsing and verification against a fixed key set
// covering every algorithm (RSA for RS*/PS*, P-256/384/521, Ed25519, one HMAC secret), then
// claim validation, Codable decoding and the unverified decode path.

struct TokenTarget {
    let verifiers: [JWTVerifier]

    init() {
        do {
            var keys: [JWK] = []
            for (kid, pem) in [("rsa", FuzzKeys.rsa), ("p256", FuzzKeys.p256), ("p384", FuzzKeys.p384), ("p521", FuzzKeys.p521), ("ed", FuzzKeys.ed)]
            {
                var k = try JWK(pem: pem).publicKey
                k.keyID = kid
                keys.append(k)
            }
            var secret = try JWK(hmacSecret: FuzzKeys.secret)
            secret.keyID = "hs"
            let clock = TokenClock.fixed(unixSeconds: Fuzz.now)
            let strict = VerifierOptions(
                issuers: ["https://issuer.example"], audiences: ["app"], requiredClaims: ["sub"],
                type: "JWT", leeway: 30, clock: clock)
            let loose = VerifierOptions(clock: clock)
            let asymmetric = try JWKSet(keys: keys)
            let secrets = try JWKSet(keys: [secret])
            verifiers = [
                JWTVerifier(keys: asymmetric, options: strict), JWTVerifier(keys: asymmetric, options: loose),
                JWTVerifier(keys: secrets, options: strict), JWTVerifier(keys: secrets, options: loose),
            ]
        } catch {
            fatalError("fuzz keys do not load: \(error)")
        }
    }

    func run(_ bytes: [UInt8]) {
        let token = String(decoding: bytes, as: UTF8.self)
        for v in verifiers {
            _ = try? v.verify(token)
            _ = try? v.verify(token, as: AppClaims.self)
            _ = try? v.verifySignature(token)
        }
        if let u = try? UnverifiedToken(token) {
            _ = JSONValue.object(u.headerMembers).prettyString()
            // Invariant: a header that passes the rules is the same header decode shows.
            if let header = u.header { Fuzz.check(header.members == u.headerMembers, "UnverifiedToken header and headerMembers differ") }
            Fuzz.check((u.header == nil) == (u.refusal != nil) || u.signature.isEmpty, "UnverifiedToken refusal and header disagree")
            if let claims = u.claims { Fuzz.exercise(claims) }
        }
        // Invariant: strict base64url is canonical, so decode then encode gives the input back.
        for segment in token.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false) {
            if case .success(let decoded) = Base64URL.decode(segment) {
                Fuzz.check(Base64URL.encode(decoded).utf8.elementsEqual(segment), "base64url decode accepted a non-canonical segment")
            }
        }
        Fuzz.check(Base64URL.decode(Base64URL.encode(bytes).utf8) == .success(bytes), "base64url round trip failed")
    }
}

nonisolated(unsafe) private var target: TokenTarget? = nil

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzToken(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    if target == nil { target = TokenTarget() }
    target!.run(Fuzz.bytes(data, size))
    return 0
}
