import Foundation
@testable import JOSE

// A synchronous driver for `scripts/check-memory.sh valgrind`: what `tokentool keygen / sign /
// verify / decode` do, for every algorithm, through the JOSE API, plus a replay of the fuzz
// seed corpora. Built by swiftc without sanitizers and run under valgrind memcheck.
// (valgrind 3.19 itself crashes on any Swift `async` main, which tokentool has; this driver is
// synchronous so memcheck can see the library's allocations.)
//
//   valgrind-driver [SEED_FILE...]

@main
struct ValgrindDriver {
    static func main() throws {
        let now = Fuzz.now
        var checks = 0
        let rsa = try JWK.generateRSA(bits: 2048)  // once: RSA generation is slow under valgrind
        for alg in JWSAlgorithm.allCases {
            // keygen, in every output form, and back
            let key: JWK
            switch alg.scheme {
            case .hmac: key = try JWK.generateSecret(bytes: 64)
            case .rsaPKCS1, .rsaPSS: key = rsa
            case .ecdsa: key = try JWK.generate(curve: alg.curve!)
            case .eddsa: key = try JWK.generate(curve: .ed25519)
            }
            let reread = try JWK(json: try key.jsonString(includePrivate: true))
            if key.keyType != .oct {
                _ = try JWK(pem: try key.pem(includePrivate: true))
                _ = try JWK(pem: try key.pem(includePrivate: false))
                _ = try JWK(der: try key.publicKeyDER())
            }
            _ = try key.thumbprint()
            // sign
            var claims = ClaimSet()
            claims.subject = "memcheck"
            claims.expiresAt = Date(timeIntervalSince1970: TimeInterval(now + 3600))
            claims["n"] = 42
            let token = try JWTSigner(key: reread, algorithm: alg).sign(claims)
            // verify: valid, tampered, wrong key
            let verifier = try JWTVerifier(
                key: key.keyType == .oct ? key : key.publicKey,
                options: VerifierOptions(clock: .fixed(unixSeconds: now)))
            guard try verifier.verify(token).claims.subject == "memcheck" else { fatalError("\(alg): wrong claims") }
            _ = try verifier.verify(token, as: AppClaims.self)
            _ = try verifier.verifySignature(token)
            let tampered = String(token.dropLast()) + (token.hasSuffix("A") ? "B" : "A")
            do { _ = try verifier.verify(tampered); fatalError("\(alg): tampered token verified") } catch is TokenError {}
            // decode
            let decoded = try UnverifiedToken(token)
            Fuzz.exercise(decoded.claims!)
            _ = JSONValue.object(decoded.headerMembers).prettyString()
            // a JWKS of the public half
            let set = try JWKSet(json: try JWKSet(keys: [key]).jsonString(includePrivate: key.keyType == .oct))
            _ = try set.candidates(keyID: nil, algorithm: alg)
            checks += 1
        }
        // Replay the fuzz seeds: every input goes through every parser.
        var replayed = 0
        for path in CommandLine.arguments.dropFirst() {
            guard let data = FileManager.default.contents(atPath: path) else { continue }
            let bytes = Array(data)
            let text = String(decoding: bytes, as: UTF8.self)
            _ = try? UnverifiedToken(text)
            if let key = try? JWK(json: text) { Fuzz.exercise(key) }
            if let set = try? JWKSet(jsonBytes: bytes) { set.keys.prefix(8).forEach(Fuzz.exercise) }
            if let key = try? JWK(pem: text) { Fuzz.exercise(key) }
            if let key = try? JWK(der: bytes) { Fuzz.exercise(key) }
            if let doc = try? JSONDocument(parsing: bytes, limits: TokenLimits.default.claims, what: "payload") {
                _ = try? ClaimsDecoder.decode(AppClaims.self, from: doc)
                Fuzz.exercise(ClaimSet(doc.object()))
            }
            replayed += 1
        }
        print("valgrind driver: \(checks) algorithms, \(replayed) seed files")
    }
}
